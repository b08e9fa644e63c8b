// `--preview` for `set image|env|resources` and `rollout undo|restart`: the command computes the
// object it would write; this module reads what the preview needs (pods, revisions, nodes: GET and
// LIST only, never a write), builds the view model (kruise/preview) and prints it.
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import type { PreviewSettings } from './settings';
import type { KubeClient } from '../../kube/client';
import type { KubeObject, Pod } from '../../kruise/types';
import { adapterFor } from '../../kruise/workloads/index';
import { compareText } from '../../lib/compare';
import { previewWorkloadChange } from '../../kruise/preview/workload-preview';
import type { BudgetHeadroomHook, GateState, WorkloadPreview } from '../../kruise/preview/types';
import type { BudgetHeadroom } from '../../kruise/budget-types';
import { headroomOf, readBudgets } from '../../engine/budgets';
import { KRUISE_MANAGER, managerGates, type ManagerGates } from '../../kruise/preview/manager-gates';
import { formatPreviewJson, formatPreviewTable } from '../../printers/preview';
import { loadPods, loadRevisions } from '../rollout/revision-source';

/** One read of kruise-manager's Deployment per client; undefined when it cannot be read (not found, forbidden). */
const managerReads = new WeakMap<KubeClient, Promise<ManagerGates | undefined>>();

function readManagerGates(client: KubeClient): Promise<ManagerGates | undefined> {
  let p = managerReads.get(client);
  if (!p) {
    p = (async () => {
      try {
        const rt = await client.resolve('deployments.apps');
        return managerGates(await client.get(rt, KRUISE_MANAGER.name, KRUISE_MANAGER.namespace));
      } catch {
        return undefined; // not installed there, or not readable: the gate stays unknown
      }
    })();
    managerReads.set(client, p);
  }
  return p;
}

/** The gates for a live preview: --feature-gates first, then kruise-manager's Deployment when readable. */
async function liveGates(client: KubeClient, settings: PreviewSettings): Promise<{ gates: { verticalScaling: GateState; envFromMetadata: boolean }; source?: string }> {
  if (settings.verticalScaling !== 'unknown') return { gates: { verticalScaling: settings.verticalScaling, envFromMetadata: settings.envFromMetadata } };
  const read = await readManagerGates(client);
  if (!read) return { gates: { verticalScaling: 'unknown', envFromMetadata: settings.envFromMetadata } };
  return {
    gates: { verticalScaling: read.verticalScaling ? 'on' : 'off', envFromMetadata: settings.envFromMetadataGiven ? settings.envFromMetadata : read.envFromMetadata },
    source: `deployment ${KRUISE_MANAGER.namespace}/${KRUISE_MANAGER.name}`,
  };
}

/** Rejects objects without pods to preview (Pod, Job, SidecarSet ...) before any further request. */
export function checkPreviewable(obj: KubeObject, command: string): void {
  const adapter = adapterFor(obj);
  if (!adapter || adapter.kindName === 'UnitedDeployment') {
    throw usageError(`${command} --preview works on CloneSet, Advanced StatefulSet, Advanced DaemonSet, Deployment, StatefulSet and DaemonSet, not ${obj.kind ?? 'this kind'} "${obj.metadata.name ?? ''}"`);
  }
}

/** Reads pods, revisions and (Advanced DaemonSet) nodes, then builds the preview. Reads only. */
export async function previewLive(client: KubeClient, command: string, before: KubeObject, after: KubeObject, settings: PreviewSettings): Promise<WorkloadPreview> {
  checkPreviewable(before, command);
  const adapter = adapterFor(before)!;
  const ns = before.metadata.namespace ?? client.namespace;
  const withNs = { ...before, metadata: { ...before.metadata, namespace: ns } };
  const [pods, revs, nodes, gates, budgets] = await Promise.all([
    loadPods(client, withNs, adapter),
    loadRevisions(client, withNs, adapter),
    adapter.kindName === 'AdvancedDaemonSet' ? client.list(await client.resolve('nodes'), undefined, {}).then((l) => l.items) : Promise.resolve([] as KubeObject[]),
    adapter.group === 'apps.kruise.io' ? liveGates(client, settings) : Promise.resolve({ gates: { verticalScaling: settings.verticalScaling, envFromMetadata: settings.envFromMetadata }, source: undefined }),
    readBudgets(client, ns, undefined, true),
  ]);
  const active = (pods as Pod[]).filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const owned = active.filter((p) => (p.metadata.ownerReferences ?? []).some((o) => o.controller && (o.uid === before.metadata.uid || revs.revisions.some((r) => r.object.metadata.uid === o.uid))));
  const preview = previewWorkloadChange({
    command,
    before: withNs,
    after: { ...after, metadata: { ...after.metadata, namespace: ns } },
    pods: owned.sort((a, b) => compareText(a.metadata.name ?? '', b.metadata.name ?? '')),
    revisions: revs.revisions.map((r) => ({ name: r.name, hash: r.hash, template: r.template })),
    nodes,
    gates: gates.gates,
    budget: budgetHook(headroomOf(budgets, active)),
    now: new Date(),
  });
  if (gates.source) preview.featureGatesFrom = gates.source;
  return preview;
}

/**
 * A batch's headroom: the tightest budget (PodUnavailableBudget or PodDisruptionBudget, as its status says)
 * that selects any of the batch's pods; none when no budget covers them.
 */
function budgetHook(headroom: readonly BudgetHeadroom[]): BudgetHeadroomHook | undefined {
  if (headroom.length === 0) return undefined;
  return {
    headroom(pods) {
      const names = new Set(pods.map((p) => p.name));
      const covering = headroom.filter((b) => !b.error && b.selectedPods.some((n) => names.has(n)));
      if (covering.length === 0) return undefined;
      const tightest = covering.reduce((a, b) => (b.unavailableAllowed < a.unavailableAllowed ? b : a));
      return { headroom: tightest.unavailableAllowed, budget: `${tightest.kind}/${tightest.name}` };
    },
  };
}

/** The preview of a manifest edited offline (-f FILE --local): placeholder pods at its current template. */
export function previewOffline(command: string, before: KubeObject, after: KubeObject, settings: PreviewSettings): WorkloadPreview {
  checkPreviewable(before, command);
  return previewWorkloadChange({ command, before, after, gates: { verticalScaling: settings.verticalScaling, envFromMetadata: settings.envFromMetadata }, now: new Date() });
}

/** Prints the previews; exit 1 when Kruise would refuse a change (as the command itself would), else 0. */
export function printPreviews(ctx: CommandContext, previews: readonly WorkloadPreview[], settings: PreviewSettings): number {
  ctx.term.stdout.write(settings.json ? formatPreviewJson(previews) : formatPreviewTable(previews));
  return previews.some((p) => p.pods.some((x) => x.action === 'refused')) ? 1 : 0;
}
