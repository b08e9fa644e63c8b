// Flux health expressions (CEL) of the workload kinds: each reads its fields as its adapter does
// (workloads/<kind>.ts, and as lua/<kind>.ts reads them for Argo CD), then the shared verdict
// (workload.ts). test/unit/kruise/gitops/cel.test.ts evaluates them with a conformant CEL
// implementation over every fixture and over seeded random objects, against evaluateRollout.
import { ceil, clamp, conditionsOf, fluxExpressions, isNum, isStr, isTrue, num, PERCENT_RE, str, tbl, tblField, whole, type FluxExpressions } from './prelude';
import { workloadVerdict, type WorkloadFields } from './workload';

/** `t`: spec, status and metadata as maps (a top-level field Flux does not hand over errors: see flux.ts). */
const OBJECT_TABLES: readonly [string, string] = ['t', `{'s': ${tbl('spec')}, 'st': ${tbl('status')}, 'md': ${tbl('metadata')}}`];

/** The first Progressing condition with a string status says ProgressDeadlineExceeded. */
const DEADLINE = `[${conditionsOf('t.st', 'Progressing', true)}].map(l, size(l) > 0 && has(l[0].reason) && type(l[0].reason) == string && l[0].reason == 'ProgressDeadlineExceeded')[0]`;

/** Fields read the same way by every workload kind: generation, minReadySeconds, the Progressing condition. */
function common(): Pick<WorkloadFields, 'minReadyZero' | 'generationHas' | 'generation' | 'observedGeneration' | 'deadlineExceeded'> {
  return {
    minReadyZero: `${num('t.s', 'minReadySeconds', '0.0')} <= 0.0`,
    generationHas: isNum('t.md', 'generation'),
    generation: num('t.md', 'generation', '0.0'),
    observedGeneration: num('t.st', 'observedGeneration', '0.0'),
    deadlineExceeded: `(${DEADLINE})`,
  };
}

/** CloneSet and Advanced StatefulSet status counts (the same names in both). */
function replicaCounts(availableFallback: string): Pick<WorkloadFields, 'replicas' | 'ready' | 'available' | 'updated' | 'statusUpdatedReadyHas' | 'statusUpdatedReady' | 'statusUpdatedAvailableHas' | 'statusUpdatedAvailable' | 'updateRevisionHas' | 'updateRevision' | 'currentRevisionHas' | 'currentRevision'> {
  return {
    replicas: num('t.st', 'replicas', '0.0'),
    ready: num('t.st', 'readyReplicas', '0.0'),
    available: num('t.st', 'availableReplicas', availableFallback),
    updated: num('t.st', 'updatedReplicas', '0.0'),
    statusUpdatedReadyHas: isNum('t.st', 'updatedReadyReplicas'),
    statusUpdatedReady: num('t.st', 'updatedReadyReplicas', '0.0'),
    statusUpdatedAvailableHas: isNum('t.st', 'updatedAvailableReplicas'),
    statusUpdatedAvailable: num('t.st', 'updatedAvailableReplicas', '0.0'),
    updateRevisionHas: isStr('t.st', 'updateRevision'),
    updateRevision: str('t.st', 'updateRevision'),
    currentRevisionHas: isStr('t.st', 'currentRevision'),
    currentRevision: str('t.st', 'currentRevision'),
  };
}

// CloneSet's partition (partition.ts explainCloneSetPartition): pods kept at the old revision, an
// integer, or a (decimal) percentage of replicas rounded up; a percentage below 100% updates at
// least one pod; anything unreadable keeps none. `p` is the partition, `r.desired` the replicas.
const CLONESET_KEPT = (() => {
  const p = 'r.rolling.partition';
  const pct = `double(${p}.substring(0, size(${p}) - 1)) * r.desired / 100.0`;
  const fromPercent = `[${ceil('x')}].map(up, ${clamp(`(r.desired > 1.0 && up == r.desired && ${p} != '100%' ? r.desired - 1.0 : up)`, '0.0', 'r.desired')})[0]`;
  return `(!has(${p}) ? 0.0 : type(${p}) == int ? ${clamp(`double(${p})`, '0.0', 'r.desired')} : type(${p}) == double ? (${whole(p)} ? ${clamp(p, '0.0', 'r.desired')} : 0.0) : type(${p}) == string && ${p}.matches('${PERCENT_RE}') ? [${pct}].map(x, ${fromPercent})[0] : 0.0)`;
})();

