// `scaledown` against the cluster: read the workload and its pods, let the pure rules decide
// (src/kruise/plans/scaledown.ts), write one guarded JSON patch, and optionally wait (watches,
// no polling) until the removed pods are gone and the workload is at its new replicas.
// A write whose guard fails (someone changed the workload between our read and our write)
// is re-read and decided again, so a concurrent scale is neither lost nor doubled.
import { failure, usageError } from '../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { retryOnConflict } from '../kube/conflict';
import { isNotFound } from '../kube/errors';
import { getWithAdvancedHint } from '../kube/resolve';
import { withTypeMeta } from '../kruise/api-version';
import { applyJsonPatch } from '../kruise/containers';
import {
  decideScaledown,
  podFacts,
  podNamesToLookUp,
  type PodFacts,
  type ScaledownDecision,
  type ScaledownKind,
  type ScaledownRequest,
  type ScaledownTarget,
} from '../kruise/plans/scaledown';
import { ordinalOfPod } from '../kruise/partition';
import { labelSelectorString } from '../kruise/selectors';
import type { DryRunMode } from '../printers/output';
import { crdSchemaAt } from './crd-fields';
import { waitUntilDeadline, watchSet, WaitTimeout } from './live';
import { POD_RT } from './targets';
import { headroomOf, readBudgets } from './budgets';
import { headroomAfterScaleDown, planAroundBudgets, waitingLine } from '../kruise/budgets';
import type { Pod } from '../kruise/types';

/** Attempts of the write when the workload changed under us (each one re-reads and decides again). */
export const SCALEDOWN_ATTEMPTS = 4;

export interface ScaledownOptions {
  rt: ResourceType;
  kind: ScaledownKind;
  name: string;
  namespace: string;
  request: ScaledownRequest;
  dryRun: DryRunMode;
  fieldManager: string;
  signal?: AbortSignal;
}

export type ScaledownOutcome =
  | { kind: 'unchanged'; object: KubeObject; decision: Extract<ScaledownDecision, { kind: 'unchanged' }>; waiting?: string[] }
  | { kind: 'written'; object: KubeObject; decision: Extract<ScaledownDecision, { kind: 'write' }>; waiting?: string[] };

/**
 * The pods of a write the namespace's availability budgets refuse to lose now (the workload's
 * controller would have its deletes refused by Kruise's PUB webhook and stall half way): the request
 * narrowed to the others, and one line per pod left out. Budgets are read only when the write removes pods.
 */
async function narrowToBudgets(client: KubeClient, opts: ScaledownOptions, workload: KubeObject, decision: Extract<ScaledownDecision, { kind: 'write' }>): Promise<{ request: ScaledownRequest; waiting: string[] } | undefined> {
  if (decision.removing.length === 0) return undefined;
  const budgets = await readBudgets(client, opts.namespace, opts.signal);
  if (budgets.pubs.length === 0) return undefined; // a PDB guards evictions, not the controller's deletes
  const selector = labelSelectorString((workload.spec as { selector?: Parameters<typeof labelSelectorString>[0] } | undefined)?.selector);
  const pods = (await client.list<Pod>(POD_RT, opts.namespace, { labelSelector: selector, limit: 500, signal: opts.signal })).items;
  const byName = new Map(pods.map((p) => [p.metadata.name ?? '', p]));
  const removing = decision.removing.map((t) => byName.get(t.name)).filter((p): p is Pod => p !== undefined);
  // the budget's expected count drops with the replicas: what the lower desiredAvailable frees counts
  const headroom = headroomOf(budgets, pods).map((h) => headroomAfterScaleDown(h, budgets.pubs.find((p) => p.metadata.name === h.name), decision.removing.length));
  const plan = planAroundBudgets('DELETE', removing, headroom);
  if (plan.waiting.length === 0) return undefined;
  const waiting = plan.waiting.map((w) => waitingLine(w, headroom));
  const allowed = new Set(plan.allowed);
  const kept = decision.removing.filter((t) => allowed.has(t.name) || !byName.has(t.name));
  const request: ScaledownRequest = 'ordinals' in opts.request ? { ordinals: kept.map((t) => t.ordinal).filter((o): o is number => o !== undefined) } : { pods: kept.map((t) => t.name) };
  return { request, waiting };
}

interface State {
  workload: KubeObject;
  pods: Map<string, PodFacts>;
}

/** Only what the rules read of a pod: a large workload's list stays small in memory. */
function slimPod(pod: KubeObject): KubeObject {
  const m = pod.metadata;
  return {
    metadata: {
      name: m.name,
      uid: m.uid,
      labels: m.labels,
      ownerReferences: m.ownerReferences,
      ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
    },
  };
}

