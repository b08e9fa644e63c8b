// What a `restart` run did, kept on the cluster (in the annotation of its Lease) so that a rerun
// after Ctrl-C, --timeout or a killed process does only what is left (one run at a time: lease.ts).
// Pure: no I/O.
import { jsonObjectOf } from '../workloads/access';

/** Annotation of the restart Lease holding the last run's record (JSON). */
export const RESTART_RUN_ANNOTATION = 'kubectl-kruise/restart-run';

export type RunState = 'running' | 'done' | 'failed';

export interface RestartRunRecord {
  id: string;
  via: 'kruise' | 'client';
  /** The -c list as given (comma-joined; empty = every container). */
  containers: string;
  state: RunState;
  startedAt: string;
  /** UIDs of the pods the run set out to restart: a pod created later started after the run began. */
  pods: string[];
  /** UIDs of the pods whose ContainerRecreateRequest the server accepted (kruise executor). */
  created: string[];
  /** Ready pods before the run (client executor): a resumed run first waits for as many again. */
  readyBefore?: number;
  /**
   * A run over several namespaces (a SidecarSet's pods): the id of the whole run and its namespaces in
   * order, on each namespace's record, so that a rerun continues the whole run (sidecarSetResume).
   */
  parent?: { id: string; namespaces: string[] };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The record in a Lease annotation; undefined when absent or unreadable (then nothing is resumed). */
export function parseRunRecord(text: string | undefined): RestartRunRecord | undefined {
  const r = jsonObjectOf(text);
  if (!r) return undefined;
  if (typeof r.id !== 'string' || (r.via !== 'kruise' && r.via !== 'client')) return undefined;
  const state: RunState = r.state === 'done' || r.state === 'failed' ? r.state : 'running';
  return {
    id: r.id,
    via: r.via,
    containers: typeof r.containers === 'string' ? r.containers : '',
    state,
    startedAt: typeof r.startedAt === 'string' ? r.startedAt : '',
    pods: strings(r.pods),
    created: strings(r.created),
    ...(typeof r.readyBefore === 'number' ? { readyBefore: r.readyBefore } : {}),
    ...parentOf(r.parent),
  };
}

function parentOf(v: unknown): Pick<RestartRunRecord, 'parent'> {
  const p = jsonObjectOf(JSON.stringify(v ?? null));
  if (!p || typeof p.id !== 'string') return {};
  return { parent: { id: p.id, namespaces: strings(p.namespaces) } };
}

/** What a rerun of a run over several namespaces does: the whole run to continue, and its namespaces already done. */
export interface MultiNamespaceResume {
  id: string;
  namespaces: string[];
  done: string[];
}

/**
 * The whole run over several namespaces a rerun continues: the latest one whose namespaces are not all done (a
 * namespace without its record, or with one not done, was not finished: interrupted in it, or before it began),
 * with the same executor and containers; undefined when there is none (a new run). `records` by namespace.
 */
export function multiNamespaceResume(records: ReadonlyMap<string, RestartRunRecord | undefined>, via: 'kruise' | 'client', containers: readonly string[]): MultiNamespaceResume | undefined {
  const runs = new Map<string, { namespaces: string[]; startedAt: string }>();
  for (const r of records.values()) {
    if (!r?.parent || r.via !== via || r.containers !== containers.join(',')) continue;
    const seen = runs.get(r.parent.id);
    if (!seen || r.startedAt < seen.startedAt) runs.set(r.parent.id, { namespaces: r.parent.namespaces, startedAt: r.startedAt });
  }
  const candidates = [...runs.entries()].sort((a, b) => (a[1].startedAt < b[1].startedAt ? 1 : -1));
  for (const [id, run] of candidates) {
    const done = run.namespaces.filter((ns) => {
      const r = records.get(ns);
      return r?.parent?.id === id && r.state === 'done';
    });
    if (done.length < run.namespaces.length) return { id, namespaces: run.namespaces, done };
    // The latest whole run finished: running the command again means restarting again.
    return undefined;
  }
  return undefined;
}

export function serializeRunRecord(record: RestartRunRecord): string {
  return JSON.stringify(record);
}

/**
 * The earlier run a rerun continues: one that did not end (interrupted, timed out, its process
 * killed) with the same executor and containers. A run that finished or failed is not resumed:
 * running the command again then means restarting again.
 */
export function resumableRun(record: RestartRunRecord | undefined, via: 'kruise' | 'client', containers: readonly string[]): RestartRunRecord | undefined {
  if (!record || record.state !== 'running') return undefined;
  return record.via === via && record.containers === containers.join(',') ? record : undefined;
}

/**
 * Pods a rerun leaves out of its checks and its work: those an unfinished client-side run deleted
 * (its own pods, now terminating) are that run's work in progress, which the rerun waits for rather
 * than calling them unrestartable or deleting them again.
 */
export function deletedByRun(record: RestartRunRecord | undefined, pod: { metadata: { uid?: string; deletionTimestamp?: string } }): boolean {
  return record?.via === 'client' && record.state === 'running' && Boolean(pod.metadata.deletionTimestamp) && record.pods.includes(pod.metadata.uid ?? '');
}

/** Pods an earlier run covers: created after it began (not among its pods), or given a CRR that the server accepted. */
export function coveredByRun(record: RestartRunRecord, podUid: string): 'new-pod' | 'crr-created' | undefined {
  if (!record.pods.includes(podUid)) return 'new-pod';
  if (record.created.includes(podUid)) return 'crr-created';
  return undefined;
}
