// The evidence a failed or timed-out gate hands CI (issue #28): for one workload, its pods in trouble
// (status only), their recent Warning events folded as `kubectl events` folds them, the last lines of
// the failing container's log (the previous instance when it waits to restart), and the Kruise objects
// that explain it (a ContainerRecreateRequest or ImagePullJob in trouble, the Rollout's step and
// message). Read once, after the verdict, so a passing gate costs nothing.
// Secrets never reach it: pods are kept without their spec (no env, no volumes), and only statuses,
// events and logs are read; a log line is shown as the cluster has it.
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import type { Pod } from '../../kruise/types';
import { progressKindFor } from '../../kruise/progress-kinds';
import { labelSelectorString } from '../../kruise/selectors';
import { foldEvents, troubledPods, type Evidence, type LogEvidence } from '../../kruise/evidence';
import { CRR_POD_UID_LABEL } from '../../kruise/rules/crr';
import { readRollout } from '../../kruise/rollout/read';
import type { GateRow } from '../../printers/gate-rows';

/** Lines of a failing container's log kept as evidence. */
export const LOG_TAIL_LINES = 20;
/** Longest log tail read (a line of a few MB must not fill a CI log). */
const LOG_LIMIT_BYTES = 64 * 1024;

/** Where a row's workload is: the object itself, or the one its Rollout releases. */
export interface EvidenceTarget {
  row: GateRow;
  /** The workload (or job) whose pods are in question. */
  workload?: { rt: ResourceType; name: string; namespace: string };
  /** The Rollout of a release row. */
  rollout?: { rt: ResourceType; name: string; namespace: string };
}

const POD_RT: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const EVENT_RT: ResourceType = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };

/** A pod without its spec but the node (no env, no volumes: nothing a Secret fills in). */
function podStatusOnly(item: KubeObject): KubeObject {
  const pod = item as Pod;
  const m = pod.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}) },
    spec: pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {},
    status: pod.status,
  } as KubeObject;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function collectEvidence(client: KubeClient, t: EvidenceTarget, signal?: AbortSignal): Promise<Evidence> {
  const ns = t.workload?.namespace ?? t.rollout?.namespace ?? t.row.namespace;
  const ev: Evidence = { ref: t.row.ref, namespace: ns, pods: [], events: [], logs: [], objects: [], notes: [] };
  const note = (what: string, err: unknown): void => void ev.notes.push(`${what}: ${messageOf(err)}`);

  if (t.rollout) {
    try {
      const rollout = await client.get(t.rollout.rt, t.rollout.name, t.rollout.namespace, { signal });
      const v = readRollout(rollout);
      const st = v.status;
      const step = st.currentStepIndex !== undefined ? `step ${st.currentStepIndex}/${v.steps.length} ${st.currentStepState ?? ''}`.trim() : 'no step';
      const message = st.message ?? st.subMessage;
      ev.objects.push({ kind: 'Rollout', name: t.rollout.name, summary: `${step}${message ? `: ${message}` : ''}`, object: { apiVersion: rollout.apiVersion, kind: rollout.kind, metadata: { name: rollout.metadata.name, namespace: rollout.metadata.namespace }, spec: rollout.spec, status: rollout.status } as KubeObject });
    } catch (err) {
      note(`rollout/${t.rollout.name}`, err);
    }
  }
  if (!t.workload) return ev;
  let workload: KubeObject;
  try {
    workload = await client.get(t.workload.rt, t.workload.name, ns, { signal });
  } catch (err) {
    note(`${t.workload.rt.kind.toLowerCase()}/${t.workload.name}`, err);
    return ev;
  }
  const kind = progressKindFor(workload);
  const selector = kind ? labelSelectorString(kind.selector(workload)) : '';
  let pods: Pod[] = [];
  if (selector) {
    try {
      pods = (await client.list(POD_RT, ns, { labelSelector: selector, mapItem: podStatusOnly, signal })).items as Pod[];
    } catch (err) {
      note('pods', err);
    }
  }
  const named = [t.row.pod?.name].filter((x): x is string => Boolean(x));
  ev.pods = troubledPods(pods, named);
  const shownPods = new Set(ev.pods.map((p) => p.name));
  ev.podObjects = pods.filter((p) => shownPods.has(p.metadata.name ?? ''));

  // Warning events of the workload and of the pods shown: one list of the namespace's warnings.
  const involved = new Set([workload.metadata.name ?? '', ...ev.pods.map((p) => p.name)]);
  try {
    const warnings = await client.list(EVENT_RT, ns, {
      fieldSelector: 'type=Warning',
      signal,
      mapItem: (e) => {
        const io = (e as { involvedObject?: { name?: string; kind?: string } }).involvedObject;
        return io?.name && involved.has(io.name) ? e : undefined;
      },
    });
    ev.events = foldEvents(warnings.items);
  } catch (err) {
    note('events', err);
  }

  for (const p of ev.pods) {
    if (!p.log) continue;
    const entry: LogEvidence = { pod: p.name, container: p.log.container, previous: p.log.previous, lines: [] };
    try {
      if (!client.podLog) throw new Error('not supported by this client');
      const text = await client.podLog(ns, p.name, { container: p.log.container, previous: p.log.previous, tailLines: LOG_TAIL_LINES, limitBytes: LOG_LIMIT_BYTES, signal });
      entry.lines = text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1).slice(-LOG_TAIL_LINES);
    } catch (err) {
      entry.error = messageOf(err);
    }
    ev.logs.push(entry);
  }

  await kruiseObjects(client, ev, pods, signal);
  return ev;
}

