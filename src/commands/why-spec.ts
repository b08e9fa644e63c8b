// `why`: what a workload is waiting for (implementation in why.ts).
import type { Command } from 'commander';
import type { CommandContext } from '../cli/context';
import { lazyAction } from './lazy';

export function registerWhy(program: Command, ctx: CommandContext): void {
  program
    .command('why')
    .description('explain what a workload or Kruise Rollout is waiting for, most blocking first, with the next command to run')
    .argument('<TYPE/NAME...>', 'workloads (cloneset/x, deployment/x, daemonset/x, sidecarset/x, ...) or rollout/NAME')
    .option('-o, --output <format>', 'json or yaml')
    .option('--fix', 'remove what a finished or abandoned Kruise Rollout left on the workload (server-side dry run first, then a conditional JSON patch); refused while a release is in progress')
    .addHelpText(
      'after',
      `\nUsage:\n  ${ctx.programName} why TYPE/NAME... [-n NS] [-o json|yaml] [--fix]\n\n` +
        `Read only unless --fix. Exit 0 when it could read (findings or not), 1 when it could not.\n` +
        `Codes: ControllerNotObserving, AwaitingApproval, Paused, PartitionHolds, MaxUnavailableRoundsToZero, ScaleThrottled,\n` +
        `  BudgetExhausted, LifecycleHookHolds, ReadinessGateFalse, ImagePull, Unschedulable, RolloutLeftover.\n` +
        `JSON: [{"object":"cloneset/x","namespace":"ns","findings":[{"code":"PartitionHolds","cause":"...","objects":["cloneset/x"],"next":"..."}]}]\n\n` +
        `Examples:\n  ${ctx.programName} why cloneset/web\n  ${ctx.programName} why deployment/web --fix\n  ${ctx.programName} why rollout/web -o json`,
    )
    .action(lazyAction(ctx, () => import('./why')));
}
