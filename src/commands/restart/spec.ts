// `restart`: names, flags and help only; the implementation loads lazily.
import { Option } from 'commander';
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { GITOPS_HELP } from '../gitops-help';
import { collect } from '../collect';

export function registerRestart(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('restart')
    .description('restart containers in place through ContainerRecreateRequests, at most --max-unavailable pods at a time')
    .usage('TYPE/NAME | pod/NAME | sidecarset/NAME -c SIDECAR [-c CONTAINER,...] [flags]')
    .argument('[resource...]')
    .option('-c, --containers <names>', 'containers to restart, comma-separated (default: every container of each pod; sidecarset/NAME: required, its sidecars only)', collect)
    .option('--max-unavailable <n>', 'pods restarting at once: a number or a percentage of the pods (rounded down, at least 1)', '1')
    .option('--ordered [bool]', 'recreate the containers of a pod one after another (strategy.orderedRecreate)')
    .option('--failure-policy <policy>', 'Fail (stop at the first failed container, default) or Ignore')
    .option('--unready-grace-period <duration>', 'mark the pod unready this long before recreating (strategy.unreadyGracePeriodSeconds)')
    .option('--min-started <duration>', 'how long a new container must run to count as started (strategy.minStartedSeconds)')
    .option('--active-deadline <duration>', 'give up recreating after this long, at least 3s (activeDeadlineSeconds)')
    .addOption(new Option('--ttl <duration>', 'delete each ContainerRecreateRequest this long after it finished (ttlSecondsAfterFinished); 0s at once, -1 keeps them').default(undefined, '5m'))
    .option('--force [bool]', 'recreate even when the container is not running (strategy.forceRecreate, Kruise >= 1.8)')
    .addOption(new Option('--wait [bool]', 'wait for every batch (--wait=false: create the first batch and return)').default(undefined, 'true'))
    .option('--timeout <duration>', 'give up waiting after this long (exit 3); 0 = no limit', '0')
    .option('--wait-for-lock [bool]', 'when another restart of the workload runs, wait for it to end instead of exiting 1')
    .option('--via <engine>', 'auto (Kruise when served), kruise (ContainerRecreateRequests) or client (recreate pods)', 'auto')
    .option('--dry-run [mode]', 'none, client (print the requests) or server')
    .option('-o, --output <format>', 'yaml, json, name or jsonpath=TEMPLATE: print the ContainerRecreateRequests instead of the summary')
    .option('--field-manager <name>', 'field manager recorded for the ContainerRecreateRequests and the run\'s Lease (metadata.managedFields)', 'kubectl-kruise-restart')
    .option('--gitops <mode>', GITOPS_HELP, 'warn')
    .notes(`
      Exit codes: 0 every container restarted, 1 a restart failed or another run holds the lease, 2 invalid input (nothing created), 3 timed out.
      One restart of a workload runs at a time (a Lease, kubectl-kruise-restart-TYPE-NAME): --wait-for-lock waits for it.
      An interrupted restart (Ctrl-C, --timeout, a killed process) resumes where it stopped when run again:
      the pods it already restarted are not restarted twice.
      Finished ContainerRecreateRequests are deleted by Kruise 5 minutes later (--ttl), so repeated restarts
      do not pile them up; OpenKruise itself would keep them until deleted.`)
    .examples(`
      # Restart the containers of a CloneSet's pods in place, two pods at a time
      ${p} restart cloneset/web --max-unavailable=2

      # Restart container nginx of one pod
      ${p} restart pod/web-x7k2p -c nginx

      # Print the ContainerRecreateRequests for container app, a quarter of the pods at a time, creating nothing
      ${p} restart asts/db -c app --max-unavailable=25% --dry-run=client -o yaml

      # Without Kruise: recreate a Deployment's pods one batch at a time
      ${p} restart deployment/api --via=client

      # Restart a SidecarSet's sidecar logger in the pods it is injected into
      ${p} restart sidecarset/log -c logger --max-unavailable=2`)
    .action(lazyAction(ctx, () => import('./run')));
}
