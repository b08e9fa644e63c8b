// `rollout status sidecarset/NAME` decision, pure: from the SidecarSet, the pods it matched and the
// clock, whether its sidecars are rolled out (wholly, or up to the partition), paused, still
// going or failed. Same states and JSON fields as the workload kinds (src/kruise/progress.ts), with
// matched pods in place of replicas.
//
// Kruise facts (v1.9.0):
// - status.matchedPods / updatedPods / readyPods / updatedReadyPods / observedGeneration:
//   pkg/controller/sidecarset/sidecarset_processor.go calculateStatus (updated = the pod's
//   kruise.io/sidecarset-hash entry equals the SidecarSet's annotation, IsPodSidecarUpdated).
// - partition: pkg/controller/sidecarset/sidecarset_strategy.go calculateUpgradeCount, where
//   util.CalculatePartitionReplicas scales it against the matched pods (rounding up; a percentage
//   below 100% keeps at most matched − 1) and only `waiting − partition` pods are upgraded.
// - updateStrategy.selector narrows the pods that are upgraded at all (GetNextUpgradePods).
// - maxUnavailable (default 1) only paces the upgrade; paused stops it (processor: Paused → no upgrade).
import type { KubeObject, Pod } from './types';
import type { RolloutProgress, RolloutState } from './progress';
import { failingContainer, stuckKey, stuckPodSince } from './progress';
import { explainCloneSetPartition, InvalidValueError } from './partition';
import { isReady, normalizeImage } from './rollout-pods';
import { labelSelectorMatches } from './selectors';
import { podSidecarUpdated, readSidecarSet, sidecarSetMatchesPod, type SidecarSetView } from './workloads/sidecarset';

export interface SidecarSetEvaluateOptions {
  /** How long an upgraded pod may stay in a failing state before the rollout fails (ms). Default 60 s. */
  failureGraceMs?: number;
  /** When the watcher first saw each pod in its failing state (`stuckKey`). */
  firstSeenStuck?: ReadonlyMap<string, number>;
  /** `pods` holds every pod the SidecarSet may match (listed after the SidecarSet was read). */
  podsListed?: boolean;
  /** Labels of each namespace, for spec.namespaceSelector (pods of unknown namespaces are kept). */
  namespaceLabels?: ReadonlyMap<string, Record<string, string>>;
}

/** How many pods the names in a message are cut to. */
const MAX_NAMED = 5;

/** Pods the partition keeps on the old sidecars (CalculatePartitionReplicas over matchedPods); 0 when unreadable. */
export function sidecarSetPartitionPods(partition: unknown, matchedPods: number): number {
  if (partition === undefined || partition === null) return 0;
  try {
    return explainCloneSetPartition(partition, matchedPods).partitionReplicas;
  } catch (e) {
    if (e instanceof InvalidValueError) return 0;
    throw e;
  }
}

/** A pod runs the SidecarSet's current sidecars: its hash is current and every sidecar's running image is the spec's. */
function runsCurrentSidecars(view: SidecarSetView, pod: Pod): boolean {
  if (!podSidecarUpdated(view, pod)) return false;
  const statuses = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  for (const c of view.containers) {
    if (c.init || c.image === undefined) continue;
    // A hot-upgrade sidecar runs as the pair NAME-1 / NAME-2: the working one carries the image.
    const st = statuses.get(c.name) ?? [statuses.get(`${c.name}-1`), statuses.get(`${c.name}-2`)].find((s) => s && normalizeImage(s.image) === normalizeImage(c.image!));
    // A pod whose status does not list the container yet has not started it with the new image.
    if (!st || normalizeImage(st.image) !== normalizeImage(c.image)) return false;
  }
  return true;
}

