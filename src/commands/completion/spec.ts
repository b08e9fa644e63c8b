// `completion bash|zsh|fish` and the hidden `__complete` protocol the scripts (and
// kubectl >= 1.26 through `kubectl_complete-kruise`) call.
import { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerCompletion(program: Command, ctx: CommandContext): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      `\nExamples:\n  source <(kubectl-kruise completion bash)\n  kubectl-kruise completion bash > ~/.local/share/bash-completion/completions/kubectl-kruise\n  kubectl-kruise completion zsh > ~/.zfunc/_kubectl-kruise     # a folder on $fpath, before compinit\n  kubectl-kruise completion fish > ~/.config/fish/completions/kubectl-kruise.fish\n\nThe same scripts ship in completions/ of the npm package and the release archives.\n"kubectl kruise <TAB>" goes through kubectl's own completion (kubectl >= 1.26), which runs\nkubectl_complete-kruise from PATH (installed by npm beside kubectl-kruise).`,
    )
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
