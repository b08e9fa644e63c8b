// `scaledown`: names, flags and help only; the implementation loads lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { GITOPS_HELP } from '../gitops-help';

export function registerScaledown(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('scaledown')
    .description('remove exactly the named pods of a CloneSet or Advanced StatefulSet and lower its replicas by as many, in one write')
    .usage('(cloneset/NAME --pods POD[,POD...] | asts/NAME (--ordinals N[,A-B...] | --pods POD[,POD...])) [flags]')
    .argument('[resource...]')
    .option('--pods <names>', 'the pods to remove (comma-separated)')
    .option('--ordinals <list>', 'Advanced StatefulSet: the ordinals to remove, e.g. 2,5-7')
    .option('--dry-run [strategy]', 'none, client (decide and print, send nothing) or server (dryRun=All); bare flag = client; use --dry-run=VALUE')
    .option('-o, --output <format>', 'print the resulting workload: json, yaml, name or jsonpath=TEMPLATE')
    .option('--wait [bool]', 'after the write, wait (watching) until the pods are gone and the workload is at its new replicas')
    .option('--timeout <duration>', 'with --wait: give up after this long (exit 3); 0 = no limit', '0')
    .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-kruise-scaledown')
    .option('--gitops <mode>', GITOPS_HELP, 'warn')
    .notes(`
How:
  CloneSet (v1alpha1 or v1beta1): the pods are added to spec.scaleStrategy.podsToDelete and spec.replicas
  is lowered by their number (Kruise's selective scale-in: exactly those pods go, no other is created).
  Advanced StatefulSet: their ordinals are added to spec.reserveOrdinals and spec.replicas is lowered by as
  many, so every other pod keeps its ordinal (ranges "a-b" where the CRD takes them, v1.8+; ints before).
  One JSON patch, guarded by "test" ops on resourceVersion, replicas and the list: if the workload changed
  meanwhile (someone scaled it), it is read again and the decision made again, never applied twice.

Checked before writing (exit 2, nothing written): every pod exists in the namespace and is controlled by
  the workload (owner UID), none is named twice, none is already being deleted or already in podsToDelete /
  reserved by someone else, every ordinal is active, replicas stay >= 0, and Kruise's webhook would accept it.

Reruns: the write also records the removed pods on the workload (annotation kubectl-kruise/scaledown), so
  running the same command again prints "unchanged" and writes nothing, whether the pods are still being
  removed or gone: replicas are never lowered twice. With --wait, a rerun waits for them.

Output: "cloneset.apps.kruise.io/web scaled down from 8 to 6 replicas (removing pods web-a, web-b)", with
  " (dry run)" / " (server dry run)"; -o prints the workload as written.

Exit codes: 0 done (or unchanged), 1 API error or the workload is not found, 2 invalid input or a pod that
  cannot be removed (nothing written), 3 --timeout elapsed while waiting.`)
    .examples(`
      # Remove two named pods of a CloneSet (replicas lowered by 2)
      ${p} scaledown cloneset/web --pods web-4xk2p,web-9f7tq

      # Check the change with the server, and print the CloneSet as it would be written
      ${p} scaledown cloneset/web --pods web-4xk2p --dry-run=server -o yaml

      # Remove ordinals 2, 5, 6 and 7 of an Advanced StatefulSet and wait until they are gone
      ${p} scaledown asts/db --ordinals 2,5-7 --wait --timeout=5m

      # Remove one pod of an Advanced StatefulSet by name
      ${p} scaledown asts/db --pods db-3`)
    .action(lazyAction(ctx, () => import('./run')));
}
