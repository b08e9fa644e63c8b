// `migrate`: names, flags and help only; the implementation loads lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { GITOPS_HELP } from '../gitops-help';

export function registerMigrate(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('migrate')
    .description('move the pods of a Deployment into a CloneSet without downtime, at most --max-surge extra pods at a time')
    .usage('cloneset/NEW --from deployment/OLD [--create|--copy] [--replicas N] [--max-surge N|N%] [flags]')
    .argument('[resource...]')
    .option('--from <TYPE/NAME>', 'the Deployment whose pods move (deployment/NAME)')
    .option('--create', 'only create the CloneSet, at 0 replicas (a later run without --create moves the pods)')
    .option('--copy', "only create the CloneSet, with the Deployment's replicas beside it (nothing is scaled down; kruise-tools' --create --copy)")
    .option('--replicas <n>', "pods to end with, all in the CloneSet (default: the Deployment's replicas; a rerun keeps the first run's)")
    .option('--max-surge <n>', "pods above --replicas that may run at once across both: a number or a percentage of --replicas (rounded up); default 1, a rerun keeps the first run's")
    .option('--timeout <duration>', 'give up waiting after this long (exit 3; a rerun continues); 0 = no limit', '0')
    .option('--delete-source', 'delete the Deployment once it is at 0 and its pods are gone (default: keep it)')
    .option('--wait-for-lock [bool]', 'when another migrate of the Deployment runs, wait for it to end instead of exiting 1')
    .option('--dry-run [mode]', 'none, client (print the CloneSet and the steps) or server (also validated by the server)')
    .option('-o, --output <format>', 'yaml, json or name: print the CloneSet instead of the summary')
    .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-kruise-migrate')
    .option('--gitops <mode>', GITOPS_HELP, 'warn')
    .notes(`
Each step raises the CloneSet by at most --max-surge pods (never past --replicas, and the pods of both never
more than --replicas + --max-surge), waits until its new pods are available, then lowers the Deployment by as
many: the available pods of both never drop below --replicas. The CloneSet is made from the Deployment's
selector, labels, pod template, minReadySeconds, revisionHistoryLimit and progressDeadlineSeconds, in the shape
of the served version (v1alpha1 or v1beta1), recreating pods on updates like a Deployment; its annotation
kubectl-kruise/migration records the migration, and the Deployment is marked kubectl-kruise/migration-target.
The Deployment ends at 0 replicas and is kept (--delete-source deletes it).
One migrate of a Deployment runs at a time (a Lease, kubectl-kruise-migrate-deployment-NAME). Ctrl-C, --timeout
or a killed process leave both workloads consistent (at worst the CloneSet has its surge pods extra); the same
command run again continues from where the cluster is, never surging twice.

Exit codes: 0 migrated (or nothing left to do), 1 the Deployment was not found, an API error, another run holds
the lease, 2 invalid input or a migration that cannot be done (nothing written), 3 timed out, 130 interrupted.`)
    .examples(`
      # Move the pods of Deployment web into CloneSet web, two extra pods at a time
      ${p} migrate cloneset/web --from deployment/web --max-surge 2

      # End with 10 pods, a quarter of them extra at a time, giving up after 10 minutes
      ${p} migrate cloneset/web --from deployment/web --max-surge 25% --replicas 10 --timeout 10m

      # Print the CloneSet and the steps, writing nothing
      ${p} migrate cloneset/web --from deployment/web --dry-run

      # Only create the CloneSet now; the same command without --create moves the pods later
      ${p} migrate cloneset/web --from deployment/web --create

      # Delete the Deployment once its pods are gone
      ${p} migrate cloneset/web --from deployment/web --delete-source`)
    .action(lazyAction(ctx, () => import('./run')));
}
