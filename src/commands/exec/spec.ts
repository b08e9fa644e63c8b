// `exec`: names, flags and help only; the implementation loads lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerExec(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('exec')
    .description('run a command in a container, as kubectl exec; with -S in the working container of a SidecarSet sidecar (a hot-upgrade pair: the one serving, never its idle twin)')
    .usage('[-S] (POD | TYPE/NAME) [-c CONTAINER] [-i] [-t] [-q] -- COMMAND [ARGS...]')
    .argument('[args...]')
    .option('-S, --sidecar', '-c names a sidecar of a SidecarSet injected into the pod (default: its only one); a hot-upgrade sidecar runs in the container its kruise.io/sidecarset-working-hotupgrade-container annotation names')
    .option('-c, --container <name>', 'container name (default: the kubectl.kubernetes.io/default-container annotation, else the first container); with -S, the SidecarSet sidecar')
    .option('-i, --stdin', 'pass stdin to the container')
    .option('-t, --tty', 'stdin is a TTY (with -i, when stdin is a terminal: raw mode, terminal size sent)')
    .option('-q, --quiet', 'only print output from the remote session')
    .notes(`
      TYPE/NAME (cloneset/web, deployment/api, ...) picks the workload's most active pod, as kubectl does.
      Exit codes: the remote command's exit code, as kubectl reports it ("command terminated with exit code N");
      1 the pod or the server refused (not found, not running, a broken hot-upgrade annotation), 2 invalid input
      (also: -c that is not a container of the pod, or with -S not a SidecarSet sidecar of it; nothing was run).`)
    .examples(`
      # Run 'date' in the working container of the hot-upgraded sidecar mesh (mesh-1 or mesh-2, whichever serves)
      ${p} exec -S web-x7k2p -c mesh -- date

      # An interactive shell in that sidecar (raw terminal mode)
      ${p} exec -S web-x7k2p -c mesh -it -- sh

      # The sidecar of the most active pod of a CloneSet
      ${p} exec -S cloneset/web -c mesh -- printenv SIDECARSET_VERSION

      # Like kubectl exec: the first container, or the one -c names
      ${p} exec web-x7k2p -- sh -c 'echo $HOSTNAME'
      ${p} exec web-x7k2p -c nginx -i -- cat < file.txt`)
    .action(lazyAction(ctx, () => import('./run')));
}
