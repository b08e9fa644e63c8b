// `why`: what a workload is waiting for (implementation in why.ts).
import type { KruiseCommand } from '../cli/help';
import type { CommandContext } from '../cli/context';
import { lazyAction } from './lazy';
import { GITOPS_HELP } from './gitops-help';

export function registerWhy(program: KruiseCommand, ctx: CommandContext): void {
  program
    .command('why')
    .description('explain what a workload or Kruise Rollout is waiting for, most blocking first, with the next command to run')
    .usage('TYPE/NAME... [-o json|yaml] [--fix]')
    .argument('<TYPE/NAME...>', 'workloads (cloneset/x, deployment/x, daemonset/x, sidecarset/x, ...) or rollout/NAME')
    .option('-o, --output <format>', 'json or yaml')
    .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-kruise-why')
    .option('--gitops <mode>', GITOPS_HELP, 'warn')
    .option('--fix', 'remove what a finished or abandoned Kruise Rollout left on the workload (server-side dry run first, then a conditional JSON patch); refused while a release is in progress')
    .notes(`
      Read only unless --fix. Exit 0 when it could read (findings or not), 1 when it could not.
      Codes: ControllerNotObserving, AwaitingApproval, Paused, PartitionHolds, MaxUnavailableRoundsToZero, ScaleThrottled,
        BudgetExhausted, LifecycleHookHolds, ReadinessGateFalse, ImagePull, Unschedulable, RolloutLeftover,
        UnreleasedTemplate.
      JSON: [{"object":"cloneset/x","namespace":"ns","findings":[{"code":"PartitionHolds","cause":"...","objects":["cloneset/x"],"next":"..."}]}]`)
    .examples(`
      # What a CloneSet's rollout is waiting for, most blocking first
      ${ctx.programName} why cloneset/web

      # Remove what a finished Kruise Rollout left on a Deployment
      ${ctx.programName} why deployment/web --fix

      # The findings of a Kruise Rollout as JSON
      ${ctx.programName} why rollout/web -o json`)
    .action(lazyAction(ctx, () => import('./why')));
}
