// `create pps|job|broadcastjob`: names, flags and help only; the implementations load lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';
import { GITOPS_HELP } from '../gitops-help';

export function registerCreate(program: KruiseCommand, ctx: CommandContext, shallow = false): void {
  const p = ctx.programName;
  const create = program
    .command('create')
    .description('create Kruise objects (pps: PersistentPodState; job, broadcastjob: a run of an AdvancedCronJob)')
    .helpCommand(false);
  if (shallow) return;
  create
    .command('pps')
    .aliases(['persistentpodstate', 'persistentpodstates'])
    .description('create a PersistentPodState that keeps the pods of a StatefulSet on the node topology they were first placed on')
    .usage('NAME --for sts/NAME|asts/NAME [--required-topology k1,k2] [--preferred-topology k[:weight],...] [flags]')
    .argument('[name]')
    .option('--for <TYPE/NAME>', 'the StatefulSet (sts/NAME, native) or Advanced StatefulSet (asts/NAME)')
    .option('--required-topology <keys>', 'node label keys a recreated pod must match (comma-separated)')
    .option('--preferred-topology <key:weight,...>', 'node label keys a recreated pod prefers, each with an optional :weight 1-100 (default 100)')
    .option('--persistent-annotations <keys>', 'pod annotations to record and restore (comma-separated)')
    .option('--retention <policy>', 'WhenScaled (default: drop states of scaled-in pods) or WhenDeleted')
    .option('--auto', 'set the auto-generate annotations on the StatefulSet instead; Kruise creates a PPS named after it')
    .option('--preview', 'print the pod states that would be recorded now (nothing is created)')
    .option('--dry-run [mode]', 'none, client or server')
    .option('-o, --output <format>', 'yaml, json, name or jsonpath=TEMPLATE')
    .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-create')
    .option('--gitops <mode>', GITOPS_HELP, 'warn')
    .examples(`
      # Keep the pods of StatefulSet db in their zone, preferably on their node
      ${p} create pps db --for sts/db --required-topology topology.kubernetes.io/zone --preferred-topology kubernetes.io/hostname:80

      # Let Kruise create and name the PersistentPodState of an Advanced StatefulSet
      ${p} create pps --for asts/db --auto --preferred-topology kubernetes.io/hostname

      # Print the pod states that would be recorded, creating nothing
      ${p} create pps db --for sts/db --required-topology topology.kubernetes.io/zone --preview`)
    .action(lazyAction(ctx, () => import('./pps')));

  const runFlags = (c: KruiseCommand, kind: string) =>
    c
      .option('--from <TYPE/NAME>', `the cron job whose template to run now: advancedcronjob/NAME (acj)${kind === 'job' ? ' or cronjob/NAME (cj)' : ''}`)
      .option('--image <image>', `a ${kind} of one container running this image (restartPolicy Never), instead of --from`)
      .option('--dry-run [mode]', 'none, client or server')
      .option('-o, --output <format>', 'yaml, json, name or jsonpath=TEMPLATE')
      .option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', 'kubectl-create')
      .option('--gitops <mode>', GITOPS_HELP, 'warn');
  runFlags(
    create
      .command('job')
      .description('create a Job now from the jobTemplate of an AdvancedCronJob (or a CronJob), owned by it as kubectl does, or from --image')
      .usage('NAME --from advancedcronjob/NAME | --image IMAGE [-- COMMAND [args...]] [flags]')
      .argument('[name]')
      .argument('[command...]'),
    'job',
  )
    .notes(`
      The Job gets the template's labels and annotations, cronjob.kubernetes.io/instantiate: manual, and a controller
      reference to the cron job (so the cron job's controller counts it and garbage collection removes it with it).
      An AdvancedCronJob holding a broadcastJobTemplate: exit 2, nothing created (use create broadcastjob).`)
    .examples(`
      # Run an AdvancedCronJob's job now
      ${p} create job backup-now --from advancedcronjob/nightly-backup

      # Print the Job a CronJob would run, creating nothing
      ${p} create job report-now --from cronjob/report --dry-run=client -o yaml

      # A Job of one container running a command
      ${p} create job hello --image=busybox:1.36 -- echo hello`)
    .action(lazyAction(ctx, () => import('./jobs').then((m) => ({ run: m.runJob }))));
  runFlags(
    create
      .command('broadcastjob')
      .aliases(['bcj'])
      .description('create a BroadcastJob (one pod per eligible node) now from the broadcastJobTemplate of an AdvancedCronJob, owned by it, or from --image')
      .usage('NAME --from advancedcronjob/NAME | --image IMAGE [-- COMMAND [args...]] [flags]')
      .argument('[name]')
      .argument('[command...]'),
    'broadcastjob',
  )
    .notes(`
      The BroadcastJob is written at the version the cluster serves; Kruise's webhook rules are checked first
      (restartPolicy Never or OnFailure, no dots in the name). Wait for it: ${p} rollout status broadcastjob/NAME`)
    .examples(`
      # Run an AdvancedCronJob's BroadcastJob now
      ${p} create broadcastjob warm-now --from advancedcronjob/warm-cache

      # The same, printing only its name
      ${p} create broadcastjob warm-now --from acj/warm-cache -o name

      # A BroadcastJob of one container running a command on every node
      ${p} create broadcastjob hello --image=busybox:1.36 -- echo hello`)
    .action(lazyAction(ctx, () => import('./jobs').then((m) => ({ run: m.runBroadcastJob }))));
}