export function evaluateSidecarSetRollout(obj: KubeObject, pods: readonly Pod[], now: number, opts: SidecarSetEvaluateOptions = {}): RolloutProgress {
  const view = readSidecarSet(obj);
  const label = `sidecarset "${view.name}"`;
  const matched = view.matchedPods;
  let kept = Math.min(sidecarSetPartitionPods(view.partition, matched), matched);
  const podsListed = opts.podsListed === true;
  const matchedList = podsListed ? pods.filter((p) => sidecarSetMatchesPod(view, p, opts.namespaceLabels?.get(p.metadata.namespace ?? ''))) : [];
  // Pods the update selector leaves out keep their sidecars whatever the partition says.
  if (podsListed && view.updateSelector) {
    const excludedOld = matchedList.filter((p) => !labelSelectorMatches(view.updateSelector, p.metadata.labels) && !podSidecarUpdated(view, p)).length;
    const selectedOld = matchedList.filter((p) => labelSelectorMatches(view.updateSelector, p.metadata.labels) && !podSidecarUpdated(view, p)).length;
    kept = Math.min(matched, excludedOld + Math.min(kept, selectedOld));
  }
  const expected = Math.max(0, matched - kept);

  const base: RolloutProgress = {
    kind: obj.kind ?? 'SidecarSet',
    apiVersion: obj.apiVersion ?? '',
    namespace: '',
    name: view.name,
    state: 'Progressing',
    replicas: matched,
    expectedUpdatedReplicas: expected,
    updatedReplicas: view.updatedPods,
    updatedReadyReplicas: view.updatedReadyPods,
    updatedAvailableReplicas: view.updatedReadyPods,
    partition: kept,
    updateRevision: view.hash,
    currentRevision: view.latestRevision,
    message: '',
    expectedFromStatus: false,
  };
  const result = (state: RolloutState, message: string, extra: Partial<RolloutProgress> = {}): RolloutProgress => ({ ...base, ...extra, state, message });
  const waitingFor = (detail: string, extra: Partial<RolloutProgress> = {}): RolloutProgress =>
    result('Progressing', `Waiting for ${label} rollout to finish: ${detail}...`, { ...extra, detail });

  if (view.generation !== undefined && (view.observedGeneration ?? 0) < view.generation) {
    return result('Progressing', `Waiting for ${label} spec update to be observed...`, { detail: 'spec update not observed yet' });
  }
  if (view.updatedReadyPods > view.updatedPods) return waitingFor(`status counts disagree (${view.updatedReadyPods} updated ready but ${view.updatedPods} updated)`);
  if (view.updatedPods > matched) return waitingFor(`status counts disagree (${view.updatedPods} updated but ${matched} matched)`);

  // What the pods say (when listed): upgraded and ready pods, and the ones holding the rollout up.
  const upgradedReady = matchedList.filter((p) => runsCurrentSidecars(view, p) && isReady(p));
  const notReadyUpgraded = matchedList.filter((p) => podSidecarUpdated(view, p) && !(runsCurrentSidecars(view, p) && isReady(p)));
  const oldPods = matchedList.filter((p) => !podSidecarUpdated(view, p));
  const podsAgree = !podsListed || (matchedList.length === matched && upgradedReady.length >= expected);
  const partitionNote = kept > 0 ? ` (partition keeps ${kept} of ${matched})` : '';

  if (view.updatedPods >= expected && view.updatedReadyPods >= expected && podsAgree && matched - view.updatedPods <= kept) {
    if (kept > 0 && view.updatedPods < matched) {
      return result('PartitionComplete', `${label} partition rollout complete: ${view.updatedPods} of ${matched} matched pods updated (${kept} kept on the old sidecars by the partition)`);
    }
    return result('Complete', `${label} successfully rolled out${matched === 0 ? ' (no pods matched)' : ''}`);
  }

  // Failed: an upgraded pod whose sidecar cannot start, beyond the grace.
  const grace = opts.failureGraceMs ?? 60_000;
  let failing: RolloutProgress['failing'];
  for (const pod of matchedList.filter((p) => podSidecarUpdated(view, p))) {
    const stuck = failingContainer(pod);
    if (!stuck) continue;
    const seen = opts.firstSeenStuck?.get(stuckKey(pod, stuck.reason));
    const stamp = stuckPodSince(pod);
    const since = Math.min(...[stamp, seen].filter((t): t is number => t !== undefined && t <= now), now);
    const podName = podLabel(pod);
    if (now - since >= grace) {
      return result('Failed', `${label} rollout failed: pod "${podName}" container "${stuck.container}" is in ${stuck.reason}${stuck.message ? `: ${stuck.message}` : ''}`, {
        failedPod: { name: podName, reason: stuck.reason, container: stuck.container },
      });
    }
    if (!failing || since + grace < failing.failAt) failing = { name: podName, reason: stuck.reason, container: stuck.container, failAt: since + grace };
  }
  const extra: Partial<RolloutProgress> = failing ? { failing, recheckAt: failing.failAt } : {};

  let detail: string;
  if (view.updatedPods < expected) detail = `${view.updatedPods} of ${expected} matched pods updated${partitionNote}`;
  else if (view.updatedReadyPods < expected) detail = `${view.updatedReadyPods} of ${expected} updated pods are ready${partitionNote}`;
  else if (matched - view.updatedPods > kept) detail = `${matched - view.updatedPods} pods on the old sidecars where the partition keeps ${kept}`;
  else if (podsListed && matchedList.length !== matched) detail = `${matchedList.length} matched pods seen, the status counts ${matched}`;
  else detail = `${upgradedReady.length} of ${expected} updated pods seen ready so far${partitionNote}`;
  const stuck = stuckPods(notReadyUpgraded, oldPods, view.updatedPods < expected);
  if (stuck) detail += `; ${stuck}`;
  if (view.paused) {
    return result('Paused', `${label} rollout is paused: ${view.updatedPods} of ${matched} matched pods updated${kept > 0 ? ` (expected ${expected}, partition keeps ${kept})` : ''}`, {
      ...extra,
      detail: `paused, ${detail}`,
    });
  }
  const notUpdate = view.updateType === 'NotUpdate' ? ' (updateStrategy.type NotUpdate: sidecars change only in pods created from now on)' : '';
  return waitingFor(`${detail}${notUpdate}`, extra);
}

/** "namespace/name": a SidecarSet's pods live in several namespaces. */
function podLabel(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

/** Names of the pods holding the rollout up: upgraded but not ready first, then (while upgrades remain) pods on the old sidecars. */
function stuckPods(notReady: Pod[], old: Pod[], upgradesLeft: boolean): string | undefined {
  const parts: string[] = [];
  if (notReady.length) parts.push(`not ready after the upgrade: ${names(notReady)}`);
  if (upgradesLeft && old.length) parts.push(`on the old sidecars: ${names(old)}`);
  return parts.length ? parts.join('; ') : undefined;
}

function names(pods: Pod[]): string {
  const sorted = pods.map(podLabel).sort();
  const shown = sorted.slice(0, MAX_NAMED).join(', ');
  return sorted.length > MAX_NAMED ? `${shown} and ${sorted.length - MAX_NAMED} more` : shown;
}
