// Moving a Deployment's pods into a CloneSet without downtime (`migrate`), as pure rules: the
// --max-surge value, the next action from what the cluster shows now, the whole step plan (for
// --dry-run and step numbers), and the record a migration keeps on its CloneSet. No I/O.
//
// The rules, from the current state alone (so a rerun after Ctrl-C, --timeout or a killed process
// continues exactly where the cluster is, never surging twice):
// - T = the total to end with, s = max surge (pods above T that may exist at once), C / D = the
//   CloneSet's / Deployment's spec.replicas, A = the CloneSet's available pods (its status, trusted
//   only once it observed its latest generation).
// - Drain first: lower the Deployment to max(0, T − A), never raising it: the available CloneSet
//   pods plus the Deployment's keep at least T serving (the ReplicaSet deletes unready pods first).
// - Then surge, once every CloneSet pod is available and the Deployment observed its last scale:
//   raise the CloneSet by at most s, to at most T, keeping C + D ≤ T + s.
// - Done when the Deployment is at 0 and T CloneSet pods are available.
// kruise-tools (pkg/migration/cloneset/cloneset_migration.go, reconcile) steps the same way (scale
// out by at most maxSurge, scale in once all CloneSet pods are available) but keeps its counters
// in memory, so an interrupted run cannot be resumed.
import { parseIntOrPercent } from '../intstr';
import type { JsonPatchOp } from '../containers';
import { escapePointer, jsonObjectOf } from '../workloads/access';

/** Annotation on the CloneSet: the migration's record (JSON, MigrationRecord). */
export const MIGRATION_ANNOTATION = 'kubectl-kruise/migration';
/** Annotation on the Deployment: the CloneSet its pods are being (or were) moved to. */
export const MIGRATION_TARGET_ANNOTATION = 'kubectl-kruise/migration-target';
/** kruise-tools' default (pkg/cmd/migrate/migrate.go: --max-surge 1). */
export const DEFAULT_MAX_SURGE = '1';

/** A --max-surge value: a count, or a whole percentage of the total (rounded up). */
export type MaxSurge = { kind: 'int'; value: number } | { kind: 'percent'; percent: number; text: string };

/**
 * Parses --max-surge as Kubernetes reads a Deployment's maxSurge (intstr.GetScaledValueFromIntOrPercent):
 * an integer, or an integer followed by "%". Throws an Error naming the value.
 */
export function parseMaxSurge(value: string): MaxSurge {
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n > 2147483647) throw new Error(`invalid value "${value}" for --max-surge: too large`);
    return { kind: 'int', value: n };
  }
  const parsed = parseIntOrPercent(v);
  if (!parsed.ok || parsed.value.kind !== 'percent') throw new Error(`invalid value "${value}" for --max-surge: expected a number of pods or a percentage (2, 25%)`);
  if (!/^\d+%$/.test(v)) throw new Error(`invalid value "${value}" for --max-surge: a percentage must be a whole number, as a Deployment's maxSurge (25%)`);
  return { kind: 'percent', percent: parsed.value.percent, text: v };
}

/**
 * The surge in pods for a total: percentages of the total rounded up, as the Deployment controller
 * resolves maxSurge (kubernetes pkg/controller/deployment/util/deployment_util.go ResolveFenceposts:
 * GetScaledValueFromIntOrPercent(maxSurge, desired, true)) and as Kruise's CloneSet controller does
 * (pkg/controller/cloneset/sync/cloneset_sync_utils.go: GetValueFromIntOrPercent(maxSurge, replicas, true)).
 */
export function resolveMaxSurge(surge: MaxSurge, total: number): number {
  return surge.kind === 'int' ? surge.value : Math.ceil((surge.percent * total) / 100);
}

export function formatMaxSurge(surge: MaxSurge): string {
  return surge.kind === 'int' ? String(surge.value) : surge.text;
}

