// Which revisions of a workload's history a Kruise Rollout is releasing, for `rollout history`.
// The Rollout names revisions by hash (openkruise/rollouts v0.6.2 pkg/util/controller_finder.go):
// - CloneSet / Advanced DaemonSet / Advanced StatefulSet: StableRevision and PodTemplateHash are the
//   hash suffixes of status.currentRevision / status.updateRevision (the ControllerRevision names);
// - Deployment: StableRevision and PodTemplateHash are pod-template-hash labels of the stable and the
//   new ReplicaSet (whose names end in that hash), CanaryRevision a hash of the template.
// So a history row (ControllerRevision or ReplicaSet name) is matched by its name's hash suffix, the
// canary by podTemplateHash first and canaryRevision otherwise.
import type { KubeObject } from '../types';
import type { HistoryRow } from '../revisions';
import { revisionHash } from '../rules/revisions';
import { evaluateRolloutRelease, releaseStage, type RolloutReleaseState } from './gate';
import { readRollout } from './read';

export type HistoryRolloutRole = 'stable' | 'canary';

export interface RolloutHistoryRelease {
  /** The Rollout's name. */
  rollout: string;
  state: RolloutReleaseState;
  step?: number;
  steps: number;
  stepState?: string;
  /** History revision numbers (undefined when no row matches, e.g. history trimmed). */
  stableRevision?: number;
  canaryRevision?: number;
  /** Role of each history revision number in the release. */
  roles: Record<number, HistoryRolloutRole>;
  /** "rollout/web releases revision 1 → 2, step 1/3 StepPaused (waiting for approval)". */
  summary: string;
  /** Whether a release of the workload's current template is under way (gate.ts releaseStage). */
  inProgress: boolean;
}

const STATE_WORDS: Partial<Record<RolloutReleaseState, string>> = {
  StepPaused: 'waiting for approval',
  Paused: 'paused',
  Failed: 'cancelled or failed',
  Blocked: 'blocked',
};

function rowFor(rows: readonly HistoryRow[], ...revisions: Array<string | undefined>): HistoryRow | undefined {
  for (const r of revisions) {
    if (!r) continue;
    const hash = revisionHash(r);
    const row = rows.find((x) => revisionHash(x.name) === hash);
    if (row) return row;
  }
  return undefined;
}

/** Undefined when the Rollout has not started any release of this workload (no sub-status). */
export function rolloutHistoryRelease(rollout: KubeObject, workload: KubeObject, rows: readonly HistoryRow[], now: number): RolloutHistoryRelease | undefined {
  const view = readRollout(rollout, workload);
  const s = view.status;
  if (!s.hasSubStatus) return undefined;
  const verdict = evaluateRolloutRelease(rollout, workload, now);
  const stage = releaseStage(view, workload);
  const stable = rowFor(rows, s.stableRevision);
  const canary = rowFor(rows, s.podTemplateHash, s.canaryRevision);
  const roles: Record<number, HistoryRolloutRole> = {};
  const rev = (row: HistoryRow | undefined, hash: string | undefined): string => (row ? `revision ${row.revision}` : `revision ${hash ?? '?'}`);
  // A cancelled release is over (rollout_progressing.go: Succeeded=False, phase Healthy): nothing is a canary any more.
  if (stage === 'cancelled') {
    return {
      rollout: view.name,
      state: verdict.state,
      steps: view.steps.length,
      stableRevision: stable?.revision,
      roles,
      summary: `rollout/${view.name}: no release in progress (the last one was cancelled: the workload was rolled back to ${rev(stable, s.stableRevision)})`,
      inProgress: false,
    };
  }
  // Once complete the old stable revision is history like any other.
  if (stable && verdict.state !== 'Complete') roles[stable.revision] = 'stable';
  if (canary && canary !== stable) roles[canary.revision] = 'canary';
  const step = `step ${s.currentStepIndex ?? '-'}/${view.steps.length}${s.currentStepState ? ` ${s.currentStepState}` : ''}`;
  const words = STATE_WORDS[verdict.state];
  const summary =
    verdict.state === 'Complete'
      ? `rollout/${view.name} released ${rev(canary, s.podTemplateHash ?? s.canaryRevision)} (complete)`
      : `rollout/${view.name} releases ${rev(stable, s.stableRevision)} → ${rev(canary, s.podTemplateHash ?? s.canaryRevision)}, ${step}${words ? ` (${words})` : ''}`;
  return {
    rollout: view.name,
    state: verdict.state,
    step: s.currentStepIndex,
    steps: view.steps.length,
    stepState: s.currentStepState,
    stableRevision: stable?.revision,
    canaryRevision: canary?.revision,
    roles,
    summary,
    inProgress: stage === 'in-progress' || stage === 'cancelling' || stage === 'starting',
  };
}
