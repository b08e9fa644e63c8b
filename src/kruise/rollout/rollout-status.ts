// The Rollout status as the controller writes it (api/v1beta1/rollout_types.go, v0.6.2) and the
// condition helpers of pkg/util/rollout_utils.go / rollout_progressing.go, pure.
// Go declares most fields without omitempty and the real CRD requires them (status.currentStepIndex,
// currentStepState; canaryStatus.canaryReplicas, canaryReadyReplicas, canaryRevision, currentStepState,
// finalisingStep, nextStepIndex, podTemplateHash; conditions' reason and message), so they are always written.
import type { KubeObject } from '../types';
import { at, isObj, numAt, strAt } from '../workloads/access';

export interface RolloutConditionObj {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** CommonStatus + CanaryStatus (canary) or BlueGreenStatus fields (blue-green spells the counts updated*). */
export interface SubStatusObj {
  observedWorkloadGeneration?: number;
  observedRolloutID?: string;
  rolloutHash?: string;
  stableRevision?: string;
  canaryRevision: string;
  podTemplateHash: string;
  canaryReplicas: number;
  canaryReadyReplicas: number;
  currentStepIndex: number;
  currentStepState: string;
  nextStepIndex: number;
  finalisingStep: string;
  message?: string;
  lastUpdateTime?: string;
}

export interface RolloutStatusObj {
  observedGeneration?: number;
  phase?: string;
  message?: string;
  conditions?: RolloutConditionObj[];
  canaryStatus?: SubStatusObj;
  currentStepIndex: number;
  currentStepState: string;
}

export const ROLLOUT_PHASE = {
  Initial: 'Initial',
  Healthy: 'Healthy',
  Progressing: 'Progressing',
  Terminating: 'Terminating',
  Disabled: 'Disabled',
  Disabling: 'Disabling',
} as const;

export function emptySubStatus(): SubStatusObj {
  return { canaryRevision: '', podTemplateHash: '', canaryReplicas: 0, canaryReadyReplicas: 0, currentStepIndex: 0, currentStepState: '', nextStepIndex: 0, finalisingStep: '' };
}

/** Reads a stored Rollout's status (v1beta1 shape) into the writable form. */
export function readStatusObj(rollout: KubeObject): RolloutStatusObj {
  const s = at(rollout, 'status');
  const sub = at(s, 'canaryStatus');
  const conds = at(s, 'conditions');
  const out: RolloutStatusObj = {
    currentStepIndex: numAt(s, 'currentStepIndex') ?? 0,
    currentStepState: strAt(s, 'currentStepState') ?? '',
  };
  const og = numAt(s, 'observedGeneration');
  if (og !== undefined) out.observedGeneration = og;
  const phase = strAt(s, 'phase');
  if (phase) out.phase = phase;
  const message = strAt(s, 'message');
  if (message !== undefined) out.message = message;
  if (Array.isArray(conds)) {
    out.conditions = conds.filter(isObj).map((c) => {
      const cond: RolloutConditionObj = { type: strAt(c, 'type') ?? '', status: strAt(c, 'status') ?? '', reason: strAt(c, 'reason') ?? '', message: strAt(c, 'message') ?? '' };
      const u = strAt(c, 'lastUpdateTime');
      const t = strAt(c, 'lastTransitionTime');
      if (u) cond.lastUpdateTime = u;
      if (t) cond.lastTransitionTime = t;
      return cond;
    });
  }
  if (isObj(sub)) {
    const st = emptySubStatus();
    for (const k of ['observedRolloutID', 'rolloutHash', 'stableRevision', 'canaryRevision', 'podTemplateHash', 'currentStepState', 'finalisingStep', 'message', 'lastUpdateTime'] as const) {
      const v = strAt(sub, k);
      if (v !== undefined) st[k] = v;
    }
    for (const k of ['observedWorkloadGeneration', 'canaryReplicas', 'canaryReadyReplicas', 'currentStepIndex', 'nextStepIndex'] as const) {
      const v = numAt(sub, k);
      if (v !== undefined) st[k] = v;
    }
    out.canaryStatus = st;
  }
  return out;
}

export function getCondition(status: RolloutStatusObj, type: string): RolloutConditionObj | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** util.NewRolloutCondition. */
export function newCondition(type: string, status: string, reason: string, message: string, now: string): RolloutConditionObj {
  return { type, status, reason, message, lastUpdateTime: now, lastTransitionTime: now };
}

/** util.SetRolloutCondition: same status/reason/message changes nothing; same status keeps the transition time. */
export function setCondition(status: RolloutStatusObj, cond: RolloutConditionObj): void {
  const list = status.conditions ?? [];
  const cur = list.find((c) => c.type === cond.type);
  if (cur && cur.status === cond.status && cur.reason === cond.reason && cur.message === cond.message) return;
  const next = { ...cond };
  if (cur && cur.status === cond.status && cur.lastTransitionTime) next.lastTransitionTime = cur.lastTransitionTime;
  status.conditions = [...list.filter((c) => c.type !== cond.type), next];
}

export function removeCondition(status: RolloutStatusObj, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
}

/** rollout_progressing.go progressingStateTransition. */
export function progressingTransition(status: RolloutStatusObj, condStatus: string, reason: string, message: string, now: string): void {
  const cur = getCondition(status, 'Progressing');
  const cond = cur ? { ...cur, status: condStatus, reason, message: message !== '' ? message : cur.message, lastUpdateTime: now } : newCondition('Progressing', condStatus, reason, message, now);
  setCondition(status, cond);
  status.message = cond.message;
}

/** rollout_progressing.go setRolloutSucceededCondition (reason and message stay empty). */
export function setSucceeded(status: RolloutStatusObj, condStatus: string, now: string): void {
  const cur = getCondition(status, 'Succeeded');
  setCondition(status, cur ? { ...cur, status: condStatus, lastUpdateTime: now } : newCondition('Succeeded', condStatus, '', '', now));
}

/** updateRolloutStatusInternal: the top-level mirrors follow the sub-status. */
export function mirrorStepFields(status: RolloutStatusObj): void {
  if (status.canaryStatus) {
    status.currentStepIndex = status.canaryStatus.currentStepIndex;
    status.currentStepState = status.canaryStatus.currentStepState;
  }
}