/** What the cluster shows now, as the next action needs it. */
export interface MigrationView {
  cloneSet: {
    /** spec.replicas */
    replicas: number;
    /** status.availableReplicas */
    available: number;
    /** status.observedGeneration >= metadata.generation (its status describes its spec). */
    observed: boolean;
  };
  deployment: {
    /** spec.replicas */
    replicas: number;
    /** status.observedGeneration >= metadata.generation (it acted on its last scale). */
    observed: boolean;
  };
  /** The total to end with. */
  total: number;
  /** Resolved max surge (pods), at least 1 unless the total is 0. */
  maxSurge: number;
}

export type MigrationAction =
  | { kind: 'scale-cloneset'; from: number; to: number }
  | { kind: 'scale-deployment'; from: number; to: number }
  | { kind: 'wait'; reason: 'cloneset-observed' | 'deployment-observed' | 'cloneset-available'; available: number; wanted: number }
  | { kind: 'done' };

/** The next write (or what to wait for) from the current state; see the module comment. */
export function nextMigrationAction(view: MigrationView): MigrationAction {
  const { total, maxSurge } = view;
  const c = view.cloneSet.replicas;
  const d = view.deployment.replicas;
  if (!view.cloneSet.observed) return { kind: 'wait', reason: 'cloneset-observed', available: 0, wanted: c };
  const available = Math.min(view.cloneSet.available, c);
  const drainTo = Math.min(d, Math.max(0, total - available));
  if (drainTo < d) return { kind: 'scale-deployment', from: d, to: drainTo };
  if (d === 0 && available >= total) return { kind: 'done' };
  // The last surge's pods first: a rerun never adds pods on top of ones not yet available.
  if (available < c) return { kind: 'wait', reason: 'cloneset-available', available, wanted: c };
  if (!view.deployment.observed) return { kind: 'wait', reason: 'deployment-observed', available, wanted: c };
  const surgeTo = Math.min(total, c + maxSurge, total + maxSurge - d);
  if (surgeTo > c) return { kind: 'scale-cloneset', from: c, to: surgeTo };
  // Nothing can move (max surge 0 with pods left to move): validation refuses that up front.
  return { kind: 'wait', reason: 'cloneset-available', available, wanted: total };
}

/** One step: raise the CloneSet (or not), wait until its pods are available, lower the Deployment (or not). */
export interface MigrationStep {
  cloneSet: { from: number; to: number };
  deployment: { from: number; to: number };
  /** Pods of both at the step's peak (C' + D before the Deployment is lowered). */
  peakPods: number;
}

/**
 * The steps from a state, assuming each step's new pods become available: what --dry-run prints and
 * what numbers the progress lines. Throws when nothing could ever move (max surge 0).
 */
export function planMigration(start: { cloneSetReplicas: number; deploymentReplicas: number }, total: number, maxSurge: number): MigrationStep[] {
  let c = start.cloneSetReplicas;
  let d = start.deploymentReplicas;
  const steps: MigrationStep[] = [];
  let current: MigrationStep | undefined;
  const limit = total + d + 2;
  for (let i = 0; i <= 2 * limit; i++) {
    const action = nextMigrationAction({ cloneSet: { replicas: c, available: c, observed: true }, deployment: { replicas: d, observed: true }, total, maxSurge });
    if (action.kind === 'done') return steps;
    if (action.kind === 'wait') throw new Error(`nothing can move with a max surge of ${maxSurge} pods`);
    if (action.kind === 'scale-cloneset') {
      current = { cloneSet: { from: c, to: action.to }, deployment: { from: d, to: d }, peakPods: action.to + d };
      steps.push(current);
      c = action.to;
    } else {
      if (!current || current.deployment.to !== current.deployment.from) {
        current = { cloneSet: { from: c, to: c }, deployment: { from: d, to: d }, peakPods: c + d };
        steps.push(current);
      }
      current.deployment.to = action.to;
      d = action.to;
    }
  }
  throw new Error('migration plan does not converge');
}

