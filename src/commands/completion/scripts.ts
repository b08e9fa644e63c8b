// Shell scripts that delegate to `kubectl-kruise __complete`, so completion always
// matches the installed command tree (and completes object names from the cluster).
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * What each script shares: ask `kubectl-kruise __complete WORDS... CURRENT`, read one candidate
 * per line (a tab starts a description) and the last line ":<directive>" (cobra's bits: 1 error,
 * 2 no space after the candidate, 4 no file names when nothing matches).
 * "kubectl kruise <TAB>" is not these scripts' business: kubectl's own completion (kubectl >= 1.26)
 * runs kubectl_complete-kruise, which asks the same __complete.
 */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# bash completion for kubectl-kruise (written by \`kubectl-kruise completion bash\`).
# Load it with: source <(kubectl-kruise completion bash)
# or install it: cp kubectl-kruise.bash ~/.local/share/bash-completion/completions/kubectl-kruise
# "kubectl kruise <TAB>" goes through kubectl's completion and kubectl_complete-kruise (kubectl >= 1.26).
__kubectl_kruise_complete() {
  local line=\${COMP_LINE:0:COMP_POINT}
  local -a words
  # The words as the command reads them: COMP_WORDS splits "--namespace=team-a" and "app=nginx"
  # at COMP_WORDBREAKS' = and :, so split the line up to the cursor at blanks instead.
  IFS=$' \\t\\n' read -r -a words <<< "$line"
  if [[ \${#words[@]} -eq 0 || $line == *[[:blank:]] ]]; then words+=(''); fi
  local cur=\${words[\${#words[@]}-1]}
  local out
  out=$(kubectl-kruise __complete "\${words[@]:1}" 2>/dev/null) || return 0
  local directive=\${out##*:}
  if [[ ! $directive =~ ^[0-9]+$ ]] || (( directive & 1 )); then return 0; fi
  out=\${out%:*}
  # Readline replaces only the text after the last word break (= or :) of the current word.
  local breaks=\${COMP_WORDBREAKS//[^=:]/} strip=''
  if [[ -n $breaks && $cur == *[$breaks]* ]]; then strip=\${cur%"\${cur##*[$breaks]}"}; fi
  local candidate
  COMPREPLY=()
  while IFS= read -r candidate; do
    candidate=\${candidate%%$'\\t'*}
    if [[ -n $candidate && $candidate == "$cur"* ]]; then COMPREPLY+=("\${candidate#"$strip"}"); fi
  done <<< "$out"
  if (( directive & 2 )); then compopt -o nospace 2>/dev/null; fi
  if (( \${#COMPREPLY[@]} == 0 && !(directive & 4) )); then compopt -o default 2>/dev/null; fi
  return 0
}
complete -F __kubectl_kruise_complete kubectl-kruise
`;
    case 'zsh':
      return `#compdef kubectl-kruise
# zsh completion for kubectl-kruise (written by \`kubectl-kruise completion zsh\`).
# Install it: kubectl-kruise completion zsh > "\${fpath[1]}/_kubectl-kruise" (then a new shell),
# or load it after compinit: source <(kubectl-kruise completion zsh)
# "kubectl kruise <TAB>" goes through kubectl's completion and kubectl_complete-kruise (kubectl >= 1.26).
_kubectl-kruise() {
  local out directive
  local -a candidates opts
  # The words before the cursor and the part of the current one before it, unquoted.
  out=$(kubectl-kruise __complete "\${(@Q)words[2,CURRENT-1]}" "\${(Q)PREFIX}" 2>/dev/null) || return 1
  directive=\${out##*:}
  [[ $directive == <-> ]] || return 1
  (( directive & 1 )) && return 1
  candidates=("\${(@f)\${out%:*}}")
  candidates=("\${(@)candidates%%$'\\t'*}")
  candidates=(\${candidates:#})
  if (( \${#candidates} == 0 )); then
    (( directive & 4 )) || _files
    return
  fi
  (( directive & 2 )) && opts=(-S '')
  compadd "\${opts[@]}" -- "\${candidates[@]}"
}
# Autoloaded from $fpath, this file is the function's body: complete now. Sourced: register.
if [[ "\${funcstack[1]}" == _kubectl-kruise ]]; then
  _kubectl-kruise "$@"
else
  compdef _kubectl-kruise kubectl-kruise
fi
`;
    case 'fish':
      return `# fish completion for kubectl-kruise (written by \`kubectl-kruise completion fish\`).
# Install it: kubectl-kruise completion fish > ~/.config/fish/completions/kubectl-kruise.fish
# "kubectl kruise <TAB>" goes through kubectl's completion and kubectl_complete-kruise (kubectl >= 1.26).
# Fish adds no space after a candidate ending in / or = (cloneset/, app=), as directive 2 asks.
function __kubectl_kruise_prepare
    set -g __kubectl_kruise_results
    set -l args (commandline -opc)
    set -e args[1]
    set -l out (kubectl-kruise __complete $args (commandline -ct) 2>/dev/null)
    or return 1
    set -l directive (string replace -r '^:' '' -- $out[-1])
    string match -qr '^[0-9]+$' -- $directive
    or return 1
    test (math "bitand($directive, 1)") -eq 0
    or return 1
    set -e out[-1]
    set -g __kubectl_kruise_results $out
    # Nothing to offer and file names allowed: fail, so fish falls back to file names.
    test (count $out) -gt 0; or test (math "bitand($directive, 4)") -ne 0
end
complete -c kubectl-kruise -f -n __kubectl_kruise_prepare -a '$__kubectl_kruise_results'
`;
  }
}

export async function run(ctx: CommandContext, args: string[]): Promise<number> {
  const shell = args[0];
  if (!SHELLS.includes(shell as Shell)) throw usageError(`unsupported shell "${shell}": use one of ${SHELLS.join(', ')}`);
  ctx.term.stdout.write(completionScript(shell as Shell));
  return 0;
}
