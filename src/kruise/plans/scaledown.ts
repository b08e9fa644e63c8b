// `scaledown`: remove exactly the named pods of a workload and lower its replicas by as many, in
// one guarded write. Pure: decides from the objects read, returns the JSON patch or why not.
//
// CloneSet: the pods go into spec.scaleStrategy.podsToDelete and spec.replicas drops by their
// number (Kruise's selective scale-in, pkg/controller/cloneset/sync/cloneset_scale.go "specified
// delete"; the controller drops names of pods that are gone, cloneset_controller.go
// truncatePodsToDelete). Advanced StatefulSet: the ordinals go into spec.reserveOrdinals and
// spec.replicas drops by their number, so every other active ordinal keeps its pod
// (stateful_set_utils.go getStatefulSetReplicasRange: the first `replicas` ordinals from
// ordinals.start that are not reserved).
//
// Reruns: what a write removed is recorded on the workload in the same write (annotation
// SCALEDOWN_ANNOTATION: pod UIDs for a CloneSet, ordinals for an ASTS). A pod or ordinal recorded
// there counts as done, whatever state it is in now (still listed in podsToDelete, terminating,
// gone, reserved), so running the same command again writes nothing and never lowers replicas
// twice; later writes keep gone pods recorded (up to MAX_RECORDED_PODS), so a rerun of a scaledown
// that overlapped another still finds its own. A pod in podsToDelete, terminating or reserved that no scaledown recorded was put there
// by someone else (to replace it, not to scale in): refused rather than guessed.
import { applyJsonPatch, type JsonPatchOp } from '../containers';
import { dns1123SubdomainProblem } from '../names';
import { activeOrdinals, ordinalOfPod, parseReserveOrdinals } from '../partition';
import { LIFECYCLE_STATE_LABEL, readCloneSetSpec, SPECIFIED_DELETE_LABEL } from '../rules/cloneset';
import { describeRejections, webhookRejections } from '../rules/webhook-precheck';
import type { KubeObject } from '../types';
import { escapePointer, isObj, jsonObjectOf } from '../workloads/access';

/** Annotation on the workload recording what scaledown removed (JSON, see ScaledownRecord). */
export const SCALEDOWN_ANNOTATION = 'kubectl-kruise/scaledown';
/** More ordinals than this in one --ordinals is a typo, not a scale-in (and would cost memory). */
export const MAX_ORDINALS = 10_000;

export type ScaledownKind = 'CloneSet' | 'AdvancedStatefulSet';

export interface ScaledownRecord {
  /** CloneSet: pods removed by scaledown (name → UID), kept while they may still exist. */
  pods: Record<string, string>;
  /** Advanced StatefulSet: ordinals scaledown reserved, kept while they are reserved. */
  ordinals: number[];
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export function parseScaledownRecord(text: string | undefined): ScaledownRecord {
  const empty: ScaledownRecord = { pods: {}, ordinals: [] };
  const raw = jsonObjectOf(text);
  if (!raw) return empty;
  const pods: Record<string, string> = {};
  if (isObj(raw.pods)) for (const [k, v] of Object.entries(raw.pods)) if (typeof v === 'string') pods[k] = v;
  const ordinals = Array.isArray(raw.ordinals) ? raw.ordinals.filter((o): o is number => Number.isInteger(o) && o >= 0) : [];
  return { pods, ordinals };
}

export function serializeScaledownRecord(record: ScaledownRecord): string {
  const out: Record<string, unknown> = {};
  const names = Object.keys(record.pods).sort();
  if (names.length > 0) out.pods = Object.fromEntries(names.map((n) => [n, record.pods[n]]));
  if (record.ordinals.length > 0) out.ordinals = [...new Set(record.ordinals)].sort((a, b) => a - b);
  return JSON.stringify(out);
}

/** `--pods a,b,c`: DNS-1123 names, none twice. */
export function parsePodNames(text: string): Parsed<string[]> {
  const names = text.split(',').map((s) => s.trim());
  if (names.length === 0 || names.every((n) => n === '')) return { ok: false, message: '--pods needs at least one pod name, e.g. --pods web-a,web-b' };
  const seen = new Set<string>();
  for (const n of names) {
    if (n === '') return { ok: false, message: `empty pod name in --pods "${text}"` };
    const problem = dns1123SubdomainProblem(n);
    if (problem) return { ok: false, message: `invalid pod name "${n.length > 80 ? `${n.slice(0, 80)}...` : n}" in --pods: ${problem}` };
    if (seen.has(n)) return { ok: false, message: `pod "${n}" is named twice in --pods` };
    seen.add(n);
  }
  return { ok: true, value: names };
}

/** `--ordinals 2,5-7` → [2, 5, 6, 7]: integers ≥ 0 and ranges a-b with a ≤ b, none twice. */
export function parseOrdinals(text: string): Parsed<number[]> {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.every((p) => p === '')) return { ok: false, message: '--ordinals needs at least one ordinal, e.g. --ordinals 2,5-7' };
  const out: number[] = [];
  const seen = new Set<number>();
  for (const part of parts) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return { ok: false, message: `invalid ordinal "${part}" in --ordinals: expected an integer ≥ 0 or a range a-b` };
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a > 2147483647 || b > 2147483647) return { ok: false, message: `invalid ordinal "${part}" in --ordinals: too large` };
    if (a > b) return { ok: false, message: `invalid range "${part}" in --ordinals: the first ordinal must not be above the second` };
    if (out.length + (b - a + 1) > MAX_ORDINALS) return { ok: false, message: `--ordinals names more than ${MAX_ORDINALS} ordinals` };
    for (let o = a; o <= b; o++) {
      if (seen.has(o)) return { ok: false, message: `ordinal ${o} is given twice in --ordinals` };
      seen.add(o);
      out.push(o);
    }
  }
  return { ok: true, value: out.sort((x, y) => x - y) };
}

