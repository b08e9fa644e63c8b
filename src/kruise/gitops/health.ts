// Our gate's verdicts as Argo CD health statuses: what the generated health scripts must return
// (the oracle of test/unit/kruise/gitops/lua.test.ts). Exit 0 → Healthy, 1 → Degraded, 4 (not yet)
// → Progressing, or Suspended when only a person resuming or approving moves it on.
import type { KubeObject } from '../types';
import { evaluateRollout, evaluateRolloutWith, type RolloutState } from '../progress';
import { unitedDeploymentAdapter } from '../workloads/uniteddeployment';
import type { WorkloadAdapter } from '../workloads/types';
import { evaluateRolloutRelease, type RolloutReleaseState } from '../rollout/gate';
import { evaluateSidecarSetRollout } from '../progress-sidecarset';
import { evaluateBroadcastJob } from '../progress-broadcastjob';

export type ArgoHealth = 'Healthy' | 'Progressing' | 'Suspended' | 'Degraded' | 'Missing' | 'Unknown';

export function workloadStateHealth(state: RolloutState): ArgoHealth {
  switch (state) {
    case 'Complete':
    case 'PartitionComplete':
      return 'Healthy';
    case 'Paused':
      return 'Suspended';
    case 'Failed':
    case 'TimedOut':
      return 'Degraded';
    default:
      return 'Progressing';
  }
}

/** A workload's health (CloneSet, Advanced StatefulSet) from the object alone (Argo CD gives a health script no pods). */
export function workloadHealth(obj: KubeObject, now: number): ArgoHealth {
  return workloadStateHealth(evaluateRollout(obj, [], now).state);
}

export const cloneSetHealth = workloadHealth;

export function releaseStateHealth(state: RolloutReleaseState): ArgoHealth {
  switch (state) {
    case 'Complete':
      return 'Healthy';
    case 'Failed':
      return 'Degraded';
    case 'StepPaused':
    case 'Paused':
    case 'Blocked':
      return 'Suspended';
    default:
      return 'Progressing';
  }
}

/**
 * A Kruise Rollout's health from the Rollout alone (its release verdict, until complete). A disabled Rollout
 * drives no release: `rollout status` then judges its workload alone (gate.ts releaseStage 'none'), and in
 * Argo CD the workload carries its own health; the Rollout itself is Healthy once the controller has disabled
 * it (phase Disabled), Progressing while it hands the workload back (Disabling) or has not acted yet.
 */
export function rolloutHealth(obj: KubeObject, now: number): ArgoHealth {
  const phase = (obj.status as { phase?: string } | undefined)?.phase;
  const disabled = (obj.spec as { disabled?: boolean } | undefined)?.disabled === true;
  if (phase === 'Disabling') return 'Progressing';
  if (phase === 'Disabled') return disabled ? 'Healthy' : 'Progressing';
  if (disabled && phase !== 'Terminating' && !(phase === 'Initial' && (obj.status as { message?: string }).message === 'Workload Not Found')) return 'Progressing';
  return releaseStateHealth(evaluateRolloutRelease(obj, undefined, now).state);
}

/** A SidecarSet's health from the object alone (rollout status's verdict without pods: the status counts decide). */
export function sidecarSetHealth(obj: KubeObject, now: number): ArgoHealth {
  return workloadStateHealth(evaluateSidecarSetRollout(obj, [], now).state);
}

/** A BroadcastJob's health from the object alone (rollout status's completion verdict: Complete → Healthy, paused → Suspended). */
export function broadcastJobHealth(obj: KubeObject, now: number): ArgoHealth {
  return workloadStateHealth(evaluateBroadcastJob(obj, [], now).state);
}

// The kinds `rollout status` does not wait for have no gate of ours: their rules are written here
// from Kruise's API types and controllers (openkruise/kruise master, 2026-07), and the Lua agrees.

