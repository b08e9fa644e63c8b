// The fold of a check's measurements into its outcome, as Argo Rollouts' AnalysisTemplate metrics are judged
// (argoproj/argo-rollouts docs "Analysis": count, failureLimit, inconclusiveLimit, consecutiveErrorLimit,
// consecutiveSuccessLimit; no mirror of its source was at hand, so the rules below are its documented
// semantics as we read them, each tested in test/unit/kruise/verify/measurements.test.ts):
// - a metric has failed once more than `failureLimit` measurements failed (default 0: the first failure);
// - inconclusive once more than `inconclusiveLimit` were inconclusive (default 0);
// - in error once more than `consecutiveErrorLimit` measurements in a row could not be taken (default 4);
//   a measurement that could be taken again resets that run; an errored metric fails the step, as an
//   Argo analysis in Error aborts the rollout;
// - with `successLimit` (Argo's consecutiveSuccessLimit) it has passed once that many measurements in a
//   row passed; reaching `count` without that run is inconclusive (Argo: neither limit met);
// - otherwise it has passed once `count` measurements were taken (errors count as taken) without any of
//   the above.
// Measurements are judged in order; the first rule met decides and no more are taken. Pure.

export type MeasurementOutcome = 'pass' | 'fail' | 'inconclusive' | 'error';

/** One measurement as taken: its outcome, the values it compared, and a line for people. */
export interface Measurement {
  /** 1-based. */
  index: number;
  /** ISO time it was taken. */
  at: string;
  outcome: MeasurementOutcome;
  /** The numbers the condition was applied to (a Prometheus vector has one per series). */
  values?: number[];
  message: string;
}

export interface MeasurePolicy {
  count: number;
  failureLimit: number;
  inconclusiveLimit: number;
  consecutiveErrorLimit: number;
  /** 0: off. */
  successLimit: number;
}

export const DEFAULT_POLICY: MeasurePolicy = { count: 1, failureLimit: 0, inconclusiveLimit: 0, consecutiveErrorLimit: 4, successLimit: 0 };

export type CheckPhase = 'running' | 'pass' | 'fail' | 'inconclusive' | 'error';

export interface CheckTally {
  phase: CheckPhase;
  /** Why it ended (or where it stands), in words. */
  reason: string;
  taken: number;
  passed: number;
  failed: number;
  inconclusive: number;
  errors: number;
}

export function foldMeasurements(policy: MeasurePolicy, outcomes: readonly MeasurementOutcome[]): CheckTally {
  const t: CheckTally = { phase: 'running', reason: '', taken: 0, passed: 0, failed: 0, inconclusive: 0, errors: 0 };
  let errorRun = 0;
  let passRun = 0;
  for (const o of outcomes) {
    t.taken++;
    if (o === 'pass') t.passed++;
    else if (o === 'fail') t.failed++;
    else if (o === 'inconclusive') t.inconclusive++;
    else t.errors++;
    errorRun = o === 'error' ? errorRun + 1 : 0;
    passRun = o === 'pass' ? passRun + 1 : 0;
    if (t.failed > policy.failureLimit) return end(t, 'fail', `${t.failed} of ${t.taken} measurements failed (failureLimit ${policy.failureLimit})`);
    if (t.inconclusive > policy.inconclusiveLimit) return end(t, 'inconclusive', `${t.inconclusive} of ${t.taken} measurements were inconclusive (inconclusiveLimit ${policy.inconclusiveLimit})`);
    if (errorRun > policy.consecutiveErrorLimit) return end(t, 'error', `${errorRun} measurements in a row could not be taken (consecutiveErrorLimit ${policy.consecutiveErrorLimit})`);
    if (policy.successLimit > 0 && passRun >= policy.successLimit) return end(t, 'pass', `${passRun} measurements in a row passed (successLimit ${policy.successLimit})`);
    if (t.taken >= policy.count) {
      if (policy.successLimit > 0) return end(t, 'inconclusive', `${policy.count} measurements taken without ${policy.successLimit} passing in a row (successLimit ${policy.successLimit})`);
      return end(t, 'pass', `${t.passed} of ${t.taken} measurements passed${t.failed ? ` (${t.failed} failed, failureLimit ${policy.failureLimit})` : ''}`);
    }
  }
  t.reason = `${t.taken} of ${policy.count} measurements taken`;
  return t;
}

function end(t: CheckTally, phase: CheckPhase, reason: string): CheckTally {
  return { ...t, phase, reason };
}

export type StepVerdict = 'pass' | 'fail' | 'inconclusive';

/**
 * A step's verdict from its checks' phases: every check passed → pass; any failed or in error → fail (the
 * canary is rolled back); otherwise (one inconclusive) → inconclusive: neither approved nor rolled back.
 */
export function stepVerdict(phases: readonly CheckPhase[]): StepVerdict {
  if (phases.some((p) => p === 'fail' || p === 'error')) return 'fail';
  if (phases.every((p) => p === 'pass')) return 'pass';
  return 'inconclusive';
}
