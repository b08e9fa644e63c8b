// What a finished, abandoned or deleted Kruise Rollout release left on its workload, and the write that
// restores it: the restore each Kruise Rollout Finalize makes (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/{partitionstyle,bluegreenstyle}/deployment/control.go, master
// partitionstyle/nativedaemonset/control.go; the same rules the sandbox's Rollout controller runs), plus the
// annotations that outlive a release, as a JSON patch whose `test` ops hold it to the object as read. Pure.
import { conditionalWrite, mergePatchOps, type ObservedField } from '../conditional-write';
import type { JsonPatchOp } from '../containers';
import type { KubeObject } from '../types';
import { at } from '../workloads/access';
import { blueGreenRestore, MAX_PROGRESS_SECONDS, MAX_READY_SECONDS, ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION, originalSettingOf } from '../rollout/bluegreen-control';
import { ADVANCED_DEPLOYMENT_CONTROL_LABEL, DEPLOYMENT_STRATEGY_ANNOTATION } from '../rollout/deployment-partition';
import { BATCH_RELEASE_CONTROL_ANNOTATION, IN_ROLLOUT_PROGRESSING_ANNOTATION } from '../rollout/labels';
import { DAEMONSET_ADVANCED_CONTROL_ANNOTATION, DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION, DAEMONSET_REVISION_ANNOTATION } from '../rollout/native-daemonset-annotations';
import { partitionStyleRestore } from '../rollout/release-control-deployment';
import { nativeDaemonSetRestore } from '../rollout/release-control-native-daemonset';

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** A release is live when a Rollout is bound and not in a final phase. */
export function releaseInProgress(rollout: Obj | undefined): boolean {
  if (!rollout) return false;
  const phase = rec(rollout.status).phase;
  return phase === 'Progressing' || (rec(rec(rollout.status).canaryStatus).currentStepState !== undefined && phase !== 'Healthy');
}

export interface LeftoverPatch {
  /** What was left, one phrase each. */
  reasons: string[];
  /** JSON patch: `test` ops on what the decision read, then the restoring ops. */
  ops: JsonPatchOp[];
  /** The fields the decision rests on, as read. */
  observed: ObservedField[];
}

