// `set image|env|resources|serviceaccount|selector|subject`: flags and help only; the implementations load lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { collect } from '../collect';
import { subcommandFilter } from '../subcommands';
import { PREVIEW_HELP } from '../preview/help';
import { writeFlags } from '../gitops-help';

function commonFlags(cmd: KruiseCommand, labelSelector = true): KruiseCommand {
  cmd.option('-f, --filename <file>', 'the objects to change, from a YAML/JSON file, folder or - (repeatable)', collect);
  // kubectl's set serviceaccount and set selector have no -l
  if (labelSelector) cmd.option('-l, --selector <selector>', 'change every object of TYPE matching this label selector');
  cmd
    .option('--all', 'change every object of TYPE in the namespace')
    .option('--local', 'edit the -f manifests offline and print them; no cluster is contacted')
    .option('--dry-run [strategy]', 'none, client (compute and print, send nothing) or server (dryRun=All); bare flag = client; use --dry-run=VALUE')
    .option('-o, --output <format>', 'print the resulting objects: json, yaml, name or jsonpath=TEMPLATE');
  return writeFlags(cmd, 'kubectl-set');
}

/** --preview and the gates it reads (set image|env|resources). */
function previewFlags(cmd: KruiseCommand): KruiseCommand {
  return cmd
    .option('--preview', 'show what Kruise will do to each pod (in place, restart, resize, recreate) and in which batches; write nothing')
    .option('--feature-gates <gates>', 'with --preview: kruise-manager gates you know, e.g. InPlaceWorkloadVerticalScaling=true (unknown when not given)');
}

const BEHAVIOUR = `
Behaviour:
  Every object is read once and checked before anything is written: an unknown container, a change an
  InPlaceOnly workload would reject or a request above its limit stops the whole command (exit 1) and
  nothing is changed. Each changed object gets exactly one JSON patch (application/json-patch+json) that
  touches only the requested fields, guarded by "test" ops on the container names; if the containers moved
  meanwhile the patch is rebuilt from a fresh read (up to 3 attempts). An object that already matches
  gets no request and prints "<resource>/<name> ... unchanged".
  Kruise in-place policies: only app container images are updated in place. Other changes print a
  Warning (InPlaceIfPossible: pods are recreated) or are refused before sending (InPlaceOnly, exit 1).

Exit codes: 0 done (or unchanged), 1 refused or failed (nothing changed by this command for that object),
  2 invalid input (nothing was read or sent).`;

const OBJECT_BEHAVIOUR = `
Behaviour:
  Every object is read once and checked before anything is written. Each changed object gets exactly one
  JSON patch (application/json-patch+json) that touches only the requested fields, guarded by a "test" op
  on what it replaces or appends to; if that changed meanwhile the patch is rebuilt from a fresh read (up
  to 3 attempts). An object that already matches gets no request and prints "<resource>/<name> ... unchanged".

Exit codes: 0 done (or unchanged), 1 refused or failed (nothing changed by this command for that object),
  2 invalid input (nothing was read or sent).`;

