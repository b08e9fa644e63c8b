// The CloneSet Progressing condition (progressDeadlineSeconds, Kruise v1.9 cloneset_status.go
// calculateProgressingStatus and cloneset_utils.go), and when to look again for the deadline.
import type { CloneSetStatus } from './cloneset';
import { isoSeconds } from './cloneset-inplace';

export interface ProgressingInput {
  progressDeadlineSeconds?: number;
  paused: boolean;
  specReplicas: number;
  /** The status computed in this sync (counts, revisions, expectedUpdatedReplicas). */
  status: CloneSetStatus;
  /** expectedUpdatedReplicas as Kruise computes it (also when it is omitted from JSON). */
  expectedUpdatedReplicas: number;
  /** The Progressing condition carried over from the stored status (Kruise copies the conditions). */
  previousCondition?: Record<string, string>;
  now: Date;
}

/** Kruise writes no Progressing condition without a deadline or with MaxInt32 (HasProgressDeadline). */
const MAX_INT32 = 2147483647;

/**
 * The Progressing condition (Kruise v1.9 cloneset_status.go calculateProgressingStatus), first match:
 * CloneSetAvailable, CloneSetPaused (True), ProgressPartitionAvailable, ProgressDeadlineExceeded
 * (False; once written it stays until one of the three above), CloneSetUpdated. Like Kruise's
 * SetCloneSetCondition the stored condition is kept as it is while status and reason stay the same,
 * so the deadline runs from the last change of reason, not from the last change of counts.
 */
export function progressingCondition(input: ProgressingInput): Record<string, string> | undefined {
  const pds = input.progressDeadlineSeconds;
  if (pds === undefined || pds === null || pds === MAX_INT32) return undefined;
  const { status: s, previousCondition: prev, now } = input;
  const set = (status: string, reason: string, message: string): Record<string, string> => {
    if (prev && prev.status === status && prev.reason === reason) return prev;
    const ts = isoSeconds(now);
    const lastTransitionTime = prev && prev.status === status ? prev.lastTransitionTime ?? ts : ts;
    return { type: 'Progressing', status, lastUpdateTime: ts, lastTransitionTime, reason, message };
  };
  const spec = input.specReplicas;
  // CloneSetAvailable (cloneset_utils.go)
  if (s.currentRevision === s.updateRevision && s.replicas === spec && s.updatedReplicas === spec && s.updatedAvailableReplicas === spec) {
    return set('True', 'CloneSetAvailable', 'CloneSet is available');
  }
  if (input.paused) return set('True', 'CloneSetPaused', 'CloneSet is paused');
  // CloneSetPartitionAvailable
  const expected = input.expectedUpdatedReplicas;
  if (expected < spec && expected <= s.updatedAvailableReplicas) {
    return set('True', 'ProgressPartitionAvailable', 'CloneSet has been paused due to partition ready');
  }
  // CloneSetDeadlineExceeded: judged on the carried condition, whatever its reason
  if (prev) {
    const since = Date.parse(prev.lastUpdateTime ?? '');
    if (prev.reason === 'ProgressDeadlineExceeded' || (Number.isFinite(since) && since + pds * 1000 < now.getTime())) {
      return set('False', 'ProgressDeadlineExceeded', `CloneSet revision ${s.updateRevision} has timed out progressing`);
    }
  }
  return set('True', 'CloneSetUpdated', 'CloneSet is progressing');
}

/**
 * Ms until the progress deadline passes (for re-queueing), like getRequeueSecondsFromCondition:
 * only while the condition is CloneSetUpdated. A little past the deadline, as Kruise's check is strict.
 */
export function msUntilProgressDeadline(cond: Record<string, string> | undefined, deadlineSeconds: number | undefined, now: Date): number | undefined {
  if (!cond || deadlineSeconds === undefined || cond.reason !== 'CloneSetUpdated') return undefined;
  const since = Date.parse(cond.lastUpdateTime ?? '');
  if (!Number.isFinite(since)) return undefined;
  return Math.max(0, since + deadlineSeconds * 1000 - now.getTime()) + 5;
}
