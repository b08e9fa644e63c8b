// `gitops export`: flags and help only; the implementation loads lazily (run.ts).
import type { KruiseCommand } from '../../cli/help';
import type { CommandContext } from '../../cli/context';
import { lazyAction } from '../lazy';

export function registerGitOps(program: KruiseCommand, ctx: CommandContext, shallow = false): void {
  const p = ctx.programName;
  const gitops = program.command('gitops').description('health checks for GitOps tools (Argo CD, Flux), generated from the rules of our rollout gate').helpCommand(false);
  if (shallow) return;
  gitops
    .command('export')
    .description('print health checks for the Kruise kinds (CloneSet, Advanced StatefulSet and DaemonSet, SidecarSet, UnitedDeployment, BroadcastJob, AdvancedCronJob, ImagePullJob, ContainerRecreateRequest, Kruise Rollout): Argo CD Lua as an argocd-cm patch (or Argo CD\'s folder layout with --out-dir), or Flux CEL healthCheckExprs as a Kustomization snippet')
    .usage('--for=argocd|flux [--kinds KIND,...] [--out-dir DIR]')
    .option('--for <tool>', 'the GitOps tool: argocd (Lua health checks and actions) or flux (CEL healthCheckExprs)')
    .option('--kinds <kinds>', 'comma-separated kinds: cloneset, asts, ads, rollout, sidecarset, ud, broadcastjob, advancedcronjob, imagepulljob, crr (default: all, for either tool)')
    .option('--out-dir <dir>', 'with --for=argocd: write DIR/<group>/<Kind>/health.lua, health_test.yaml, testdata/*.yaml and actions/ (Argo CD\'s resource_customizations layout) instead of printing the argocd-cm patch')
    .notes(`
      The scripts give the verdict of \`rollout status\` (and of \`rollout status rollout/NAME\`) as Argo CD health, from the
      object alone: done (exit 0) → Healthy; failed or cancelled (exit 1) → Degraded; not yet (exit 4) → Progressing, or
      Suspended when only a person moves it on (a paused CloneSet or Rollout, a step waiting for approval; a timed step
      pause stays Progressing). CloneSet and Advanced StatefulSet v1alpha1 and v1beta1, Advanced DaemonSet; Rollout v1alpha1 and v1beta1, canary and blue-green.
      SidecarSet (from its status counts and partition) and BroadcastJob (completed → Healthy, failed → Degraded, paused →
      Suspended) get the verdict of \`rollout status\` too; UnitedDeployment gets its status-sum part (pods kept old = the
      subsets' manual partitions), as the per-subset check needs pods, which Argo CD gives no health script. Kinds \`rollout status\` does not wait for get a rule of their own:
      AdvancedCronJob is Healthy while it schedules (its Jobs have their own health), Suspended when paused; ImagePullJob is
      Healthy once every node pulled the image, Degraded when a node failed, Progressing before; a ContainerRecreateRequest
      is Healthy when completed, Degraded when a container failed or it was completed unrecreated (pod gone, deadline).
      Resource actions pause and resume write the field \`rollout pause|resume\` writes (resource.customizations.actions.*),
      for CloneSet, Advanced StatefulSet and DaemonSet, SidecarSet and Rollout. A Rollout also gets approve: the status write of
      \`rollout approve\` (a paused step's StepPaused → StepReady), offered only while a step is paused; Argo CD sends an
      action's status change through the status subresource (rollouts/status), so its controller needs patch on it.
      A Rollout also gets undo-fast and jump: the status write (status nextStepIndex) of \`rollout undo --fast\` (back to the
      previous step without traffic and with the most pods) and of \`rollout jump --to-step N\`, offered only when the command
      would write (jump: for some step), failing with the command's words when it would not. jump asks for its step as an
      action parameter ("step"), which needs Argo CD 3.1 or later (before, the action says so). Both follow Kruise Rollout
      v0.6.2 and master alike (same write and refusals; a release before v0.5 has no nextStepIndex and is refused).
      CloneSet, Advanced StatefulSet and DaemonSet get restart: kubectl's restartedAt annotation in the pod template, as
      \`rollout restart\` writes it, offered only when not paused and not under an in-place update policy (there the
      annotation restarts nothing, and the command's ContainerRecreateRequests need the pods, which an action does not see).
      --for=flux prints spec.healthCheckExprs (every kind above) for a Flux Kustomization (kustomize-controller v1.5+; it checks health with
      wait: true or healthChecks): CEL current (Healthy: exit 0), failed (Degraded: exit 1) and inProgress (exit 4, paused and waiting for
      approval included: Flux has no Suspended), the same rules as the Lua. One entry per kind serves both versions (Flux matches group and kind).
      A UnitedDeployment's pods kept old are computed for up to 16 subsets (and, where Kruise's allocation of the spec is
      needed, a distinct name for every subset); beyond that none are counted, so one done at its partitions stays inProgress.
      An object with no status yet makes the expressions error (CEL cannot test a missing top-level field); Flux keeps
      polling until the controller writes one.
      Exit codes: 0 written, 1 a file could not be written, 2 bad flags.`)
    .examples(`
      # Add the health checks to Argo CD
      ${p} gitops export --for=argocd > kruise-health.yaml
      kubectl -n argocd patch configmap argocd-cm --type merge --patch-file kruise-health.yaml

      # Argo CD's resource_customizations layout, with tests, for the CloneSet only
      ${p} gitops export --for=argocd --kinds cloneset --out-dir resource_customizations

      # Flux: health expressions for CloneSets and Rollouts, to merge into a Kustomization's spec
      ${p} gitops export --for=flux --kinds cloneset,rollout > kruise-health-exprs.yaml`)
    .action(lazyAction(ctx, () => import('./run')));
}