export function registerSet(program: KruiseCommand, ctx: CommandContext, shallow = false, sub?: string): void {
  const set = program.command('set').description('change images, env, resources, service accounts, selectors or subjects with minimal, in-place-friendly patches')
    .helpCommand(false)
    .examples(`
      # Update the image of container app of a CloneSet, in place
      ${ctx.programName} set image cloneset/web app=nginx:1.27

      # Set an environment variable of every container of an Advanced StatefulSet
      ${ctx.programName} set env asts/db LOG_LEVEL=debug`);
  if (shallow) return;
  const want = subcommandFilter(sub === 'sa' ? 'serviceaccount' : sub, ['image', 'env', 'resources', 'serviceaccount', 'selector', 'subject']);

  if (want('image')) {
    commonFlags(
      set
        .command('image')
        .description('update container images (containers and init containers; * = all)')
        .usage('(TYPE/NAME... | TYPE NAME... | TYPE -l SELECTOR | TYPE --all | -f FILE) CONTAINER=IMAGE... [flags]')
        .argument('[args...]', 'objects, then CONTAINER=IMAGE pairs'),
    )
      .notes(`
Kinds: CloneSet (v1alpha1/v1beta1), Advanced StatefulSet, Advanced DaemonSet, SidecarSet, Deployment,
  StatefulSet, DaemonSet, ReplicaSet, Pod, Job, CronJob.
Images are checked client-side (lower-case repository, valid tag/digest): a malformed one exits 2.
${BEHAVIOUR}
${PREVIEW_HELP}`)
      .examples(`
        # Show what each pod of a CloneSet would go through for a new image
        ${ctx.programName} set image cloneset/web app=nginx:1.27 --preview

        # Update the image of container app
        ${ctx.programName} set image cloneset/web app=nginx:1.27

        # Update every container's image, checked by the server but not saved
        ${ctx.programName} set image cloneset/web '*=registry.example.com/web:2.0' --dry-run=server

        # Edit a manifest offline (no cluster) and print it
        ${ctx.programName} set image --local -f web.yaml app=nginx:1.27 -o yaml`)
      .action(lazyAction(ctx, () => import('./image')));
    previewFlags(set.commands.find((c) => c.name() === 'image') as KruiseCommand);
  }

  if (want('env')) {
    commonFlags(
      set
        .command('env')
        .description('set, change or remove environment variables of containers')
        .usage('(TYPE/NAME... | TYPE -l SELECTOR | -f FILE) KEY=VALUE... KEY-... [-c CONTAINER] [--from=configmap/NAME|secret/NAME] [flags]')
        .argument('[args...]', 'objects, then KEY=VALUE (set) and KEY- (remove) arguments'),
    )
      .option('-c, --containers <name>', 'the container to change (a name or * for all, incl. init containers)', undefined)
      .option('--from <source>', 'reference every key of configmap/NAME or secret/NAME (names upper-cased, invalid characters become _)')
      .option('--prefix <prefix>', 'prefix for the names of the variables added with --from')
      .option('--list', 'print the env of the selected containers as KEY=value lines (kubectl format) and change nothing')
      .notes(`
Env names follow the API server rule (letters, digits, '_', '-', '.'; not starting with a digit): others exit 2.
${BEHAVIOUR}
${PREVIEW_HELP}`)
      .examples(`
        # Set LOG_LEVEL and remove OLD_FLAG in container app
        ${ctx.programName} set env cloneset/web -c app LOG_LEVEL=debug OLD_FLAG-

        # Import every key of a ConfigMap, prefixed with APP_
        ${ctx.programName} set env cloneset/web --from=configmap/settings --prefix=APP_

        # List the env of the containers
        ${ctx.programName} set env cloneset/web --list`)
      .action(lazyAction(ctx, () => import('./env')));
    previewFlags(set.commands.find((c) => c.name() === 'env') as KruiseCommand);
  }

  if (want('resources')) {
    commonFlags(
      set
        .command('resources')
        .description('set resource requests and limits of containers')
        .usage('(TYPE/NAME... | TYPE -l SELECTOR | -f FILE) [-c CONTAINER] [--limits=cpu=..,memory=..] [--requests=..] [flags]')
        .argument('[args...]', 'objects'),
    )
      .option('-c, --containers <name>', 'the container to change (a name or * for all, incl. init containers)', undefined)
      .option('--limits <list>', 'limits, e.g. cpu=500m,memory=512Mi')
      .option('--requests <list>', 'requests, e.g. cpu=100m,memory=128Mi')
      .notes(`
Quantities are checked client-side (e.g. 500m, 2, 512Mi, 1Gi; not negative), and so is request <= limit.
${BEHAVIOUR}
${PREVIEW_HELP}`)
      .examples(`
        # Set limits and a CPU request for container app
        ${ctx.programName} set resources cloneset/web -c app --limits=cpu=1,memory=1Gi --requests=cpu=250m

        # Show whether pods would be resized in place, given the kruise-manager feature gate
        ${ctx.programName} set resources cloneset/web -c app --requests=cpu=500m --preview --feature-gates=InPlaceWorkloadVerticalScaling=true`)
      .action(lazyAction(ctx, () => import('./resources')));
    previewFlags(set.commands.find((c) => c.name() === 'resources') as KruiseCommand);
  }

  if (want('serviceaccount')) {
    commonFlags(
      set
        .command('serviceaccount')
        .alias('sa')
        .description('update the service account of pod template resources')
        .usage('(-f FILE | TYPE NAME... | TYPE/NAME... | TYPE --all) SERVICE_ACCOUNT [flags]')
        .argument('[args...]', 'objects, then the service account name'),
      false,
    )
      .notes(`
Kinds: CloneSet (v1alpha1/v1beta1), Advanced StatefulSet, Advanced DaemonSet, UnitedDeployment (its subset
  template), Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob, and Pod
  with --local (an existing pod's service account cannot change: exit 1, nothing sent).
Sets spec.serviceAccountName of the pod template (and the deprecated spec.serviceAccount when it names
  another account). The name is checked client-side (a DNS-1123 subdomain): a bad one exits 2.
  Kruise in-place policies: a service account change cannot be applied in place, so InPlaceIfPossible warns
  that pods will be recreated and InPlaceOnly is refused before sending (exit 1).
${OBJECT_BEHAVIOUR}`)
      .examples(`
        # Set a CloneSet's service account
        ${ctx.programName} set serviceaccount cloneset/web web-runner

        # Check the change of a Deployment with the server, and print the result
        ${ctx.programName} set sa deployment api api-sa --dry-run=server -o yaml

        # Edit a manifest offline (no cluster) and print it
        ${ctx.programName} set sa -f web.yaml web-runner --local -o yaml`)
      .action(lazyAction(ctx, () => import('./serviceaccount')));
  }

  if (want('selector')) {
    commonFlags(
      set
        .command('selector')
        .description('set the selector on a resource (Services, as in kubectl)')
        .usage('(-f FILE | TYPE NAME | TYPE/NAME) EXPRESSIONS [--resource-version=VERSION] [flags]')
        .argument('[args...]', 'objects, then the selector, e.g. app=web,tier=frontend'),
      false,
    )
      .option('--resource-version <version>', 'only update the object if this is its current resourceVersion (a single object)')
      .notes(`
The new selector replaces the old one (keys not given are removed; an empty "" removes the selector).
  Requirements are key=value (or key==value), separated by commas. As in kubectl, only Services take it:
  other kinds are refused before anything is sent (exit 2), naming the rule that fixes their selector
  (CloneSet and Advanced StatefulSet: Kruise's webhook forbids changing spec.selector; apps/v1 kinds:
  immutable). Expressions (in, notin, !key) cannot go into a Service's selector (exit 2).
  --resource-version: the change is refused (exit 1) unless the object is at that resourceVersion.
${OBJECT_BEHAVIOUR}`)
      .examples(`
        # Replace a Service's selector
        ${ctx.programName} set selector service/web app=web,tier=frontend

        # Only if the Service is still at resourceVersion 1234
        ${ctx.programName} set selector svc web app=web --resource-version=1234

        # Edit a manifest offline (no cluster) and print it
        ${ctx.programName} set selector --local -f svc.yaml app=web -o yaml`)
      .action(lazyAction(ctx, () => import('./selector')));
  }

  if (want('subject')) {
    commonFlags(
      set
        .command('subject')
        .description('update the users, groups or service accounts of a role binding or cluster role binding')
        .usage('(-f FILE | TYPE NAME | TYPE/NAME | TYPE -l SELECTOR | TYPE --all) [--user=NAME] [--group=NAME] [--serviceaccount=NAMESPACE:NAME] [flags]')
        .argument('[args...]', 'objects'),
    )
      .option('--user <name>', 'a user to bind to the role (repeatable)', collect)
      .option('--group <name>', 'a group to bind to the role (repeatable)', collect)
      .option('--serviceaccount <namespace:name>', 'a service account to bind to the role (repeatable; ":name" = the current namespace, RoleBindings only)', collect)
      .notes(`
Adds the subjects a binding does not have yet (users, then groups, then service accounts, each sorted),
  like kubectl; subjects already bound are left alone. Kinds: RoleBinding, ClusterRoleBinding (others: exit 2).
  A service account without a namespace takes the current one (-n, the context's; with --local: -n, else
  the binding's own) and is refused for a ClusterRoleBinding (exit 2).
${OBJECT_BEHAVIOUR}`)
      .examples(`
        # Bind user alice and group devs to a RoleBinding's role
        ${ctx.programName} set subject rolebinding/admin --user=alice --group=devs

        # Bind a service account of namespace monitoring to a ClusterRoleBinding's role
        ${ctx.programName} set subject clusterrolebinding view --serviceaccount=monitoring:prometheus

        # Edit a manifest offline (no cluster) and print it
        ${ctx.programName} set subject --local -f binding.yaml --user=bob -o yaml`)
      .action(lazyAction(ctx, () => import('./subject')));
  }
}