export interface KindHealth {
  status: ArgoHealth;
  message: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const record = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * AdvancedCronJob (apis/apps/v1alpha1/advancedcronjob_types.go: spec.paused, status.active,
 * status.lastScheduleTime). A scheduler is healthy while it schedules: the Jobs or BroadcastJobs it
 * starts carry their own health (Argo CD shows them as its children), so running ones do not make
 * it Progressing, which would flap at every tick of a busy schedule. Paused → Suspended.
 */
export function advancedCronJobHealth(obj: KubeObject): KindHealth {
  const spec = record(obj.spec);
  const status = record(obj.status);
  const active = Array.isArray(status.active) ? status.active.length : 0;
  const last = typeof status.lastScheduleTime === 'string' ? `last scheduled at ${status.lastScheduleTime}` : 'not scheduled yet';
  if (spec.paused === true) return { status: 'Suspended', message: `Paused (spec.paused): ${last}` };
  return { status: 'Healthy', message: `${active} active, ${last}` };
}

/**
 * ImagePullJob (apis/apps/v1alpha1/imagepulljob_types.go; pkg/controller/imagepulljob/imagepulljob_controller.go
 * calculateStatus): under completionPolicy Always the controller sets status.completionTime once every
 * desired node succeeded or failed, or at activeDeadlineSeconds (counting the nodes still pulling as
 * failed); under Never it never completes, so it is judged by its counts: nothing pulling any more.
 * Done with a failed node → Degraded (the image is missing there), done → Healthy, else Progressing.
 */
export function imagePullJobHealth(obj: KubeObject): KindHealth {
  const spec = record(obj.spec);
  const status = record(obj.status);
  const desired = count(status.desired);
  const active = count(status.active);
  const succeeded = count(status.succeeded);
  const failed = count(status.failed);
  const never = record(spec.completionPolicy).type === 'Never';
  const tally = `${succeeded} of ${desired} nodes pulled the image`;
  const done = typeof status.completionTime === 'string' || (never && typeof status.startTime === 'string' && active === 0 && succeeded + failed >= desired);
  if (!done) return { status: 'Progressing', message: `Pulling: ${tally}, ${active} pulling` };
  if (failed > 0) {
    const why = typeof status.message === 'string' && status.message !== '' ? `: ${status.message}` : '';
    return { status: 'Degraded', message: `${failed} of ${desired} nodes failed to pull the image${why}` };
  }
  return { status: 'Healthy', message: tally };
}

/**
 * ContainerRecreateRequest (apis/apps/v1alpha1/containerrecreaterequest_types.go; the daemon
 * pkg/daemon/containerrecreate/crr_daemon_controller.go and pkg/controller/containerrecreaterequest/crr_controller.go):
 * the request ends in phase Completed either way. It failed when a container's state is Failed (the
 * daemon completes at once under failurePolicy Fail; under Ignore it goes on, but that container was
 * not recreated) or when the controller completed it with a message (the pod has gone, the daemon did
 * not respond, activeDeadlineSeconds passed): Degraded. Completed otherwise → Healthy; any other phase
 * (none yet, Pending, Recreating) → Progressing.
 */
export function containerRecreateRequestHealth(obj: KubeObject): KindHealth {
  const status = record(obj.status);
  const phase = typeof status.phase === 'string' && status.phase !== '' ? status.phase : 'Pending';
  if (phase !== 'Completed') return { status: 'Progressing', message: `Recreating containers: phase ${phase}` };
  const states = Array.isArray(status.containerRecreateStates) ? status.containerRecreateStates.filter(isRecord) : [];
  const failed = states.filter((s) => s.phase === 'Failed').map((s) => (typeof s.name === 'string' ? s.name : '?'));
  if (failed.length > 0) return { status: 'Degraded', message: `Failed to recreate container(s) ${failed.join(', ')}` };
  if (typeof status.message === 'string' && status.message !== '') return { status: 'Degraded', message: `Not completed: ${status.message}` };
  return { status: 'Healthy', message: 'Containers recreated' };
}

/**
 * UnitedDeployment from the object alone: the verdict `rollout status` gives its status sums (pods kept
 * old = the subsets' manual partitions, each capped at the subset's replicas). Our gate then also wants
 * each subset done given its own partition, which it checks on the pods: Kruise's status has no per-subset
 * updated counts, and Argo CD gives a health script no pods. So this is our rule's object part alone; the
 * subset workloads, Argo CD children of the UD, carry their own exact health.
 */
export function unitedDeploymentHealth(obj: KubeObject, now: number): ArgoHealth {
  const sums: WorkloadAdapter = { ...unitedDeploymentAdapter };
  delete sums.subsets;
  return workloadStateHealth(evaluateRolloutWith(sums, obj, [], now).state);
}
