// The view model of `describe rollout`: a pure function from the Rollout, its workload, the workload's
// pods and the BatchRelease to plain data the printer lays out. Facts used (openkruise/rollouts v0.6.2):
// - pods carry `rollouts.kruise.io/rollout-batch-id` (1-based batch) and `rollouts.kruise.io/rollout-id`
//   (pkg/controller/batchrelease/labelpatch/patcher.go);
// - a pod's revision is its `controller-revision-hash` (Kruise workloads, StatefulSet) or
//   `pod-template-hash` (Deployment ReplicaSets), compared with the Rollout's stable/canary revisions;
// - BatchRelease.status.canaryStatus.currentBatch is 0-based, batchState Upgrading|Verifying|Ready.
import type { KubeObject, Pod } from '../types';
import { at, numAt, strAt } from '../workloads/access';
import { templateContainers } from '../workloads/access';
import { POD_TEMPLATE_HASH_LABEL, REVISION_HASH_LABEL, revisionLabelMatches } from '../rules/revisions';
import { isReady } from '../rollout-pods';
import { failingContainer } from '../progress';
import { readRollout, workloadReplicas } from './read';
import { evaluateRolloutRelease, type RolloutRelease } from './gate';
import { isFinalFullStep } from './step-math';
import { ROLLOUT_BATCH_ID_LABEL, ROLLOUT_ID_LABEL, STEP_STATE } from './labels';
import type { RolloutCondition, RolloutStrategyKind } from './types';
import type { IntOrString } from '../intstr';
import { compareText } from '../../lib/compare';

export type StepProgress = 'done' | 'current' | 'pending';
/** How a step ends its pause: a person, a timer, or at once (no pause, or a final "100%" step). */
export type StepPauseKind = 'manual' | 'timed' | 'none';

export interface DescribeStep {
  index: number;
  replicas?: IntOrString;
  canaryReplicas?: number;
  traffic?: string;
  pause: StepPauseKind;
  pauseSeconds?: number;
  progress: StepProgress;
  /** The step state, on the current step only. */
  state?: string;
  /** On the current step in a timed StepPaused: when the pause ends (ms) and the seconds left. */
  pauseEndsAt?: number;
  pauseLeftSeconds?: number;
}

export interface DescribeRevision {
  revision?: string;
  /** container=image, from the workload's template for the canary side, from the pods for the stable side. */
  images: string[];
  pods: number;
  readyPods: number;
}

export interface DescribePod {
  name: string;
  ready: boolean;
  phase?: string;
  /** A container waiting for a failing reason (ImagePullBackOff, CrashLoopBackOff, ...): what keeps it from ready. */
  reason?: string;
  /** Seconds since creation (undefined without a creationTimestamp). */
  ageSeconds?: number;
}

export interface DescribePodGroup {
  role: 'canary' | 'stable' | 'other';
  revision?: string;
  /** The batch the pod was released in (rollout-batch-id), when labelled. */
  batchId?: string;
  rolloutId?: string;
  pods: DescribePod[];
}

export interface DescribeBatch {
  /** 1-based, like the steps. */
  currentBatch: number;
  batchState?: string;
  updatedReplicas?: number;
  updatedReadyReplicas?: number;
  batches: number;
}

export interface RolloutDescribeView {
  name: string;
  namespace: string;
  apiVersion: string;
  strategy: RolloutStrategyKind;
  workload: { kind: string; name: string; found: boolean; replicas?: number };
  phase?: string;
  message?: string;
  paused: boolean;
  disabled: boolean;
  rolloutID?: string;
  observedRolloutID?: string;
  currentStepIndex?: number;
  currentStepState?: string;
  nextStepIndex?: number;
  trafficWeight?: string;
  steps: DescribeStep[];
  stable: DescribeRevision;
  canary: DescribeRevision;
  batch?: DescribeBatch;
  podGroups: DescribePodGroup[];
  /** Newest first. */
  conditions: RolloutCondition[];
  /** The gate's verdict (state and one-line message). */
  verdict: RolloutRelease;
}

const STEP_FINISHED: ReadonlySet<string> = new Set([STEP_STATE.Ready, STEP_STATE.Completed]);