export type MigrationState = 'created' | 'copied' | 'migrating' | 'done';

/** What a migration keeps on its CloneSet (MIGRATION_ANNOTATION): whose it is and what it set out to do. */
export interface MigrationRecord {
  /** The Deployment's name and UID (a Deployment deleted and recreated under the same name is another one). */
  from: string;
  sourceUid: string;
  /** The Deployment's spec.replicas when the migration began. */
  sourceReplicas: number;
  /** The total to end with (absent until a migration starts, e.g. after --create). */
  replicas?: number;
  /** --max-surge as given. */
  maxSurge?: string;
  state: MigrationState;
  startedAt: string;
  finishedAt?: string;
}

const STATES: readonly MigrationState[] = ['created', 'copied', 'migrating', 'done'];

/** The record in the annotation; undefined when absent or unreadable (then the CloneSet is not a migration's). */
export function parseMigrationRecord(text: string | undefined): MigrationRecord | undefined {
  const r = jsonObjectOf(text);
  if (!r) return undefined;
  const count = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  if (typeof r.from !== 'string' || typeof r.sourceUid !== 'string' || !count(r.sourceReplicas)) return undefined;
  if (typeof r.state !== 'string' || !STATES.includes(r.state as MigrationState) || typeof r.startedAt !== 'string') return undefined;
  return {
    from: r.from,
    sourceUid: r.sourceUid,
    sourceReplicas: r.sourceReplicas,
    ...(count(r.replicas) ? { replicas: r.replicas } : {}),
    ...(typeof r.maxSurge === 'string' ? { maxSurge: r.maxSurge } : {}),
    state: r.state as MigrationState,
    startedAt: r.startedAt,
    ...(typeof r.finishedAt === 'string' ? { finishedAt: r.finishedAt } : {}),
  };
}

/** Stable key order, so an unchanged record serializes to the same text (the writes `test` it). */
export function serializeMigrationRecord(r: MigrationRecord): string {
  const ordered: MigrationRecord = {
    from: r.from,
    sourceUid: r.sourceUid,
    sourceReplicas: r.sourceReplicas,
    ...(r.replicas !== undefined ? { replicas: r.replicas } : {}),
    ...(r.maxSurge !== undefined ? { maxSurge: r.maxSurge } : {}),
    state: r.state,
    startedAt: r.startedAt,
    ...(r.finishedAt !== undefined ? { finishedAt: r.finishedAt } : {}),
  };
  return JSON.stringify(ordered);
}

/** JSON pointer of the record on the CloneSet, which every write of a migration tests and replaces. */
export const MIGRATION_RECORD_POINTER = `/metadata/annotations/${escapePointer(MIGRATION_ANNOTATION)}`;

/**
 * The CloneSet's scale, guarded: applies only if its replicas and record are still what the
 * decision was made on (a concurrent run or person changed them → 422, decide again).
 */
export function cloneSetScalePatch(from: number, to: number, recordBefore: string, recordAfter: string): JsonPatchOp[] {
  const path = MIGRATION_RECORD_POINTER;
  return [
    { op: 'test', path: '/spec/replicas', value: from },
    { op: 'test', path, value: recordBefore },
    { op: 'replace', path: '/spec/replicas', value: to },
    { op: 'replace', path, value: recordAfter },
  ];
}

/** The Deployment's scale, guarded by its UID, its replicas and the mark naming our CloneSet. */
export function deploymentScalePatch(uid: string, from: number, to: number, target: string): JsonPatchOp[] {
  return [
    { op: 'test', path: '/metadata/uid', value: uid },
    { op: 'test', path: `/metadata/annotations/${escapePointer(MIGRATION_TARGET_ANNOTATION)}`, value: target },
    { op: 'test', path: '/spec/replicas', value: from },
    { op: 'replace', path: '/spec/replicas', value: to },
  ];
}
