// A live pod as the CloneSet planner (cloneset-plan.ts) reads it: one mapping shared by the sandbox's
// CloneSet controller and `--preview`, so both feed planCloneSetSync the same facts.
import type { Pod } from '../types';
import { isKruisePodAvailable, isKruisePodReady, LIFECYCLE_STATE_LABEL, SPECIFIED_DELETE_LABEL, type CloneSetSpecView } from './cloneset';
import { INPLACE_UPDATE_GRACE_ANNOTATION } from './cloneset-inplace';
import { podUpdatePriority, type PlannedPod } from './cloneset-plan';

export function cloneSetPlannedPod(p: Pod, spec: Pick<CloneSetSpecView, 'podsToDelete' | 'minReadySeconds' | 'priorityStrategy'>, updated: boolean, now: Date): PlannedPod {
  return {
    name: p.metadata.name ?? '',
    updated,
    ready: isKruisePodReady(p),
    available: isKruisePodAvailable(p, spec.minReadySeconds, now),
    scheduled: Boolean(p.spec.nodeName),
    phase: p.status?.phase ?? 'Pending',
    creationTimestamp: p.metadata.creationTimestamp ?? '',
    specifiedDelete: spec.podsToDelete.includes(p.metadata.name ?? '') || p.metadata.labels?.[SPECIFIED_DELETE_LABEL] === 'true',
    preparingDelete: p.metadata.labels?.[LIFECYCLE_STATE_LABEL] === 'PreparingDelete',
    lifecycleState: p.metadata.labels?.[LIFECYCLE_STATE_LABEL],
    updatePriority: podUpdatePriority(spec.priorityStrategy, p.metadata.labels ?? {}),
    inGracePeriod: Boolean(p.metadata.annotations?.[INPLACE_UPDATE_GRACE_ANNOTATION]),
    labels: p.metadata.labels ?? {},
  };
}
