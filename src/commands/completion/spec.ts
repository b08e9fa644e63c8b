// `completion bash|zsh|fish` and the hidden `__complete` protocol the scripts (and
// kubectl >= 1.26 through `kubectl_complete-kruise`) call.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerCompletion(program: KruiseCommand, ctx: CommandContext): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .notes(`
      The same scripts ship in completions/ of the npm package and the release archives.
      "kubectl kruise <TAB>" goes through kubectl's own completion (kubectl >= 1.26), which runs
      kubectl_complete-kruise from PATH (installed by npm beside kubectl-kruise).`)
    .examples(`
      # Load the bash completion into the current shell
      source <(kubectl-kruise completion bash)

      # Install it for bash
      kubectl-kruise completion bash > ~/.local/share/bash-completion/completions/kubectl-kruise

      # Install it for zsh, in a folder on $fpath (before compinit)
      kubectl-kruise completion zsh > ~/.zfunc/_kubectl-kruise

      # Install it for fish
      kubectl-kruise completion fish > ~/.config/fish/completions/kubectl-kruise.fish`)
    .action(lazyAction(ctx, () => import('./scripts')));
  program
    .command('__complete', { hidden: true })
    .description('print completion candidates for the words typed so far (cobra protocol)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .helpOption(false)
    .argument('[words...]')
    .action(lazyAction(ctx, () => import('./complete')));
}
