// A workload template its Kruise Rollout will never release. The Rollout starts a release only on the
// workload webhook's in-progressing mark (controller_finder.go getKruiseCloneSet & co.: no mark, no
// InRolloutProgressing; rollout_status.go: Healthy → Progressing only on it), and the controller removes
// that mark with an unconditional merge patch when it finalises a release (rollout_releaseManager.go
// removeRolloutProgressingAnnotation, v0.6.2). A template changed while the last release was finalising
// is therefore held by the webhook (CloneSet partition "100%", Deployment paused, ...) and then loses its
// mark: the Rollout stays Healthy, never observes the workload's generation again, and the template is
// released by nobody. Seen on the sandbox when a pipeline applied the next image right after a rollback.
// Also a template the webhook did not hold (traffic routing with pods on two revisions): the workload
// rolls it out by itself.
import type { KubeObject } from '../types';
import { IN_ROLLOUT_PROGRESSING_ANNOTATION } from './labels';
import type { RolloutView } from './types';

export interface UnreleasedTemplate {
  /** The workload's update revision (hash) that no release follows. */
  revision: string;
  /** The revision the Rollout's last release was about. */
  releasedRevision?: string;
}

/**
 * The update revision hash as Kruise Rollout's finder reads it (controller_finder.go: the part of
 * status.updateRevision after the last "-") for the kinds that report one; undefined while the workload's
 * controller lags its spec (IsStatusConsistent false). A Deployment's hash is computed from its template
 * (release-control-deployment.ts): not read here, so this gate stays light; its hold is spec.paused.
 */
function updateRevisionHash(workload: KubeObject): string | undefined {
  const status = (workload.status ?? {}) as { observedGeneration?: number; updateRevision?: string };
  if (workload.kind === 'Deployment' || status.observedGeneration !== workload.metadata.generation) return undefined;
  const rev = status.updateRevision;
  return rev ? rev.slice(rev.lastIndexOf('-') + 1) : undefined;
}

export function unreleasedTemplate(view: RolloutView, workload: KubeObject | null | undefined): UnreleasedTemplate | undefined {
  if (!workload) return undefined;
  const s = view.status;
  if (s.phase !== 'Healthy' || !s.hasSubStatus || view.disabled) return undefined;
  if (view.generation !== undefined && s.observedGeneration !== view.generation) return undefined;
  if (IN_ROLLOUT_PROGRESSING_ANNOTATION in (workload.metadata.annotations ?? {})) return undefined;
  const generation = workload.metadata.generation;
  if (generation === undefined || s.observedWorkloadGeneration === generation) return undefined;
  const revision = updateRevisionHash(workload);
  if (!revision || revision === s.canaryRevision || revision === s.podTemplateHash) return undefined;
  return { revision, releasedRevision: s.podTemplateHash ?? s.canaryRevision };
}

const refOf = (workload: KubeObject): string => `${(workload.kind ?? '').toLowerCase()}/${workload.metadata.name ?? ''}`;

/** Why nobody releases it. `held`: the workload holds the template (true), rolls it out itself (false), unknown (undefined). */
export function unreleasedTemplateCause(view: RolloutView, workload: KubeObject, u: UnreleasedTemplate, held: boolean | undefined): string {
  const ref = refOf(workload);
  const what = `${ref}'s template (revision ${u.revision})`;
  if (held === false) return `rollout "${view.name}" does not release ${what}: it has no in-progressing mark, so ${ref} rolls it out by itself`;
  const hold = held ? `${ref} holds it without` : 'it has no';
  return (
    `rollout "${view.name}" will not release ${what}: ${hold} Kruise Rollout's in-progressing mark ` +
    `(the controller removes the mark when it finalises a release; the template changed while the last one was finalising)`
  );
}

/** The way out: a new template change, which the webhook holds with its mark. */
export function unreleasedTemplateFix(workload: KubeObject): string {
  return `kubectl kruise rollout restart ${refOf(workload)}`;
}

/** The cause and, when nobody will release it, the way out (the gate's and rollout verify's line). */
export function unreleasedTemplateText(view: RolloutView, workload: KubeObject, u: UnreleasedTemplate, held: boolean | undefined): string {
  const cause = unreleasedTemplateCause(view, workload, u, held);
  return held === false ? cause : `${cause}. Any new template change starts its release, e.g. ${unreleasedTemplateFix(workload)}`;
}