/** ContainerRecreateRequests of the pods shown that failed or still run, and ImagePullJobs that failed to pull an image of those pods. */
async function kruiseObjects(client: KubeClient, ev: Evidence, pods: readonly Pod[], signal?: AbortSignal): Promise<void> {
  if (ev.pods.length === 0) return;
  const shown = new Set(ev.pods.map((p) => p.name));
  const uids = pods.filter((p) => shown.has(p.metadata.name ?? '')).map((p) => p.metadata.uid).filter((u): u is string => Boolean(u));
  const crrRt = await client.discovered('apps.kruise.io', 'containerrecreaterequests').catch(() => undefined);
  if (crrRt && uids.length > 0) {
    try {
      const crrs = await client.list(crrRt, ev.namespace, { labelSelector: `${CRR_POD_UID_LABEL} in (${uids.join(',')})`, signal });
      for (const crr of crrs.items) {
        const status = (crr.status ?? {}) as { phase?: string; message?: string; containerRecreateStates?: Array<{ name?: string; phase?: string; message?: string }> };
        const failed = (status.containerRecreateStates ?? []).filter((s) => s.phase === 'Failed');
        if (status.phase === 'Completed' && failed.length === 0) continue;
        const why = failed.length ? `container ${failed.map((s) => `${s.name} ${s.phase}${s.message ? ` (${s.message})` : ''}`).join(', ')}` : `phase ${status.phase ?? 'Pending'}${status.message ? `: ${status.message}` : ''}`;
        ev.objects.push({ kind: 'ContainerRecreateRequest', name: crr.metadata.name ?? '', summary: why, object: crr });
      }
    } catch (err) {
      ev.notes.push(`containerrecreaterequests: ${messageOf(err)}`);
    }
  }
  const images = new Set(pods.filter((p) => shown.has(p.metadata.name ?? '')).flatMap((p) => (p.status?.containerStatuses ?? []).map((c) => c.image)));
  const ipjRt = await client.discovered('apps.kruise.io', 'imagepulljobs').catch(() => undefined);
  if (ipjRt && images.size > 0) {
    try {
      const jobs = await client.list(ipjRt, ev.namespace, { signal });
      for (const job of jobs.items) {
        const spec = (job.spec ?? {}) as { image?: string };
        const status = (job.status ?? {}) as { failed?: number; failedNodes?: string[]; message?: string };
        if (!spec.image || !images.has(spec.image) || !(status.failed ?? 0)) continue;
        const nodes = status.failedNodes?.length ? ` on ${status.failedNodes.slice(0, 5).join(', ')}` : '';
        ev.objects.push({ kind: 'ImagePullJob', name: job.metadata.name ?? '', summary: `${status.failed} failed ${status.failed === 1 ? 'pull' : 'pulls'} of ${spec.image}${nodes}${status.message ? `: ${status.message}` : ''}`, object: job });
      }
    } catch (err) {
      ev.notes.push(`imagepulljobs: ${messageOf(err)}`);
    }
  }
}
