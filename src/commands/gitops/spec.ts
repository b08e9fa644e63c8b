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
    .description('print health checks for CloneSet, Advanced StatefulSet, Advanced DaemonSet and Kruise Rollout: Argo CD Lua as an argocd-cm patch (or Argo CD\'s folder layout with --out-dir), or Flux CEL healthCheckExprs as a Kustomization snippet')
    .usage('--for=argocd|flux [--kinds KIND,...] [--out-dir DIR]')
    .option('--for <tool>', 'the GitOps tool: argocd (Lua health checks and actions) or flux (CEL healthCheckExprs)')
    .option('--kinds <kinds>', 'comma-separated kinds: cloneset, asts, ads, rollout (default: all)')
    .option('--out-dir <dir>', 'with --for=argocd: write DIR/<group>/<Kind>/health.lua, health_test.yaml, testdata/*.yaml and actions/ (Argo CD\'s resource_customizations layout) instead of printing the argocd-cm patch')
    .notes(`
      The scripts give the verdict of \`rollout status\` (and of \`rollout status rollout/NAME\`) as Argo CD health, from the
      object alone: done (exit 0) → Healthy; failed or cancelled (exit 1) → Degraded; not yet (exit 4) → Progressing, or
      Suspended when only a person moves it on (a paused CloneSet or Rollout, a step waiting for approval; a timed step
      pause stays Progressing). CloneSet and Advanced StatefulSet v1alpha1 and v1beta1, Advanced DaemonSet; Rollout v1alpha1 and v1beta1, canary and blue-green.
      Resource actions pause and resume write the field \`rollout pause|resume\` writes (resource.customizations.actions.*).
      --for=flux prints spec.healthCheckExprs for a Flux Kustomization (kustomize-controller v1.5+; it checks health with
      wait: true or healthChecks): CEL current (exit 0), failed (exit 1) and inProgress (exit 4, paused and waiting for
      approval included: Flux has no Suspended). One entry per kind serves both versions (Flux matches group and kind).
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
