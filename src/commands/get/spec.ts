// `get pps [NAME]`, `get rollouts [NAME]`, `get all`: names, flags and help only; the implementation loads lazily.
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerGet(program: KruiseCommand, ctx: CommandContext): void {
  const p = ctx.programName;
  program
    .command('get')
    .description('show PersistentPodStates (a list, or one PPS as a table of its recorded pod states) or Kruise Rollouts (the CRD\'s columns: status, canary step and state, message); `get all`: one table per Kruise kind the cluster serves and holds objects of (CloneSet, Advanced StatefulSet/DaemonSet, SidecarSet, UnitedDeployment, BroadcastJob, AdvancedCronJob, ImagePullJob, CRR, PPS, WorkloadSpread, PodUnavailableBudget, Rollout), with the columns kubectl get prints; other kinds: use kubectl get')
    .usage('pps|rollouts [NAME] [flags] | all [flags]')
    .argument('<type>')
    .argument('[name]')
    .option('-A, --all-namespaces', 'list the objects of every namespace')
    .option('-l, --selector <selector>', 'only the objects with these labels (e.g. app=db)')
    .option('-o, --output <format>', 'wide, yaml, json, name or jsonpath=TEMPLATE (get all: wide or name)')
    .examples(`
      # List the PersistentPodStates of the namespace, or of every namespace
      ${p} get pps
      ${p} get pps -A

      # The recorded pod states of PersistentPodState db, as a table or as YAML
      ${p} get pps db
      ${p} get pps db -o yaml

      # Just its pod states
      ${p} get pps db -o jsonpath='{.status.podStates}'

      # List the Kruise Rollouts of every namespace
      ${p} get rollouts -A

      # One Rollout as YAML
      ${p} get rollout web -o yaml

      # One table per Kruise kind the cluster serves and holds objects of
      ${p} get all
      ${p} get all -A -o wide

      # The names of every Kruise object of namespace prod
      ${p} get all -n prod -o name`)
    .action(lazyAction(ctx, () => import('./run')));
}
