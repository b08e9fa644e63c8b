// Flux health expressions (CEL) of SidecarSet, BroadcastJob, AdvancedCronJob, ImagePullJob and
// ContainerRecreateRequest: the rules of gitops/health.ts (the oracle HEALTH_KINDS names as `gate`),
// read field by field as lua/sidecarset.ts and lua/jobs.ts read them for Argo CD, so that the two
// tools give one verdict. test/unit/kruise/gitops/cel.test.ts compares them with the oracle.
import { binds, clamp, ceil, fluxExpressions, isNum, isStr, isTrue, num, PERCENT_RE, str, tbl, tblField, whole, type FluxExpressions } from './prelude';

/** `t`: spec, status and metadata as maps (as in kinds.ts). */
const T: readonly [string, string] = ['t', `{'s': ${tbl('spec')}, 'st': ${tbl('status')}, 'md': ${tbl('metadata')}}`];

/** Whether a list field of a map holds an element (a map) for which `cond` (over `x`) holds; a map or scalar there has none, as Lua's ipairs sees none. */
function anyMap(m: string, f: string, cond: string): string {
  return `(has(${m}.${f}) && type(${m}.${f}) == list && ${m}.${f}.exists(x, type(x) == map && ${cond}))`;
}

/** A string field equal to a literal (a field of another type is not equal, as in Lua). */
const eq = (m: string, f: string, lit: string): string => `(${isStr(m, f)} && ${m}.${f} == '${lit}')`;

// SidecarSet: the matched pods are its replicas; the partition is read as a CloneSet's (kinds.ts
// CLONESET_KEPT: an integer, or a decimal percentage rounded up, below 100% keeping at most all
// but one); an unreadable partition, or a matchedPods that is not a whole number ≥ 0, keeps none.
const SIDECARSET_KEPT = (() => {
  const p = 'u.us.partition';
  const m = 'k.matched';
  const fromPercent = `[${ceil(`double(${p}.substring(0, size(${p}) - 1)) * ${m} / 100.0`)}].map(up, ${clamp(`(${m} > 1.0 && up == ${m} && ${p} != '100%' ? ${m} - 1.0 : up)`, '0.0', m)})[0]`;
  return `(!has(${p}) || !${whole(m)} || ${m} < 0.0 ? 0.0 : type(${p}) == int ? ${clamp(`double(${p})`, '0.0', m)} : type(${p}) == double ? (${whole(p)} ? ${clamp(p, '0.0', m)} : 0.0) : type(${p}) == string && ${p}.matches('${PERCENT_RE}') ? ${fromPercent} : 0.0)`;
})();

export const SIDECARSET_VERDICT_CEL = binds(
  [
    T,
    ['u', `{'us': ${tblField('t.s', 'updateStrategy')}}`],
    ['k', `{'matched': ${num('t.st', 'matchedPods', '0.0')}, 'updated': ${num('t.st', 'updatedPods', '0.0')}, 'updatedReady': ${num('t.st', 'updatedReadyPods', '0.0')}}`],
    // The partition's kept pods are clamped to matched, except when matched is unreadable (then min(0, matched)).
    ['p', `{'kept': [${SIDECARSET_KEPT}].map(x, x < k.matched ? x : k.matched)[0]}`],
    ['q', `{'expected': (k.matched - p.kept > 0.0 ? k.matched - p.kept : 0.0)}`],
  ],
  [
    `(${isNum('t.md', 'generation')} && ${num('t.st', 'observedGeneration', '0.0')} < double(t.md.generation)) ? 'Progressing'`,
    `(k.updatedReady > k.updated || k.updated > k.matched) ? 'Progressing'`,
    `(k.updated >= q.expected && k.updatedReady >= q.expected && k.matched - k.updated <= p.kept) ? 'Healthy'`,
    `${isTrue('u.us', 'paused')} ? 'Suspended'`,
    `'Progressing'`,
  ].join(' :\n'),
);

// BroadcastJob: a True Failed condition or phase failed → Degraded; a True Complete condition or
// phase completed → Healthy; paused (spec.paused or failurePolicy Pause) → Suspended; else Progressing.
const trueCondition = (kind: string): string => anyMap('t.st', 'conditions', `${eq('x', 'type', kind)} && ${eq('x', 'status', 'True')}`);

export const BROADCASTJOB_VERDICT_CEL = binds(
  [T, ['k', `{'phase': ${str('t.st', 'phase')}}`]],
  [
    `(${trueCondition('Failed')} || k.phase == 'failed') ? 'Degraded'`,
    `(${trueCondition('Complete')} || k.phase == 'completed') ? 'Healthy'`,
    `k.phase == 'paused' ? 'Suspended'`,
    `'Progressing'`,
  ].join(' :\n'),
);

// AdvancedCronJob: a scheduler is healthy while it schedules (the Jobs it starts have their own
// health), Suspended when spec.paused is true.
export const ADVANCED_CRONJOB_VERDICT_CEL = binds([T], `${isTrue('t.s', 'paused')} ? 'Suspended' : 'Healthy'`);

// ImagePullJob: done once completionTime is written, or (completionPolicy Never) once it started and
// nothing is pulling with every desired node counted; done with a failed node → Degraded.
export const IMAGEPULLJOB_VERDICT_CEL = binds(
  [
    T,
    ['c', `{'cp': ${tblField('t.s', 'completionPolicy')}}`],
    ['k', `{'desired': ${num('t.st', 'desired', '0.0')}, 'active': ${num('t.st', 'active', '0.0')}, 'succeeded': ${num('t.st', 'succeeded', '0.0')}, 'failed': ${num('t.st', 'failed', '0.0')}, 'never': ${eq('c.cp', 'type', 'Never')}}`],
    ['d', `{'done': ${isStr('t.st', 'completionTime')} || (k.never && ${isStr('t.st', 'startTime')} && k.active == 0.0 && k.succeeded + k.failed >= k.desired)}`],
  ],
  [`!d.done ? 'Progressing'`, `k.failed > 0.0 ? 'Degraded'`, `'Healthy'`].join(' :\n'),
);

// ContainerRecreateRequest: Progressing until phase Completed; then Degraded when a container's
// recreation failed or the controller completed it with a message (pod gone, deadline), else Healthy.
export const CONTAINER_RECREATE_REQUEST_VERDICT_CEL = binds(
  [T],
  [
    `!${eq('t.st', 'phase', 'Completed')} ? 'Progressing'`,
    `${anyMap('t.st', 'containerRecreateStates', eq('x', 'phase', 'Failed'))} ? 'Degraded'`,
    `${str('t.st', 'message')} != '' ? 'Degraded'`,
    `'Healthy'`,
  ].join(' :\n'),
);

export const SIDECARSET_FLUX: FluxExpressions = fluxExpressions(SIDECARSET_VERDICT_CEL);
export const BROADCASTJOB_FLUX: FluxExpressions = fluxExpressions(BROADCASTJOB_VERDICT_CEL);
export const ADVANCED_CRONJOB_FLUX: FluxExpressions = fluxExpressions(ADVANCED_CRONJOB_VERDICT_CEL);
export const IMAGEPULLJOB_FLUX: FluxExpressions = fluxExpressions(IMAGEPULLJOB_VERDICT_CEL);
export const CONTAINER_RECREATE_REQUEST_FLUX: FluxExpressions = fluxExpressions(CONTAINER_RECREATE_REQUEST_VERDICT_CEL);
