// The workload verdict in CEL (progress.ts evaluateWhole from the object alone, as lua/workload.ts
// has it), shared by CloneSet, Advanced StatefulSet and Advanced DaemonSet: each kind binds its
// fields the way its adapter reads them (workloads/<kind>.ts) into the map `k`, then this decides.
//   Complete / PartitionComplete → Healthy; Progressing → Progressing; Paused → Suspended; Failed → Degraded.
import { binds, clamp } from './prelude';

/**
 * CEL expressions (over the kind's earlier bindings) of the fields the verdict reads. Optional
 * status counts come as a presence test and a value (`*Has`); numbers are doubles.
 */
export interface WorkloadFields {
  desired: string;
  keptBySpec: string;
  statusExpectedHas: string;
  statusExpected: string;
  replicas: string;
  ready: string;
  available: string;
  updated: string;
  statusUpdatedReadyHas: string;
  statusUpdatedReady: string;
  statusUpdatedAvailableHas: string;
  statusUpdatedAvailable: string;
  updateRevisionHas: string;
  updateRevision: string;
  currentRevisionHas: string;
  currentRevision: string;
  /** Whether spec.minReadySeconds is 0 (or absent or negative). */
  minReadyZero: string;
  generationHas: string;
  generation: string;
  /** status.observedGeneration, 0 when absent. */
  observedGeneration: string;
  /** Whether the first Progressing condition (with a string status) says ProgressDeadlineExceeded. */
  deadlineExceeded: string;
  paused: string;
}

export interface WorkloadRules {
  /** CloneSet: pods of the old revision count against the partition once the revisions agree (a CEL boolean where the object decides: a UnitedDeployment's subset kind). */
  countsOldPods: boolean | string;
  /** CloneSet: complete only once currentRevision caught up with updateRevision. */
  revisionsMustSettle: boolean;
}

const max0 = (v: string): string => `(${v} > 0.0 ? ${v} : 0.0)`;

/** The verdict ('Healthy' | 'Progressing' | 'Suspended' | 'Degraded') after the kind's own bindings. */
export function workloadVerdict(kindBindings: ReadonlyArray<readonly [string, string]>, f: WorkloadFields, rules: WorkloadRules): string {
  const fieldsMap = `{${Object.entries(f).map(([key, expr]) => `'${key}': ${expr}`).join(', ')}}`;
  const sameRevision = `(k.updateRevisionHas && k.currentRevisionHas && (k.currentRevision == k.updateRevision || k.currentRevision.substring(k.currentRevision.lastIndexOf('-') + 1) == k.updateRevision.substring(k.updateRevision.lastIndexOf('-') + 1)))`;
  const d = `{'specExpected': ${clamp('(k.statusExpectedHas ? k.statusExpected : k.desired - k.keptBySpec)', '0.0', 'k.desired')}, 'same': ${sameRevision}}`;
  const counted = clamp('(k.replicas - k.updated)', '0.0', '(k.desired - d.specExpected)');
  const keptWhenSame = typeof rules.countsOldPods === 'string' ? `(${rules.countsOldPods} ? ${counted} : 0.0)` : rules.countsOldPods ? counted : '0.0';
  const e = `{'kept': (d.same ? ${keptWhenSame} : k.desired - d.specExpected), 'updatedReady': (k.statusUpdatedReadyHas ? k.statusUpdatedReady : ${clamp(`(k.ready - ${max0('(k.replicas - k.updated)')})`, '0.0', 'k.updated')})}`;
  const g = `{'expected': k.desired - e.kept, 'updatedAvailable': (k.statusUpdatedAvailableHas ? k.statusUpdatedAvailable : (k.minReadyZero ? e.updatedReady : ${clamp(`(k.available - ${max0('(k.replicas - k.updated)')})`, '0.0', 'e.updatedReady')}))}`;
  const settled = rules.revisionsMustSettle ? '(!k.currentRevisionHas || d.same)' : 'true';
  const complete = `(k.updated >= k.desired && e.updatedReady >= k.desired && g.updatedAvailable >= k.desired && k.replicas == k.desired && k.available >= k.desired && ${settled})`;
  const partitionDone = `(e.kept > 0.0 && k.updated >= g.expected && e.updatedReady >= g.expected && g.updatedAvailable >= g.expected && k.replicas - k.updated >= e.kept && k.updated <= g.expected)`;
  const countsDisagree = `(k.updated > k.replicas || k.ready > k.replicas || (k.statusUpdatedReadyHas && k.statusUpdatedReady > k.updated) || (k.statusUpdatedAvailableHas && k.statusUpdatedReadyHas && k.statusUpdatedAvailable > k.statusUpdatedReady))`;
  const verdict = [
    `(k.generationHas && k.observedGeneration < k.generation) ? 'Progressing'`,
    `${countsDisagree} ? 'Progressing'`,
    `(${complete} || ${partitionDone}) ? 'Healthy'`,
    `k.deadlineExceeded ? 'Degraded'`,
    `k.paused ? 'Suspended'`,
    `'Progressing'`,
  ].join(' :\n');
  return binds([...kindBindings, ['k', fieldsMap], ['d', d], ['e', e], ['g', g]], verdict);
}
