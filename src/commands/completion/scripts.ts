// Shell scripts that delegate to `kubectl-kruise __complete`, so completion always
// matches the installed command tree (and completes object names from the cluster).
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# bash completion for kubectl-kruise
__kubectl_kruise_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local out directive
  out=$(kubectl-kruise __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return
  directive=\${out##*:}
  out=\${out%:*}
  COMPREPLY=( $(compgen -W "$out" -- "$cur") )
  if [[ $(( directive & 2 )) -ne 0 ]]; then compopt -o nospace 2>/dev/null; fi
  if [[ $(( directive & 4 )) -eq 0 && \${#COMPREPLY[@]} -eq 0 ]]; then compopt -o default 2>/dev/null; fi
}
complete -F __kubectl_kruise_complete kubectl-kruise
`;
    case 'zsh':
      return `#compdef kubectl-kruise
# zsh completion for kubectl-kruise
_kubectl_kruise() {
  local -a candidates
  local out directive
  out=$(kubectl-kruise __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return
  directive=\${out##*:}
  candidates=(\${(f)\${out%:*}})
  if (( directive & 2 )); then
    compadd -S '' -- $candidates
  else
    compadd -- $candidates
  fi
}
compdef _kubectl_kruise kubectl-kruise
`;
    case 'fish':
      return `# fish completion for kubectl-kruise
function __kubectl_kruise_complete
  set -l args (commandline -opc)[2..-1] (commandline -ct)
  kubectl-kruise __complete $args 2>/dev/null | string match -v -r '^:[0-9]+$'
end
complete -c kubectl-kruise -f -a '(__kubectl_kruise_complete)'
`;
  }
}

export async function run(ctx: CommandContext, args: string[]): Promise<number> {
  const shell = args[0];
  if (!SHELLS.includes(shell as Shell)) throw usageError(`unsupported shell "${shell}": use one of ${SHELLS.join(', ')}`);
  ctx.term.stdout.write(completionScript(shell as Shell));
  return 0;
}
