// `rollout status|undo|history|pause|resume|restart|approve|jump`: names, flags and help only; the
// implementations load lazily when a subcommand runs.
import { Option } from 'commander';
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { GITOPS_HELP } from '../gitops-help';
import { subcommandFilter } from '../subcommands';
import { PREVIEW_HELP } from '../preview/help';

const KINDS = 'cloneset, asts, ads, deployment, statefulset, daemonset';

export function registerRollout(program: KruiseCommand, ctx: CommandContext, shallow = false, sub?: string): void {
  const p = ctx.programName;
  const rollout = program
    .command('rollout')
    .description('manage the rollout of Kruise and native workloads and Kruise Rollout releases (status, undo, history, pause, resume, restart, approve, jump, verify)')
    .helpCommand(false)
    .examples(`
      # Wait until a CloneSet's rollout is done
      ${p} rollout status cloneset/web

      # Let a Kruise Rollout's step waiting for approval continue
      ${p} rollout approve rollout/web-rollout

      # Roll a CloneSet back to its previous revision
      ${p} rollout undo cloneset/web

      # Restart the pods of the CloneSets labelled app=web
      ${p} rollout restart cloneset -l app=web`);
  if (shallow) return;
  const want = subcommandFilter(sub, ['status', 'undo', 'history', 'pause', 'resume', 'restart', 'approve', 'jump', 'verify']);

  if (want('status')) {
    rollout
      .command('status')
      .description(`wait until a rollout is done (${KINDS}, or a Kruise Rollout: rollout/NAME), or until a BroadcastJob completes (broadcastjob/NAME); exit 0 when complete or partition-complete`)
      .usage('TYPE/NAME... | TYPE NAME... | TYPE -l SELECTOR [flags]')
      .argument('[resources...]')
      .option('-f, --filename <file...>', 'a release: every object of a manifest with a rollout (YAML/JSON, multi-document, a directory, - for stdin); one summary table')
      .option('-R, --recursive', 'with -f DIRECTORY: its subdirectories too')
      .option('--helm-release <name>', 'a release: the objects of the Helm release\'s latest deployed or pending revision (read from its release Secret, in -n), as with -f')
      .option('-l, --selector <selector>', 'await every matching object of TYPE')
      .addOption(new Option('-w, --watch [bool]', 'watch until done (--watch=false: check once, exit 4 when not finished)').default(undefined, 'true'))
      .option('--timeout <duration>', 'give up after this long (exit 3); not given: no limit; 0: check once and do not wait, as kubectl wait --timeout=0 (exit 4 when not done, like --watch=false)')
      .option('--failure-grace <duration>', 'how long an updated pod may stay in ErrImagePull, CrashLoopBackOff... before the rollout fails (0 = at once)', '60s')
      .option('-o, --output <format>', 'json: one JSON object per change of state (JSON Lines); name: resource.group/name of each object once it passes (cloneset.apps.kruise.io/web)')
      .option('--revision <n>', 'fail (exit 1) unless this revision is the one being rolled out')
      .option('--until <point>', 'Kruise Rollout: paused, step=N or complete (default): exit 0 once the release gets there; repeated, all must hold (--until=paused --until=step=2: paused at step 2 or later)', (v: string, prev: string[] | undefined) => [...(prev ?? []), v])
      .option('--ci <flavour>', 'auto (GITHUB_ACTIONS, GITLAB_CI), github, gitlab or none: fold each workload\'s progress, annotate failures, write the job summary', 'auto')
      .option('--junit <file>', 'write a JUnit XML report: one testcase per workload, failures with their evidence')
      .option('--evidence-dir <dir>', 'write the evidence of what failed or timed out (events, logs, objects as YAML), one folder per workload')
      .notes(`
        States: Progressing, Paused, PartitionComplete, Complete, Failed, TimedOut.
        Kruise Rollout (rollout/NAME, or a workload a Rollout releases: it is followed, and said on stderr):
          states Progressing, StepPaused (waiting for approval), Paused, Complete, Failed (cancelled or pods failing), Blocked, TimedOut;
          JSON Lines add step, steps, stepState, canaryRevision, stableRevision, canaryReadyReplicas, canaryReplicas, trafficWeight.
        BroadcastJob (broadcastjob/NAME, bcj): Complete once Kruise marks it completed, Failed when it failed (the failed pod named);
          JSON Lines carry desired, active, succeeded, failed and phase instead of the rollout counts.
        -o name: resource.group/name of each object (cloneset.apps.kruise.io/web), once, when it passes the gate.
        Exit codes: 0 done (or the --until point), 1 failed, cancelled or deleted, 2 invalid input, 3 timed out, 4 not finished (--watch=false; a step waiting for approval included).`)
      .examples(`
        # Wait until a CloneSet's rollout is done
        ${p} rollout status cloneset/web

        # The same, as JSON Lines (one object per change of state), giving up after 5 minutes
        ${p} rollout status cloneset/web --timeout=5m -o json

        # Check the Advanced StatefulSets labelled app=db once, without waiting (exit 4 when not done)
        ${p} rollout status asts -l app=db --watch=false

        # Wait until a Kruise Rollout pauses at a step (for approval or a pause duration)
        ${p} rollout status rollout/web-rollout --until=paused --timeout=10m

        # Wait until a SidecarSet's matched pods outside the partition are upgraded and ready
        ${p} rollout status sidecarset/log

        # Wait until a BroadcastJob has finished on every node
        ${p} rollout status broadcastjob/warm-cache --timeout=10m`)
      .action(lazyAction(ctx, () => import('./status')));
  }

  if (want('undo')) {
    rollout
      .command('undo')
      .description('roll back to a previous revision (the whole pod template is restored)')
      .usage('TYPE/NAME... | TYPE -l SELECTOR [--to-revision=N] [flags]')
      .argument('[resources...]')
      .option('-f, --filename <file...>', 'the objects of a manifest (YAML/JSON, multi-document, - for stdin)')
      .option('-l, --selector <selector>', 'roll back every matching object of TYPE')
      .option('--to-revision <n>', 'the revision to roll back to (default: the previous one)')
      .option('--fast', 'Kruise Rollout release in progress: go back to the previous step without traffic and with the most pods (status nextStepIndex; the template is kept)')
      .option('--preview', 'show what Kruise will do to each pod (in place, restart, resize, recreate) and in which batches; write nothing')
      .option('--feature-gates <gates>', 'with --preview: kruise-manager gates you know, e.g. InPlaceWorkloadVerticalScaling=true (unknown when not given)')
      .option('--dry-run [mode]', 'none, client or server')
      .option('-o, --output <format>', 'json, yaml, name or jsonpath=TEMPLATE: print the resulting object')
      .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-rollout')
      .option('--gitops <mode>', GITOPS_HELP, 'warn')
      .notes(`Under a Kruise Rollout, restoring the stable template is Kruise Rollout's rollback: the Rollout cancels its release.\n${PREVIEW_HELP}`)
      .examples(`
        # Show what rolling back would do to each pod (in place, restart, resize or recreate) and in which batches
        ${p} rollout undo cloneset/web --preview

        # Roll back to the previous revision
        ${p} rollout undo cloneset/web

        # Check a rollback to revision 2 with the server, and print the result
        ${p} rollout undo cloneset/web --to-revision=2 --dry-run=server -o yaml

        # Go back one step of a Kruise Rollout release, without traffic and with the most pods
        ${p} rollout undo rollout/web-rollout --fast`)
      .action(lazyAction(ctx, () => import('./undo')));
  }

  if (want('history')) {
    rollout
      .command('history')
      .description('list revisions (REVISION, CHANGE-CAUSE, IMAGES, PODS), show one, or diff two')
      .usage('TYPE/NAME... | TYPE -l SELECTOR [--revision=N | --diff=A,B] [flags]')
      .argument('[resources...]')
      .option('-f, --filename <file...>', 'the objects of a manifest (YAML/JSON, multi-document, - for stdin)')
      .option('-l, --selector <selector>', 'the history of every matching object of TYPE')
      .option('--revision <n>', 'print the pod template of this revision')
      .option('--diff <a,b>', 'unified diff of the pod templates of two revisions')
      .option('-o, --output <format>', 'json, yaml, kyaml, name or jsonpath=TEMPLATE (on the history view, or the template with --revision); name: the revision objects')
      .notes(`
        The history view (-o json|yaml|jsonpath): {kind, apiVersion, namespace, name, revisions: [{revision, name, changeCause, images: [...], pods}], release?}
          (name: the revision's ControllerRevision or ReplicaSet; pods: how many pods run it now).`)
      .examples(`
        # List the revisions of a CloneSet, with the images and pods of each
        ${p} rollout history cloneset/web

        # Diff the pod templates of revisions 1 and 2
        ${p} rollout history cloneset/web --diff=1,2

        # Just the revision numbers
        ${p} rollout history cloneset/web -o jsonpath='{.revisions[*].revision}'

        # The revision objects by name (controllerrevision.apps/web-6c9f8d7b5)
        ${p} rollout history cloneset/web -o name

        # The revisions of a SidecarSet
        ${p} rollout history sidecarset/log`)
      .action(lazyAction(ctx, () => import('./history')));
  }

  if (want('pause')) {
    rollout
      .command('pause')
      .description('pause the rollout (CloneSet, Advanced StatefulSet, Advanced DaemonSet, Deployment; a Kruise Rollout: spec.strategy.paused)')
      .usage('TYPE/NAME... [flags]')
      .argument('[resources...]')
      .option('-f, --filename <file...>', 'the objects of a manifest (YAML/JSON, multi-document, - for stdin)')
      .option('-l, --selector <selector>', 'pause every matching object of TYPE')
      .option('-o, --output <format>', 'json, yaml, name or jsonpath=TEMPLATE: print the patched object')
      .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-rollout')
      .option('--gitops <mode>', GITOPS_HELP, 'warn')
      .examples(`
        # Pause a CloneSet's rollout
        ${p} rollout pause cloneset/web

        # Pause every CloneSet labelled app=web
        ${p} rollout pause cloneset -l app=web

        # Pause a Kruise Rollout release
        ${p} rollout pause rollout/web-rollout

        # Pause a SidecarSet's upgrade
        ${p} rollout pause sidecarset/log`)
      .action(lazyAction(ctx, () => import('./pause').then((m) => ({ run: m.runPause }))));
  }

  if (want('resume')) {
    rollout
      .command('resume')
      .description('resume a paused rollout')
      .usage('TYPE/NAME... [flags]')
      .argument('[resources...]')
      .option('-f, --filename <file...>', 'the objects of a manifest (YAML/JSON, multi-document, - for stdin)')
      .option('-l, --selector <selector>', 'resume every matching object of TYPE')
      .option('-o, --output <format>', 'json, yaml, name or jsonpath=TEMPLATE: print the patched object')
      .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-rollout')
      .option('--gitops <mode>', GITOPS_HELP, 'warn')
      .examples(`
        # Resume a paused CloneSet
        ${p} rollout resume cloneset/web

        # Resume every CloneSet labelled app=web
        ${p} rollout resume cloneset -l app=web

        # Resume a paused Kruise Rollout release
        ${p} rollout resume rollout/web-rollout

        # Resume a SidecarSet's upgrade
        ${p} rollout resume sidecarset/log`)
      .action(lazyAction(ctx, () => import('./pause').then((m) => ({ run: m.runResume }))));
  }

  if (want('restart')) {
    rollout
      .command('restart')
      .description('restart the pods: template annotation for native and ReCreate workloads, ContainerRecreateRequests for in-place policies')
      .usage('TYPE/NAME... [flags]')
      .argument('[resources...]')
      .option('-f, --filename <file...>', 'the objects of a manifest (YAML/JSON, multi-document, - for stdin)')
      .option('-l, --selector <selector>', 'restart every matching object of TYPE')
      .option('--timeout <duration>', 'in-place restarts: give up waiting after this long (exit 3); 0 = no limit', '0')
      .option('--max-unavailable <n>', 'in-place restarts: pods restarting at once, a number or a percentage (default: the workload\'s maxUnavailable)')
      .option('-o, --output <format>', 'json, yaml, name or jsonpath=TEMPLATE: print the object')
      .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-rollout')
      .option('--gitops <mode>', GITOPS_HELP, 'warn')
      .option('--preview', 'show what the restart will do to each pod (recreate, or restart in place through ContainerRecreateRequests) and in which batches; write nothing')
      .option('--feature-gates <gates>', 'with --preview: kruise-manager gates you know, e.g. InPlaceWorkloadVerticalScaling=true')
      .notes(PREVIEW_HELP)
      .examples(`
        # Show how each pod would restart (recreated, or in place) and in which batches
        ${p} rollout restart cloneset/web --preview

        # Restart the pods of a CloneSet
        ${p} rollout restart cloneset/web`)
      .action(lazyAction(ctx, () => import('./restart')));
  }

  if (want('approve')) {
    rollout
      .command('approve')
      .description('Kruise Rollout: let a step waiting for approval (StepPaused) continue (status subresource)')
      .usage('rollout/NAME | TYPE/NAME [flags]')
      .argument('[resources...]')
      .option('--dry-run [mode]', 'none, client or server')
      .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-kruise-approve')
      .option('--gitops <mode>', GITOPS_HELP, 'warn')
      .notes(`
        TYPE/NAME is a workload a Rollout releases. Nothing waiting for approval: exit 1, nothing written.
        Needs the patch verb on rollouts/status.`)
      .examples(`
        # Let a Kruise Rollout's step waiting for approval continue
        ${p} rollout approve rollout/web-rollout

        # The same, named by the workload the Rollout releases
        ${p} rollout approve cloneset/web`)
      .action(lazyAction(ctx, () => import('./approve')));
  }

  if (want('jump')) {
    rollout
      .command('jump')
      .description('Kruise Rollout: move the release in progress to another step (status nextStepIndex)')
      .usage('rollout/NAME | TYPE/NAME --to-step N [flags]')
      .argument('[resources...]')
      .option('--to-step <n>', 'the step to go to (1..steps)')
      .option('--dry-run [mode]', 'none, client or server')
      .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-kruise-jump')
      .option('--gitops <mode>', GITOPS_HELP, 'warn')
      .notes('A step out of range: exit 2, nothing written.')
      .examples(`
        # Move a Kruise Rollout release to its third step
        ${p} rollout jump rollout/web-rollout --to-step 3`)
      .action(lazyAction(ctx, () => import('./jump')));
  }

  if (want('verify')) {
    rollout
      .command('verify')
      .description('Kruise Rollout: at each step waiting for approval, run checks (Prometheus, HTTP, a Job); approve when they pass, roll back when they fail')
      .usage('rollout/NAME | TYPE/NAME (--prometheus URL --query Q --condition C | --http URL | --job FILE | --checks FILE) [flags]')
      .argument('[resources...]')
      .option('--checks <file>', 'several checks in a YAML file (schema: README "rollout verify")')
      .option('--prometheus <url>', 'a check: an instant PromQL query to this Prometheus server (api/v1/query)')
      .option('--query <promql>', 'with --prometheus: the query; {{canaryHash}} is the canary pods\' pod-template-hash')
      .option('--condition <expr>', '"result OP NUMBER" (OP: < > <= >= == !=): each value of the query (or of --jsonpath) must satisfy it')
      .option('--on-empty <result>', 'with --prometheus: an empty result (or NaN) counts as pass, fail, inconclusive (default) or error')
      .option('--http <url>', 'a check: GET (or --method POST) this URL, http(s):// or an API server path (/api/v1/namespaces/NS/services/NAME:PORT/proxy/...); passes on a 2xx')
      .option('--method <method>', 'with --http: GET (default) or POST')
      .option('--body <text>', 'with --http --method POST: the request body')
      .option('--jsonpath <expr>', 'with --http: the value of the JSON body compared by --condition, e.g. {.errorRate}')
      .option('--job <file>', 'a check: a batch/v1 Job manifest, created per step (owned by the Rollout); passes when it succeeds')
      .option('--step <n>', 'the step the check runs at (default: every step waiting for approval)')
      .option('--count <n>', 'measurements to take (default 1)')
      .option('--interval <duration>', 'between measurements (default 10s)')
      .option('--initial-delay <duration>', 'before the first measurement (default 0)')
      .option('--check-timeout <duration>', 'one measurement (a Job: the whole Job) may take this long (default 30s; a Job 10m)')
      .option('--failure-limit <n>', 'failed measurements tolerated (default 0)')
      .option('--success-limit <n>', 'pass as soon as this many measurements pass in a row (default 0: off)')
      .option('--inconclusive-limit <n>', 'inconclusive measurements tolerated (an empty result with --on-empty=inconclusive; default 0)')
      .option('--consecutive-error-limit <n>', 'measurements in a row that could not be taken (unreachable, 5xx) before the check is in error (default 4)')
      .option('--token-file <file>', 'a bearer token for --prometheus or --http, read at each request')
      .option('--token-env <var>', 'a bearer token for --prometheus or --http from this environment variable')
      .option('--basic-auth-file <file>', 'user:password for --prometheus or --http')
      .option('--ca-file <file>', 'the CA bundle the server\'s certificate must chain to (TLS is always verified)')
      .option('--on-failure <action>', 'when a step fails its checks: undo (restore the stable template: the Rollout cancels its release), undo-fast (back to an earlier step, as rollout undo --fast), pause or none', 'undo')
      .option('--approve-unchecked', 'approve steps waiting for approval that have no checks (default: leave them to people)')
      .option('--until <point>', 'step=N: exit 0 once the release reaches step N (unchecked); complete (default): once it completes')
      .option('--timeout <duration>', 'give up after this long (exit 3; nothing half done); 0 = wait forever', '0')
      .option('-o, --output <format>', 'json: one JSON object per event (JSON Lines): step, measurement, check, verdict, approved, rollback, done')
      .option('--ci <flavour>', 'auto (GITHUB_ACTIONS, GITLAB_CI), github, gitlab or none: fold each step\'s checks, annotate a failed step, write the job summary', 'auto')
      .option('--junit <file>', 'write a JUnit XML report: one testcase per check of a step, failures with their measurements')
      .option('--evidence-dir <dir>', 'write the measurements (and Job logs) of each check that failed or was inconclusive: DIR/NAMESPACE_ROLLOUT/step-N-CHECK.txt')
      .notes(`
        Each step's verdict is recorded on the Rollout (annotation verify.kubectl-kruise.io/step-N, with the canary revision)
        before it is acted on: a second verify, a concurrent one or a rerun after an interruption acts on that verdict, never approves
        a step twice, and never approves one another run decided to roll back. A step with inconclusive checks is left to people.
        Needs get/list/watch on rollouts and the workload, patch on rollouts and rollouts/status (see README for the Role).
        Exit codes: 0 complete (or --until reached), 1 a step failed its checks (after --on-failure) or was inconclusive, 2 invalid input, 3 timed out.`)
      .examples(`
        # Approve each manual step while the canary's error rate stays under 5% (5 measurements, 30 s apart), else roll back
        ${p} rollout verify rollout/web --prometheus http://prometheus:9090 --query 'sum(rate(errors{pod_template_hash="{{canaryHash}}"}[1m]))' --condition 'result < 0.05' --count 5 --interval 30s

        # The checks of a file, for the Rollout releasing a CloneSet, as JSON Lines
        ${p} rollout verify cloneset/web --checks checks.yaml --timeout 30m -o json

        # A smoke-test Job at step 1; pause the release instead of rolling back when it fails
        ${p} rollout verify rollout/web --job smoke-test.yaml --step 1 --on-failure=pause`)
      .action(lazyAction(ctx, () => import('./verify')));
  }
}
