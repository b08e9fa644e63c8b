// `predownload`: names, flags and help only; the implementation loads lazily.
import { Option } from 'commander';
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { GITOPS_HELP } from '../gitops-help';
import { collect } from '../collect';

export function registerPredownload(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('predownload')
    .description("pre-pull images on the nodes that will need them: a workload's new template images on the nodes of its old pods, --image on the nodes of a workload's pods, or --image on chosen nodes")
    .usage('TYPE/NAME [--image IMAGE...] | --image IMAGE... [--nodes n1,n2 | --node-selector k=v] [flags]')
    .argument('[resource...]')
    .option('--image <image>', 'an image to pull (repeatable, or comma-separated)', collect)
    .option('--nodes <names>', 'pull on these nodes (comma-separated)')
    .option('--node-selector <k=v,...>', 'pull on the nodes with these labels')
    .option('--parallelism <n>', 'nodes pulling at once', '1')
    .option('--timeout <duration>', 'pull timeout per node (pullPolicy.timeoutSeconds) and how long to wait overall (exit 3)')
    .option('--backoff-limit <n>', 'pull retries per node before it counts as failed')
    .option('--pull-secret <name>', 'image pull secret in the namespace (repeatable)', collect)
    .option('--ttl <duration>', 'delete the job this long after it finished')
    .addOption(new Option('--wait [bool]', 'wait for the pulls and report (--wait=false: create the job and return)').default(undefined, 'true'))
    .option('--via <engine>', 'auto (Kruise when served), kruise (ImagePullJob) or client (pods pinned to nodes)', 'auto')
    .option('--dry-run [mode]', 'none, client (print the job) or server')
    .option('-o, --output <format>', 'yaml, json, name or jsonpath=TEMPLATE: print the jobs')
    .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-kruise-predownload')
    .option('--gitops <mode>', GITOPS_HELP, 'warn')
    .notes('Exit codes: 0 pulled everywhere, 1 a node failed to pull (listed), 2 invalid input, 3 timed out.')
    .examples(`
      # Pull a CloneSet's new images on the nodes of its old pods
      ${p} predownload cloneset/web

      # Print the job that would pull nginx:1.28 on the nodes of the CloneSet's pods
      ${p} predownload cloneset/web --image nginx:1.28 --dry-run=client -o yaml

      # Pull an image on two nodes, both at once
      ${p} predownload --image nginx:1.27 --nodes node-1,node-2 --parallelism=2

      # Print the job that would pull two images on the nodes of zone-a
      ${p} predownload --image nginx:1.27 --image redis:7 --node-selector topology.kubernetes.io/zone=zone-a --dry-run=client -o yaml`)
    .action(lazyAction(ctx, () => import('./run')));
}