export function describeRollout(
  rollout: KubeObject,
  workload: KubeObject | null | undefined,
  pods: readonly Pod[],
  batchRelease: KubeObject | undefined,
  now: number,
): RolloutDescribeView {
  const view = readRollout(rollout, workload);
  const s = view.status;
  const verdict = evaluateRolloutRelease(rollout, workload, now);
  const allDone = verdict.state === 'Complete';
  const current = s.currentStepIndex;
  const steps: DescribeStep[] = view.steps.map((st) => {
    const isCurrent = !allDone && current === st.index;
    const pause: StepPauseKind = isFinalFullStep(view.steps, st.index, view.strategy) ? 'none' : st.pauseSeconds === undefined ? 'manual' : 'timed';
    const progress: StepProgress = allDone || (current !== undefined && st.index < current) || (isCurrent && STEP_FINISHED.has(s.currentStepState ?? '')) ? 'done' : isCurrent ? 'current' : 'pending';
    const out: DescribeStep = { index: st.index, replicas: st.replicas, canaryReplicas: st.canaryReplicas, traffic: st.traffic, pause, pauseSeconds: st.pauseSeconds, progress };
    if (isCurrent) {
      out.state = s.currentStepState;
      if (pause === 'timed' && s.currentStepState === STEP_STATE.Paused && verdict.pauseEndsAt !== undefined) {
        out.pauseEndsAt = verdict.pauseEndsAt;
        out.pauseLeftSeconds = Math.max(0, Math.ceil((verdict.pauseEndsAt - now) / 1000));
      }
    }
    return out;
  });

  const podRevision = (p: Pod): string | undefined => p.metadata.labels?.[REVISION_HASH_LABEL] ?? p.metadata.labels?.[POD_TEMPLATE_HASH_LABEL];
  // A release cancelled by rolling the workload back ends with canaryRevision equal to stableRevision
  // (fixture v1beta1-cancelled.yaml): pods at that revision are stable, and podTemplateHash still names
  // the abandoned canary, whose leftover pods are neither side.
  const backAtStable = s.canaryRevision !== undefined && s.canaryRevision === s.stableRevision;
  const roleOf = (p: Pod): DescribePodGroup['role'] => {
    const rev = podRevision(p);
    if (rev === undefined) return 'other';
    if (!backAtStable && s.canaryRevision && revisionLabelMatches(rev, s.canaryRevision)) return 'canary';
    if (!backAtStable && s.podTemplateHash && revisionLabelMatches(rev, s.podTemplateHash)) return 'canary';
    if (s.stableRevision && revisionLabelMatches(rev, s.stableRevision)) return 'stable';
    return 'other';
  };
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  const groups = new Map<string, DescribePodGroup>();
  for (const p of [...live].sort((a, b) => compareText(a.metadata.name ?? '', b.metadata.name ?? ''))) {
    const role = roleOf(p);
    // Batch labels stay on pods after their release (BatchRelease does not remove them): they say
    // which batch a pod belongs to only for the canary side of the release under way.
    const batchId = role === 'canary' ? p.metadata.labels?.[ROLLOUT_BATCH_ID_LABEL] : undefined;
    const rolloutId = role === 'canary' ? p.metadata.labels?.[ROLLOUT_ID_LABEL] : undefined;
    const revision = podRevision(p);
    const key = `${role}\u0000${revision ?? ''}\u0000${batchId ?? ''}\u0000${rolloutId ?? ''}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { role, revision, batchId, rolloutId, pods: [] }));
    const created = Date.parse(p.metadata.creationTimestamp ?? '');
    g.pods.push({ name: p.metadata.name ?? '', ready: isReady(p), phase: p.status?.phase, reason: failingContainer(p)?.reason, ageSeconds: Number.isFinite(created) ? Math.max(0, Math.floor((now - created) / 1000)) : undefined });
  }
  const ROLE_ORDER = { canary: 0, stable: 1, other: 2 } as const;
  const podGroups = [...groups.values()].sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || Number(a.batchId ?? 0) - Number(b.batchId ?? 0));

  const side = (role: 'canary' | 'stable', revision: string | undefined): DescribeRevision => {
    const mine = live.filter((p) => roleOf(p) === role);
    let images: string[] = [];
    if (role === 'canary' && workload) images = templateContainers(workload).filter((c) => !c.init && c.image).map((c) => `${c.name}=${c.image}`);
    else if (mine[0]) images = (mine[0].spec.containers ?? []).map((c) => `${c.name}=${c.image ?? ''}`);
    return { revision, images, pods: mine.length, readyPods: mine.filter(isReady).length };
  };

  return {
    name: view.name,
    namespace: view.namespace,
    apiVersion: `rollouts.kruise.io/${view.apiVersion}`,
    strategy: view.strategy,
    workload: {
      kind: view.workloadRef?.kind ?? '',
      name: view.workloadRef?.name ?? '',
      found: workload !== null && workload !== undefined,
      replicas: workload ? workloadReplicas(workload) : undefined,
    },
    phase: s.phase,
    message: s.message,
    paused: view.paused,
    disabled: view.disabled,
    rolloutID: view.rolloutID,
    observedRolloutID: s.observedRolloutID,
    currentStepIndex: current,
    currentStepState: s.currentStepState,
    nextStepIndex: s.nextStepIndex,
    trafficWeight: verdict.trafficWeight,
    steps,
    stable: side('stable', s.stableRevision),
    canary: side('canary', s.canaryRevision),
    batch: batchRelease ? readBatch(batchRelease) : undefined,
    podGroups,
    conditions: [...s.conditions].sort((a, b) => compareText(b.lastUpdateTime ?? b.lastTransitionTime ?? '', a.lastUpdateTime ?? a.lastTransitionTime ?? '')),
    verdict,
  };
}

function readBatch(br: KubeObject): DescribeBatch {
  const batches = at(br, 'spec', 'releasePlan', 'batches');
  return {
    currentBatch: (numAt(br, 'status', 'canaryStatus', 'currentBatch') ?? 0) + 1,
    batchState: strAt(br, 'status', 'canaryStatus', 'batchState'),
    updatedReplicas: numAt(br, 'status', 'canaryStatus', 'updatedReplicas'),
    updatedReadyReplicas: numAt(br, 'status', 'canaryStatus', 'updatedReadyReplicas'),
    batches: Array.isArray(batches) ? batches.length : 0,
  };
}
