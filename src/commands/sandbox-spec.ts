// `sandbox`: a local in-memory Kubernetes API server with simulated Kruise controllers
// (implementation in sandbox.ts, loaded only when the command runs).
import type { KruiseCommand } from '../cli/help';
import type { CommandContext } from '../cli/context';
import { collect } from './collect';
import { lazyAction } from './lazy';

export function registerSandbox(program: KruiseCommand, ctx: CommandContext): void {
  program
    .command('sandbox')
    .description('run a local in-memory Kubernetes API server with simulated OpenKruise controllers (real kubectl works against it)')
    .option('--port <port>', 'port on 127.0.0.1 (0 = any free port)', '0')
    .option('--nodes <n>', 'number of nodes node-1..N', '3')
    .option('--kruise <release>', 'OpenKruise release to imitate: v1.3, v1.8, v1.9 or master', 'v1.9')
    .option('--kruise-rollout <release>', 'Kruise Rollout release to imitate with built-in definitions: v0.4, v0.6 or master (default v0.6; a --crds folder of Kruise Rollout CRDs decides instead)')
    .option('--crds <dir>', 'install the CRD manifests of this folder instead of the built-in minimal definitions of their group (enables schema validation); repeatable', collect)
    .option('--tls', 'serve HTTPS with a generated CA and bearer tokens; adds a read-only "viewer" context')
    .option('--tls-san <name>', 'with --tls: another DNS name or IP address the server certificate is valid for (besides 127.0.0.1 and localhost); repeatable', collect)
    .option('--require-client-cert', 'with --tls: the TLS handshake requires a client certificate signed by the sandbox CA (as a server or load balancer set to require one does); each kubeconfig user gets one, beside its token')
    .option('--token-user <name>', 'with --tls: another user, with a bearer token and a kubeconfig context of its name, whose requests the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings created in the sandbox authorize, as kube\'s RBAC authorizer does; repeatable', collect)
    .option('--kubeconfig-out <file>', 'where to write the kubeconfig (written once the server is ready)', 'kruise-sandbox.kubeconfig')
    .option('--audit-log <file>', 'append one JSON line per request to this file')
    .option('--faults <file>', 'YAML file of injected faults: latencyMs, errorRate, dropWatchAfterEvents, expireResourceVersionsAfter, conflictEveryNthUpdate, watchLagMs, seed (docs/sandbox.md)')
    .option('--ready-delay <duration>', 'how long a pod takes to become Ready after creation or an in-place change', '500ms')
    .option('--crash-backoff <backoff>', 'how long a crashing container waits before its next restart (CrashLoopBackOff): kubelet (restarted at once, then 10s doubling to 5m, as a kubelet), fast (the ready delay doubling to 8 times it, for tests) or a first wait such as 1s (doubling to 30 times it)', 'kubelet')
    .option('--feature-gates <gates>', 'kruise-manager feature gates, with Kruise\'s defaults (off unless said): StatefulSetStartOrdinal=true (Advanced StatefulSet honours spec.ordinals.start), KruisePodReadinessGate=true (every pod gets the KruisePodReady gate, not only Kruise workloads\' pods), TemplateNoDefaults=true (workload templates are stored as written, without Kruise\'s template defaults), PodUnavailableBudgetUpdateGate=true (PodUnavailableBudgets also guard in-place updates; PodUnavailableBudgetDeleteGate, on, guards delete and eviction), InPlacePodVerticalScaling=true, InPlaceWorkloadVerticalScaling=true (v1.8+: a cpu/memory change is resized in place instead of recreating the pod)')
    .option('--tour', 'start a private sandbox and walk through it, printing every command and its output, then exit: a CloneSet under partition 90% (set image, status, explain partition, partition 0, undo, history), the same CloneSet released by a Kruise Rollout canary (status --until=paused, describe rollout, approve), a Deployment migrated to a CloneSet, and a BroadcastJob waited for')
    .notes(`
      The kubeconfig is written atomically once the server accepts requests (scripts can wait for the file)
      and removed again when the sandbox stops. Stop with Ctrl-C or SIGTERM (exit 0).`)
    .examples(`
      # Start a sandbox, and point kubectl at it from another shell
      ${ctx.programName} sandbox --kubeconfig-out /tmp/sandbox.kubeconfig
      export KUBECONFIG=/tmp/sandbox.kubeconfig; kubectl get nodes

      # Imitate Kruise master with its CRDs (schema validation), over HTTPS
      ${ctx.programName} sandbox --kruise master --crds ../shared/kruise-crds/master --tls

      # Kruise and Kruise Rollout from their CRD folders
      ${ctx.programName} sandbox --crds ../shared/kruise-crds/v1.9.0 --crds ../shared/kruise-rollout-crds/v0.6.2`)
    .action(lazyAction(ctx, () => import('./sandbox')));
}
