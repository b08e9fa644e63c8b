// Which Kruise Rollout holds a workload for a release in progress, read from the workload alone (no
// request): Kruise Rollout's workload webhook marks a workload whose template changed under a Rollout
// with the in-progressing annotation, `{"rolloutName":"..."}` (openkruise/rollouts v0.6.2
// pkg/webhook/workload/mutating/workload_update_handler.go, util.RolloutState), and the release removes
// it when it is over (doFinalising). The write that changed the template answers with it already.
import type { KubeObject } from '../types';
import type { RolloutProgress } from '../progress';
import { IN_ROLLOUT_PROGRESSING_ANNOTATION } from './labels';

/** The Rollout's name, '' when the mark is there but unreadable, undefined when no release holds the workload. */
export function rolloutHolding(workload: KubeObject): string | undefined {
  const raw = workload.metadata.annotations?.[IN_ROLLOUT_PROGRESSING_ANNOTATION];
  if (raw === undefined) return undefined;
  try {
    const state = JSON.parse(raw) as { rolloutName?: unknown };
    return typeof state?.rolloutName === 'string' ? state.rolloutName : '';
  } catch {
    return '';
  }
}

/**
 * A workload's own verdict, for a gate that could not follow its Rollout (Rollouts not served to this user):
 * while a release holds the workload, its partition is the Rollout's (100 % at first), so "done" up to it says
 * nothing about the release: not done until the mark is gone.
 */
export function heldVerdict(workload: KubeObject, p: RolloutProgress): RolloutProgress {
  if (p.state !== 'Complete' && p.state !== 'PartitionComplete') return p;
  const holder = rolloutHolding(workload);
  if (holder === undefined) return p;
  const who = holder ? `rollout/${holder}` : 'a Kruise Rollout';
  const detail = `a release of ${who} holds it (its partition is the release's)`;
  return { ...p, state: 'Progressing', detail, message: `Waiting for ${(workload.kind ?? '').toLowerCase()} "${workload.metadata.name ?? ''}": ${detail}...` };
}
