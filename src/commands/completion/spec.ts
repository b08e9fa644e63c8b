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
      `\nExamples:\n  source <(${ctx.programName === 'kubectl kruise' ? 'kubectl-kruise' : ctx.programName} completion bash)\n  kubectl-kruise completion zsh > "\${fpath[1]}/_kubectl-kruise"\n  kubectl-kruise completion fish > ~/.config/fish/completions/kubectl-kruise.fish\n\nFor "kubectl kruise <TAB>" (kubectl >= 1.26), put bin/kubectl_complete-kruise on your PATH.`,
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