/** [0, 1, 2, 5, 7, 8] → "0-2, 5, 7-8" (messages). */
export function formatOrdinals(ordinals: readonly number[]): string {
  return ordinalRuns(ordinals)
    .map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`))
    .join(', ');
}

function ordinalRuns(ordinals: readonly number[]): Array<[number, number]> {
  const sorted = [...new Set(ordinals)].sort((a, b) => a - b);
  const runs: Array<[number, number]> = [];
  for (const o of sorted) {
    const last = runs[runs.length - 1];
    if (last && o === last[1] + 1) last[1] = o;
    else runs.push([o, o]);
  }
  return runs;
}

/**
 * The reserveOrdinals entries for these ordinals: ints everywhere (every release's CRD takes
 * them; v1.3's takes nothing else), consecutive ones as one "a-b" string where the CRD's items
 * are int-or-string (v1.8+).
 */
export function reserveEntries(ordinals: readonly number[], rangesAccepted: boolean): Array<number | string> {
  if (!rangesAccepted) return [...new Set(ordinals)].sort((a, b) => a - b);
  return ordinalRuns(ordinals).map(([a, b]) => (a === b ? a : `${a}-${b}`));
}

/** What scaledown needs to know of a pod. */
export interface PodFacts {
  name: string;
  uid: string;
  /** UID of its controller ownerReference. */
  controllerUid?: string;
  /** `cloneset "other"`, for messages. */
  controllerLabel?: string;
  terminating: boolean;
  lifecycleState?: string;
  specifiedDelete: boolean;
}

export function podFacts(pod: KubeObject): PodFacts {
  const owner = (pod.metadata.ownerReferences ?? []).find((r) => r.controller);
  const labels = pod.metadata.labels ?? {};
  return {
    name: pod.metadata.name ?? '',
    uid: pod.metadata.uid ?? '',
    controllerUid: owner?.uid,
    controllerLabel: owner ? `${owner.kind.toLowerCase()} "${owner.name}"` : undefined,
    terminating: Boolean(pod.metadata.deletionTimestamp),
    lifecycleState: labels[LIFECYCLE_STATE_LABEL],
    specifiedDelete: labels[SPECIFIED_DELETE_LABEL] !== undefined,
  };
}

export type ScaledownRequest = { pods: string[] } | { ordinals: number[] };

export interface ScaledownInput {
  kind: ScaledownKind;
  workload: KubeObject;
  request: ScaledownRequest;
  /** The pods looked at, by name; a name that is not here does not exist in the namespace. */
  pods: ReadonlyMap<string, PodFacts>;
  /** ASTS: the CRD's reserveOrdinals items are int-or-string, so "a-b" ranges may be written. */
  rangesAccepted?: boolean;
}

/** A pod the scale-down removes (or removed): `uid` pins it (a later pod may reuse the name). */
export interface ScaledownTarget {
  name: string;
  uid?: string;
  ordinal?: number;
}

export type ScaledownDecision =
  | { kind: 'refused'; message: string; hint?: string }
  | { kind: 'unchanged'; replicas: number; already: ScaledownTarget[] }
  | {
      kind: 'write';
      ops: JsonPatchOp[];
      from: number;
      to: number;
      removing: ScaledownTarget[];
      already: ScaledownTarget[];
      /** ASTS: the entries appended to spec.reserveOrdinals. */
      reserved?: Array<number | string>;
    };

/** Pod names whose state the decision needs (the engine lists the selector's pods and GETs these when missing). */
export function podNamesToLookUp(input: Pick<ScaledownInput, 'kind' | 'workload' | 'request'>): string[] {
  if ('pods' in input.request) return input.request.pods;
  const set = input.workload.metadata.name ?? '';
  return input.request.ordinals.map((o) => `${set}-${o}`);
}

/** `cloneset "web"`, `advanced statefulset "db"`. */
export function workloadLabel(kind: ScaledownKind, name: string): string {
  return `${kind === 'CloneSet' ? 'cloneset' : 'advanced statefulset'} "${name}"`;
}

function ownershipProblem(pod: PodFacts | undefined, name: string, workload: KubeObject, label: string): string | undefined {
  if (!pod) return `pod "${name}" not found in namespace "${workload.metadata.namespace ?? ''}"`;
  if (pod.controllerUid !== workload.metadata.uid) {
    return `pod "${name}" does not belong to ${label} (${pod.controllerLabel ? `its controller is ${pod.controllerLabel}` : 'it has no controller'})`;
  }
  return undefined;
}

function refused(problems: string[], hint?: string): ScaledownDecision {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more: ${problems.slice(1).join('; ')})` : '';
  return { kind: 'refused', message: `${problems[0]}${more}`, ...(hint ? { hint } : {}) };
}