/** One GET of the workload, one LIST of the pods its selector matches, a GET per named pod the list lacks. */
async function readState(client: KubeClient, opts: ScaledownOptions): Promise<State> {
  const workload = withTypeMeta(await getWithAdvancedHint(client, opts.rt, opts.name, opts.namespace, { signal: opts.signal }), opts.rt);
  const selector = labelSelectorString((workload.spec as { selector?: Parameters<typeof labelSelectorString>[0] } | undefined)?.selector);
  if (selector === '') throw failure(`${opts.rt.kind} "${opts.name}" has an empty selector`);
  const list = await client.list(POD_RT, opts.namespace, { labelSelector: selector, limit: 500, mapItem: slimPod, signal: opts.signal });
  const pods = new Map<string, PodFacts>();
  for (const p of list.items) pods.set(p.metadata.name ?? '', podFacts(p));
  // A named pod the selector does not match may still exist (another workload's): read it to say so.
  for (const podName of podNamesToLookUp({ kind: opts.kind, workload, request: opts.request })) {
    if (pods.has(podName)) continue;
    try {
      pods.set(podName, podFacts(await client.get(POD_RT, podName, opts.namespace, { signal: opts.signal })));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return { workload, pods };
}

/**
 * Whether "a-b" ranges may go into this Advanced StatefulSet's reserveOrdinals: the list already
 * holds one, or the CRD of the served version says its items are int-or-string (v1.8+). Read only
 * when a range would be written; unknown (an unreadable CRD) means ints.
 */
async function rangesAccepted(client: KubeClient, opts: ScaledownOptions, workload: KubeObject): Promise<boolean> {
  const existing = (workload.spec as { reserveOrdinals?: unknown } | undefined)?.reserveOrdinals;
  if (Array.isArray(existing) && existing.some((e) => typeof e === 'string')) return true;
  const items = await crdSchemaAt(client, 'statefulsets.apps.kruise.io', opts.rt.version, ['spec', 'reserveOrdinals', 'items']);
  return (items as { 'x-kubernetes-int-or-string'?: boolean } | undefined)?.['x-kubernetes-int-or-string'] === true;
}

function requestedOrdinals(opts: ScaledownOptions): number[] {
  if ('ordinals' in opts.request) return opts.request.ordinals;
  return opts.request.pods.map((p) => ordinalOfPod(opts.name, p)).filter((o): o is number => o !== undefined);
}

/** Whether the ordinals of a request hold two consecutive ones (only then is a range worth a CRD read). */
function hasRun(ordinals: readonly number[]): boolean {
  const sorted = [...ordinals].sort((a, b) => a - b);
  return sorted.some((o, i) => i > 0 && o === sorted[i - 1]! + 1);
}

export async function runScaledown(client: KubeClient, opts: ScaledownOptions): Promise<ScaledownOutcome> {
  let ranges: boolean | undefined;
  return retryOnConflict(
    async (attempt) => {
      let state = await readState(client, opts);
      if (ranges === undefined && opts.kind === 'AdvancedStatefulSet' && hasRun(requestedOrdinals(opts))) ranges = await rangesAccepted(client, opts, state.workload);
      const decide = (s: State): ScaledownDecision => decideScaledown({ kind: opts.kind, workload: s.workload, request: opts.request, pods: s.pods, rangesAccepted: ranges ?? false });
      let decision = decide(state);
      // The workload and its pods are two reads: a scaledown landing between them (its pods then
      // deleted) looks like a pod that never existed. Refuse only on a workload that did not move.
      for (let settle = 0; decision.kind === 'refused' && settle < SCALEDOWN_ATTEMPTS; settle++) {
        const again = await client.get(opts.rt, opts.name, opts.namespace, { signal: opts.signal });
        if (again.metadata.resourceVersion === state.workload.metadata.resourceVersion) break;
        state = await readState(client, opts);
        decision = decide(state);
      }
      if (decision.kind === 'refused') {
        // Refused on our first read: bad input, nothing sent. Refused after a concurrent change: the cluster moved.
        const suffix = '; nothing was written';
        throw attempt === 1 ? usageError(`${decision.message}${suffix}`, decision.hint) : failure(`${decision.message} (after a concurrent change)${suffix}`, decision.hint);
      }
      if (decision.kind === 'unchanged') return { kind: 'unchanged', object: state.workload, decision };
      // never ask for pods an availability budget would not let go: narrow the request and say so
      let waiting: string[] | undefined;
      const narrowed = await narrowToBudgets(client, opts, state.workload, decision);
      if (narrowed) {
        waiting = narrowed.waiting;
        const emptied = 'ordinals' in narrowed.request ? narrowed.request.ordinals.length === 0 : narrowed.request.pods.length === 0;
        if (emptied) {
          throw failure(`no pod of ${opts.rt.kind.toLowerCase()}/${opts.name} can be removed now: ${waiting.join('; ')}; nothing was written`, 'hint: run it again once the budget has room (kubectl get pub shows ALLOWED)');
        }
        const again = decideScaledown({ kind: opts.kind, workload: state.workload, request: narrowed.request, pods: state.pods, rangesAccepted: ranges ?? false });
        if (again.kind !== 'write') throw failure(`the scale-down of ${opts.rt.kind.toLowerCase()}/${opts.name} narrowed to its budget could not be planned; nothing was written`);
        decision = again;
      }
      if (opts.dryRun === 'client') return { kind: 'written', object: applyJsonPatch(state.workload, decision.ops), decision, ...(waiting ? { waiting } : {}) };
      const result = await client.patch(opts.rt, opts.name, 'json', decision.ops, opts.namespace, {
        dryRun: opts.dryRun === 'server',
        fieldManager: opts.fieldManager,
        signal: opts.signal,
      });
      return { kind: 'written', object: withTypeMeta(result, opts.rt), decision, ...(waiting ? { waiting } : {}) };
    },
    {
      attempts: SCALEDOWN_ATTEMPTS,
      signal: opts.signal,
      exhausted: (last, attempts) =>
        failure(`${opts.rt.kind} "${opts.name}" kept changing while it was being scaled down (${attempts} attempts); nothing was written`, `hint: last server answer: ${last.message}`),
    },
  );
}

export interface ScaledownWaitResult {
  replicas: number;
}

function podStillThere(pods: ReadonlyMap<string, KubeObject>, t: ScaledownTarget): boolean {
  const pod = pods.get(t.name);
  return pod !== undefined && (t.uid === undefined || pod.metadata.uid === t.uid);
}

/**
 * Waits (list + watch of the workload and its pods) until every target pod is gone and the
 * workload's status shows its spec: observedGeneration caught up, status.replicas == spec.replicas.
 * Exit 3 (WaitTimeout) at the deadline, naming what is still missing.
 */
export async function waitForScaledown(
  client: KubeClient,
  opts: Pick<ScaledownOptions, 'rt' | 'name' | 'namespace' | 'signal'>,
  workload: KubeObject,
  targets: readonly ScaledownTarget[],
  deadline: number | undefined,
): Promise<ScaledownWaitResult> {
  const selector = labelSelectorString((workload.spec as { selector?: Parameters<typeof labelSelectorString>[0] } | undefined)?.selector);
  const podsView = watchSet(client, POD_RT, opts.namespace, { labelSelector: selector, signal: opts.signal });
  const workloadView = watchSet(client, opts.rt, opts.namespace, { fieldSelector: `metadata.name=${opts.name}`, signal: opts.signal });
  const progress = (): { left: string[]; spec?: number; status?: number; observed: boolean; deleted: boolean } => {
    const w = workloadView.objects.get(opts.name);
    const left = targets.filter((t) => podStillThere(podsView.objects, t)).map((t) => t.name);
    if (!w) return { left, observed: false, deleted: true };
    const spec = (w.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    const status = w.status as { replicas?: number; observedGeneration?: number } | undefined;
    return { left, spec, status: status?.replicas ?? 0, observed: (status?.observedGeneration ?? 0) >= (w.metadata.generation ?? 0), deleted: false };
  };
  try {
    const done = await waitUntilDeadline(
      [podsView, workloadView],
      () => {
        const p = progress();
        if (p.deleted && workloadView.gone.has(opts.name)) throw failure(`${opts.rt.kind} "${opts.name}" was deleted while waiting for its scale-down`);
        return p.left.length === 0 && p.observed && p.spec !== undefined && p.status === p.spec ? { replicas: p.spec } : undefined;
      },
      { deadline, signal: opts.signal, what: `${opts.rt.kind} "${opts.name}" to scale down` },
    );
    if (done) return done;
    const p = progress();
    const why = [
      p.left.length > 0 ? `${p.left.length === 1 ? 'pod' : 'pods'} ${p.left.join(', ')} still present` : undefined,
      p.spec !== undefined && p.status !== p.spec ? `${p.status} of ${p.spec} replicas in status` : undefined,
      !p.observed ? 'spec change not yet observed by the controller' : undefined,
    ].filter(Boolean);
    throw new WaitTimeout(`timed out waiting for ${opts.rt.kind} "${opts.name}" to scale down: ${why.join('; ') || 'not settled'}`);
  } finally {
    podsView.stop();
    workloadView.stop();
  }
}
