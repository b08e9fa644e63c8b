// Our gate's verdicts as Argo CD health statuses: what the generated health scripts must return
// (the oracle of test/unit/kruise/gitops/lua.test.ts). Exit 0 → Healthy, 1 → Degraded, 4 (not yet)
// → Progressing, or Suspended when only a person resuming or approving moves it on.
import type { KubeObject } from '../types';
import { evaluateRollout, type RolloutState } from '../progress';
import { evaluateRolloutRelease, type RolloutReleaseState } from '../rollout/gate';

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

/** A Kruise Rollout's health from the Rollout alone (its release verdict, until complete). */
export function rolloutHealth(obj: KubeObject, now: number): ArgoHealth {
  return releaseStateHealth(evaluateRolloutRelease(obj, undefined, now).state);
}