function replicasOf(workload: KubeObject): { value: number; present: boolean } {
  const r = (workload.spec as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === 'number' ? { value: r, present: true } : { value: 1, present: false };
}

function annotationOps(workload: KubeObject, record: ScaledownRecord): JsonPatchOp[] {
  const value = serializeScaledownRecord(record);
  if (!workload.metadata.annotations) return [{ op: 'add', path: '/metadata/annotations', value: { [SCALEDOWN_ANNOTATION]: value } }];
  return [{ op: 'add', path: `/metadata/annotations/${escapePointer(SCALEDOWN_ANNOTATION)}`, value }];
}

/** Appends `values` to the list at spec.<parent...>.<field>, guarded by a test of what is there. */
function appendOps(workload: KubeObject, path: readonly string[], values: unknown[]): JsonPatchOp[] {
  let cur: unknown = workload;
  let depth = 0;
  for (; depth < path.length; depth++) {
    if (!isObj(cur) || cur[path[depth]!] === undefined) break;
    cur = cur[path[depth]!];
  }
  const pointer = (n: number): string => `/${path.slice(0, n).map(escapePointer).join('/')}`;
  if (depth === path.length) {
    if (!Array.isArray(cur)) return [{ op: 'replace', path: pointer(depth), value: values }];
    return [{ op: 'test', path: pointer(depth), value: cur }, ...values.map((v): JsonPatchOp => ({ op: 'add', path: `${pointer(depth)}/-`, value: v }))];
  }
  // The first missing level gets the rest of the path as a new object.
  let value: unknown = values;
  for (let i = path.length - 1; i > depth; i--) value = { [path[i]!]: value };
  return [{ op: 'add', path: pointer(depth + 1), value }];
}

function replicaOps(workload: KubeObject, to: number): JsonPatchOp[] {
  const r = replicasOf(workload);
  return r.present
    ? [
        { op: 'test', path: '/spec/replicas', value: r.value },
        { op: 'replace', path: '/spec/replicas', value: to },
      ]
    : [{ op: 'add', path: '/spec/replicas', value: to }];
}

const rvGuard = (workload: KubeObject): JsonPatchOp[] =>
  workload.metadata.resourceVersion ? [{ op: 'test', path: '/metadata/resourceVersion', value: workload.metadata.resourceVersion }] : [];

/** Most pods a CloneSet's record keeps (about 60 bytes each in the annotation). */
export const MAX_RECORDED_PODS = 256;

/**
 * The record's pods a write keeps: every one still done, gone ones included — a rerun of an earlier scaledown
 * (or of one that overlapped another) must find its pods recorded, whatever was written since — except a name
 * a new pod reuses (another UID); past MAX_RECORDED_PODS the gone ones go first, in name order.
 */
function keptRecord(recorded: Record<string, string>, pods: ReadonlyMap<string, PodFacts>): Record<string, string> {
  const kept: Record<string, string> = {};
  const gone: string[] = [];
  for (const [n, uid] of Object.entries(recorded)) {
    const pod = pods.get(n);
    if (pod && pod.uid !== uid) continue;
    kept[n] = uid;
    if (!pod) gone.push(n);
  }
  const excess = Object.keys(kept).length - (MAX_RECORDED_PODS - 1);
  for (const n of gone.sort().slice(0, Math.max(0, excess))) delete kept[n];
  return kept;
}

export function decideScaledown(input: ScaledownInput): ScaledownDecision {
  return input.kind === 'CloneSet' ? decideCloneSet(input) : decideAdvancedStatefulSet(input);
}

function decideCloneSet(input: ScaledownInput): ScaledownDecision {
  const { workload, pods } = input;
  const name = workload.metadata.name ?? '';
  const label = workloadLabel('CloneSet', name);
  if (!('pods' in input.request)) return { kind: 'refused', message: '--ordinals applies to advanced statefulsets only: name the pods of a cloneset with --pods' };
  const spec = readCloneSetSpec(workload);
  const listed = new Set(spec.podsToDelete);
  const record = parseScaledownRecord(workload.metadata.annotations?.[SCALEDOWN_ANNOTATION]);
  const already: ScaledownTarget[] = [];
  const fresh: PodFacts[] = [];
  const problems: string[] = [];
  for (const podName of input.request.pods) {
    const pod = pods.get(podName);
    const recorded = record.pods[podName];
    // Removed by an earlier scaledown: still listed, terminating or gone, it is done.
    if (recorded !== undefined && (!pod || pod.uid === recorded)) {
      already.push({ name: podName, uid: recorded });
      continue;
    }
    const owner = ownershipProblem(pod, podName, workload, label);
    if (owner || !pod) {
      problems.push(owner!);
      continue;
    }
    if (pod.terminating) problems.push(`pod "${podName}" is already being deleted`);
    else if (listed.has(podName)) problems.push(`pod "${podName}" is already in spec.scaleStrategy.podsToDelete of ${label}, not put there by scaledown (Kruise replaces it rather than scaling in)`);
    else if (pod.lifecycleState === 'PreparingDelete') problems.push(`pod "${podName}" is already being scaled in (lifecycle state PreparingDelete)`);
    else if (pod.specifiedDelete) problems.push(`pod "${podName}" is labelled apps.kruise.io/specified-delete (Kruise replaces it rather than scaling in)`);
    else fresh.push(pod);
  }
  if (problems.length > 0) return refused(problems, problems.some((p) => p.includes('replaces it')) ? `hint: to remove such a pod instead of replacing it, lower spec.replicas by one (kubectl scale)` : undefined);
  const from = spec.replicas;
  if (fresh.length === 0) return { kind: 'unchanged', replicas: from, already };
  const to = from - fresh.length;
  if (to < 0) return refused([`cannot remove ${fresh.length} pods from ${label}: it has ${from} replicas`]);

  const kept = keptRecord(record.pods, pods);
  for (const p of fresh) kept[p.name] = p.uid;
  const ops: JsonPatchOp[] = [
    ...rvGuard(workload),
    ...replicaOps(workload, to),
    ...appendOps(workload, ['spec', 'scaleStrategy', 'podsToDelete'], fresh.map((p) => p.name)),
    ...annotationOps(workload, { pods: kept, ordinals: [] }),
  ];
  // Kruise's webhook looks each new podsToDelete name up (validateScaleStrategy): answered from the pods as read.
  const lookup = (_ns: string | undefined, podName: string) => {
    const p = pods.get(podName);
    return p ? { terminating: p.terminating, controllerUid: p.controllerUid } : undefined;
  };
  const rejected = webhookRejections(workload, applyJsonPatch(workload, ops), lookup);
  if (rejected.length > 0) return refused([`scaledown of ${label} would be rejected by Kruise's webhook: ${describeRejections(rejected)}`]);
  return { kind: 'write', ops, from, to, removing: fresh.map((p) => ({ name: p.name, uid: p.uid })), already };
}

function decideAdvancedStatefulSet(input: ScaledownInput): ScaledownDecision {
  const { workload, pods } = input;
  const setName = workload.metadata.name ?? '';
  const label = workloadLabel('AdvancedStatefulSet', setName);
  const spec = (workload.spec ?? {}) as { reserveOrdinals?: unknown; ordinals?: { start?: unknown } };
  let reserved: Set<number>;
  try {
    reserved = parseReserveOrdinals(spec.reserveOrdinals);
  } catch (err) {
    return refused([`${label} has an unreadable spec.reserveOrdinals: ${(err as Error).message}`]);
  }
  const start = typeof spec.ordinals?.start === 'number' ? spec.ordinals.start : 0;
  const from = replicasOf(workload).value;
  const active = new Set(activeOrdinals(from, start, reserved));
  const record = parseScaledownRecord(workload.metadata.annotations?.[SCALEDOWN_ANNOTATION]);
  const problems: string[] = [];

  // --pods: each must be this set's pod; its ordinal is what gets reserved.
  const targets: Array<{ ordinal: number; podName: string }> = [];
  if ('pods' in input.request) {
    for (const podName of input.request.pods) {
      const ordinal = ordinalOfPod(setName, podName);
      if (ordinal !== undefined && reserved.has(ordinal) && record.ordinals.includes(ordinal)) {
        targets.push({ ordinal, podName });
        continue;
      }
      const owner = ownershipProblem(pods.get(podName), podName, workload, label);
      if (owner) problems.push(owner);
      else if (ordinal === undefined) problems.push(`pod "${podName}" has no ordinal of ${label} (expected ${setName}-N)`);
      else targets.push({ ordinal, podName });
    }
  } else {
    for (const ordinal of input.request.ordinals) targets.push({ ordinal, podName: `${setName}-${ordinal}` });
  }

  const already: ScaledownTarget[] = [];
  const fresh: Array<{ ordinal: number; pod: PodFacts }> = [];
  for (const { ordinal, podName } of targets) {
    if (reserved.has(ordinal)) {
      if (record.ordinals.includes(ordinal)) already.push({ name: podName, ordinal });
      else problems.push(`ordinal ${ordinal} of ${label} is already reserved (spec.reserveOrdinals), not by scaledown: it has no active pod to remove`);
      continue;
    }
    if (!active.has(ordinal)) {
      problems.push(`ordinal ${ordinal} is not an active ordinal of ${label} (active: ${active.size > 0 ? formatOrdinals([...active]) : 'none'})`);
      continue;
    }
    const pod = pods.get(podName);
    if (!pod) {
      problems.push(`ordinal ${ordinal} of ${label} has no pod ("${podName}" not found)`);
      continue;
    }
    const owner = ownershipProblem(pod, podName, workload, label);
    if (owner) problems.push(owner);
    else fresh.push({ ordinal, pod });
  }
  if (problems.length > 0) return refused(problems);
  if (fresh.length === 0) return { kind: 'unchanged', replicas: from, already };
  const to = from - fresh.length;

  const entries = reserveEntries(
    fresh.map((f) => f.ordinal),
    input.rangesAccepted === true,
  );
  const keptOrdinals = record.ordinals.filter((o) => reserved.has(o));
  const ops: JsonPatchOp[] = [
    ...rvGuard(workload),
    ...replicaOps(workload, to),
    ...appendOps(workload, ['spec', 'reserveOrdinals'], entries),
    ...annotationOps(workload, { pods: {}, ordinals: [...keptOrdinals, ...fresh.map((f) => f.ordinal)] }),
  ];
  const rejected = webhookRejections(workload, applyJsonPatch(workload, ops));
  if (rejected.length > 0) return refused([`scaledown of ${label} would be rejected by Kruise's webhook: ${describeRejections(rejected)}`]);
  return {
    kind: 'write',
    ops,
    from,
    to,
    removing: fresh.map((f) => ({ name: f.pod.name, uid: f.pod.uid, ordinal: f.ordinal })),
    already,
    reserved: entries,
  };
}