export const CLONESET_VERDICT_CEL = workloadVerdict(
  [
    OBJECT_TABLES,
    ['u', `{'us': ${tblField('t.s', 'updateStrategy')}}`],
    // v1alpha1 keeps partition/paused under spec.updateStrategy, v1beta1 under its rollingUpdate; another version by its shape.
    ['v', `{'beta': apiVersion.endsWith('/v1beta1') || (!apiVersion.endsWith('/v1alpha1') && (${str('u.us', 'type')} == 'RollingUpdate' || has(u.us.rollingUpdate)))}`],
    ['r', `{'rolling': (v.beta ? ${tblField('u.us', 'rollingUpdate')} : u.us), 'desired': ${num('t.s', 'replicas', '1.0')}}`],
  ],
  {
    desired: 'r.desired',
    // Under OnDelete the controller still reads the partition (v1beta1: only with a rollingUpdate).
    keptBySpec: `(${str('u.us', 'type')} == 'OnDelete' && v.beta && !has(u.us.rollingUpdate) ? 0.0 : ${CLONESET_KEPT})`,
    statusExpectedHas: isNum('t.st', 'expectedUpdatedReplicas'),
    statusExpected: num('t.st', 'expectedUpdatedReplicas', '0.0'),
    ...replicaCounts('0.0'),
    ...common(),
    paused: isTrue('r.rolling', 'paused'),
  },
  { countsOldPods: true, revisionsMustSettle: true },
);

// Advanced StatefulSet: an integer partition ≥ 0 (no percentages); OnDelete rolls nothing; available falls back to ready.
export const ADVANCED_STATEFULSET_VERDICT_CEL = workloadVerdict(
  [
    OBJECT_TABLES,
    ['u', `{'us': ${tblField('t.s', 'updateStrategy')}}`],
    ['r', `{'rolling': ${tblField('u.us', 'rollingUpdate')}, 'desired': ${num('t.s', 'replicas', '1.0')}}`],
  ],
  {
    desired: 'r.desired',
    keptBySpec: `(${str('u.us', 'type')} != 'OnDelete' && ${isNum('r.rolling', 'partition')} && ${whole('double(r.rolling.partition)')} && double(r.rolling.partition) >= 0.0 ? ${clamp('double(r.rolling.partition)', '0.0', 'r.desired')} : 0.0)`,
    statusExpectedHas: 'false',
    statusExpected: '0.0',
    ...replicaCounts(num('t.st', 'readyReplicas', '0.0')),
    ...common(),
    paused: isTrue('r.rolling', 'paused'),
  },
  { countsOldPods: false, revisionsMustSettle: false },
);

// Advanced DaemonSet: the scheduled nodes are its replicas; the partition an integer or a whole
// percentage of the nodes rounded down (partition.ts explainAdvancedDaemonSetPartition).
const DAEMONSET_KEPT = (() => {
  const p = 'r.rolling.partition';
  const fromPercent = `[double(${p}.substring(0, size(${p}) - 1))].map(w, w > 100.0 ? 0.0 : ${clamp('double(int(w * r.desired / 100.0))', '0.0', 'r.desired')})[0]`;
  return `(!has(${p}) ? 0.0 : type(${p}) == int || type(${p}) == double ? (${whole(`double(${p})`)} && double(${p}) >= 0.0 ? ${clamp(`double(${p})`, '0.0', 'r.desired')} : 0.0) : type(${p}) == string && ${p}.matches('^[0-9]+%$') ? ${fromPercent} : 0.0)`;
})();

export const ADVANCED_DAEMONSET_VERDICT_CEL = workloadVerdict(
  [
    OBJECT_TABLES,
    ['u', `{'us': ${tblField('t.s', 'updateStrategy')}}`],
    ['r', `{'rolling': ${tblField('u.us', 'rollingUpdate')}, 'desired': ${num('t.st', 'desiredNumberScheduled', '0.0')}}`],
  ],
  {
    desired: 'r.desired',
    keptBySpec: `(${str('u.us', 'type')} == 'OnDelete' ? 0.0 : ${DAEMONSET_KEPT})`,
    statusExpectedHas: 'false',
    statusExpected: '0.0',
    replicas: num('t.st', 'currentNumberScheduled', '0.0'),
    ready: num('t.st', 'numberReady', '0.0'),
    available: num('t.st', 'numberAvailable', '0.0'),
    updated: num('t.st', 'updatedNumberScheduled', '0.0'),
    statusUpdatedReadyHas: 'false',
    statusUpdatedReady: '0.0',
    statusUpdatedAvailableHas: 'false',
    statusUpdatedAvailable: '0.0',
    // No currentRevision: the revisions never settle the verdict, so the update revision is not read.
    updateRevisionHas: 'false',
    updateRevision: "''",
    currentRevisionHas: 'false',
    currentRevision: "''",
    ...common(),
    paused: isTrue('r.rolling', 'paused'),
  },
  { countsOldPods: false, revisionsMustSettle: false },
);

export const CLONESET_FLUX: FluxExpressions = fluxExpressions(CLONESET_VERDICT_CEL);
export const ADVANCED_STATEFULSET_FLUX: FluxExpressions = fluxExpressions(ADVANCED_STATEFULSET_VERDICT_CEL);
export const ADVANCED_DAEMONSET_FLUX: FluxExpressions = fluxExpressions(ADVANCED_DAEMONSET_VERDICT_CEL);
