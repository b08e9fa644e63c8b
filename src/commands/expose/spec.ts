// `expose`: names, flags and help only; the implementation loads lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { GITOPS_HELP } from '../gitops-help';
import { collect } from '../collect';

export function registerExpose(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('expose')
    .description("create a Service for a CloneSet, Advanced StatefulSet, UnitedDeployment, deployment, replica set, replication controller, pod or service, as kubectl expose does")
    .usage('(-f FILE | TYPE NAME | TYPE/NAME) [--port=port] [--target-port=number-or-name] [--protocol=TCP|UDP|SCTP] [--name=name] [--type=ClusterIP|NodePort|LoadBalancer] [flags]')
    .argument('[resource...]')
    .option('-f, --filename <file>', 'the objects to expose, from a YAML/JSON file, folder or - (repeatable; the file is used as it is, nothing is read from the cluster)', collect)
    .option('--port <port>', "the port(s) the Service serves on (80, or 80,443); default: every containerPort of the object's pod template")
    .option('--target-port <port>', "the containers' port the Service sends traffic to: a number or a port name (default: the same as --port)")
    .option('--protocol <protocol>', "TCP, UDP or SCTP (default: each port's protocol in the pod template, else TCP)")
    .option('--name <name>', "the Service's name (default: the object's, cut to 63 characters)")
    .option('--type <type>', 'ClusterIP (default), NodePort or LoadBalancer')
    .option('--external-ip <ip>', 'an external IP (not managed by Kubernetes) the Service also accepts traffic on')
    .option('--load-balancer-ip <ip>', 'with --type=LoadBalancer: the IP to ask the cloud provider for')
    .option('--selector <selector>', "the Service's pod selector, key=value[,key=value] (default: the object's selector; only matchLabels can be used)")
    .option('-l, --labels <labels>', "labels of the Service, key=value[,key=value] (default: the object's labels)")
    .option('--session-affinity <affinity>', 'None or ClientIP')
    .option('--cluster-ip <ip>', 'the cluster IP to ask for; None makes a headless Service (default: allocated by the cluster)')
    .option('--overrides <json>', 'an inline JSON patch applied to the generated Service before it is sent')
    .option('--override-type <type>', 'how --overrides applies: merge (JSON merge patch), json (JSON patch) or strategic', 'merge')
    .option('--save-config', 'record the Service in its kubectl.kubernetes.io/last-applied-configuration annotation (for a later kubectl apply)')
    .option('--dry-run [strategy]', 'none, client (build and print, send nothing) or server (dryRun=All); bare flag = client; use --dry-run=VALUE')
    .option('-o, --output <format>', 'print the Service: json, yaml, name or jsonpath=TEMPLATE')
    .option('--field-manager <name>', 'field manager recorded for the Service', 'kubectl-expose')
    .option('--gitops <mode>', GITOPS_HELP, 'warn')
    .notes(`
What the Service gets (kubectl's rules):
  selector  --selector, else the object's: a pod's labels, a service's selector, a replication controller's
            spec.selector, the spec.selector.matchLabels of a deployment, replica set, CloneSet (v1alpha1 or
            v1beta1), Advanced StatefulSet or UnitedDeployment (a selector with matchExpressions cannot be used).
  ports     --port, else every containerPort of the pod template; several ports are named port-1, port-2...,
            a port served over several protocols gives one per protocol (port-1-tcp, port-1-udp).
  labels    --labels, else the object's labels.       name  --name, else the object's.
Not exposed, as with kubectl: DaemonSets (native or Advanced) and native StatefulSets.
Everything the API server would refuse (names, ports, protocols, types, IPs, selectors) is checked before
anything is sent. One read of the object and one create; with -f the file is used as it is (no read), and
the Service goes to the object's namespace; --dry-run=client sends nothing but that read.

Output: "service/NAME exposed", with " (dry run)" / " (server dry run)"; -o prints the Service.

Exit codes: 0 created, 1 the object was not found, the Service already exists or another API error,
  2 invalid input or an object that cannot be exposed (nothing created).`)
    .examples(`
  # A Service on port 80 for the pods of CloneSet web, which listen on 8080
  ${p} expose cloneset/web --port=80 --target-port=8080

  # Every containerPort of an Advanced StatefulSet, headless (for stable pod DNS names)
  ${p} expose asts db --cluster-ip=None --name=db-headless

  # A NodePort Service for a UnitedDeployment, named, UDP
  ${p} expose ud/streamer --port=4100 --protocol=UDP --type=NodePort --name=video-stream

  # Native kinds work as with kubectl; see the Service first
  ${p} expose deployment nginx --port=80 --target-port=8000 --dry-run=client -o yaml`)
    .action(lazyAction(ctx, () => import('./run')));
}