/** The merge patch a Finalize would write on `w` now, with what it undoes; undefined when nothing was left. */
export function leftoverRestore(w: KubeObject): { reasons: string[]; merge: Obj; triggers: string[][] } | undefined {
  const ann = w.metadata.annotations ?? {};
  const labels = w.metadata.labels ?? {};
  const spec = rec(w.spec);
  const reasons: string[] = [];
  const triggers: string[][] = [];
  let merge: Obj = {};
  const stale = (a: string): void => {
    if (ann[a] === undefined) return;
    reasons.push(`stale annotation ${a}`);
    triggers.push(['metadata', 'annotations', a]);
  };
  const releaseMarks = ann[IN_ROLLOUT_PROGRESSING_ANNOTATION] !== undefined || ann[BATCH_RELEASE_CONTROL_ANNOTATION] !== undefined;
  if ((w.kind === 'Deployment' || w.kind === 'CloneSet') && ann[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION] !== undefined) {
    // Blue-green (bluegreenstyle/*/control.go): Initialize saved the rolling settings in the annotation and set
    // minReadySeconds MaxReadySeconds (and a Deployment's progressDeadlineSeconds MaxProgressSeconds).
    merge = blueGreenRestore(w.kind, w, undefined) ?? {};
    const saved = originalSettingOf(w) ?? {};
    if (at(w, 'spec', 'minReadySeconds') === MAX_READY_SECONDS) reasons.push(`minReadySeconds ${MAX_READY_SECONDS} (MaxReadySeconds) left by a blue-green release, saved ${saved.minReadySeconds ?? 0}`);
    if (at(w, 'spec', 'progressDeadlineSeconds') === MAX_PROGRESS_SECONDS) reasons.push(`progressDeadlineSeconds ${MAX_PROGRESS_SECONDS} (MaxProgressSeconds) left by a blue-green release, saved ${saved.progressDeadlineSeconds ?? 'unset'}`);
    reasons.push(`annotation ${ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION} left by a blue-green release`);
    triggers.push(['metadata', 'annotations', ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION]);
  } else if (w.kind === 'Deployment' && (ann[DEPLOYMENT_STRATEGY_ANNOTATION] !== undefined || labels[ADVANCED_DEPLOYMENT_CONTROL_LABEL] !== undefined)) {
    // Partition style (partitionstyle/deployment/control.go Initialize): paused and Recreate hand the Deployment
    // to the Advanced Deployment controller, its rollingUpdate kept in the strategy annotation.
    merge = partitionStyleRestore(w);
    if (rec(spec.strategy).type === 'Recreate') reasons.push(`strategy Recreate left by a partition-style release (its rollingUpdate is back from ${DEPLOYMENT_STRATEGY_ANNOTATION})`);
    if (spec.paused === true) reasons.push('paused: true left by a partition-style release');
    if (ann[DEPLOYMENT_STRATEGY_ANNOTATION] !== undefined) {
      reasons.push(`annotation ${DEPLOYMENT_STRATEGY_ANNOTATION} left by a partition-style release`);
      triggers.push(['metadata', 'annotations', DEPLOYMENT_STRATEGY_ANNOTATION]);
    } else triggers.push(['metadata', 'labels', ADVANCED_DEPLOYMENT_CONTROL_LABEL]);
  } else if (w.kind === 'Deployment' && spec.paused === true && releaseMarks) {
    // Canary style: the workload webhook keeps the stable Deployment paused while a release is marked on it.
    merge = { spec: { paused: false } };
    reasons.push('paused: true left by a canary release');
  } else if (w.kind === 'DaemonSet' && [DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION, DAEMONSET_REVISION_ANNOTATION, DAEMONSET_ADVANCED_CONTROL_ANNOTATION].some((a) => ann[a] !== undefined)) {
    // Native DaemonSet (master): the webhook saved spec.updateStrategy.type in the annotation and set OnDelete.
    const original = ann[DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION];
    const onDelete = rec(spec.updateStrategy).type === 'OnDelete' && original !== undefined && original !== 'OnDelete';
    merge = nativeDaemonSetRestore(w, onDelete);
    if (onDelete) reasons.push(`updateStrategy OnDelete left by a Kruise Rollout release, saved ${original || 'RollingUpdate'} in ${DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION}`);
    for (const a of [DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION, DAEMONSET_REVISION_ANNOTATION, DAEMONSET_ADVANCED_CONTROL_ANNOTATION]) {
      if (ann[a] === undefined) continue;
      if (!onDelete) reasons.push(`stale annotation ${a}`);
      triggers.push(['metadata', 'annotations', a]);
    }
  }
  // What no Finalize left on purpose: a release's marks outliving it.
  merge = { ...merge, metadata: { ...rec(merge.metadata), annotations: { ...rec(rec(merge.metadata).annotations), [IN_ROLLOUT_PROGRESSING_ANNOTATION]: null, [BATCH_RELEASE_CONTROL_ANNOTATION]: null } } };
  stale(IN_ROLLOUT_PROGRESSING_ANNOTATION);
  stale(BATCH_RELEASE_CONTROL_ANNOTATION);
  return reasons.length ? { reasons, merge, triggers } : undefined;
}

/** The conditional write that restores what a release left; undefined during a live release or when nothing was left. */
export function leftoverPatch(w: KubeObject, rollout: Obj | undefined): LeftoverPatch | undefined {
  if (releaseInProgress(rollout)) return undefined;
  const restore = leftoverRestore(w);
  if (!restore) return undefined;
  const { changes, rests } = mergePatchOps(w, restore.merge);
  if (changes.length === 0) return undefined;
  const write = conditionalWrite(w, { rests: [...restore.triggers, ...rests.filter((p) => !restore.triggers.some((t) => t.join('/') === p.join('/')))], changes });
  return { reasons: restore.reasons, ops: write.patch, observed: write.observed };
}
