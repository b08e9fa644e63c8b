// Kruise Rollout's blue-green batch release controls (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/control/bluegreenstyle/{cloneset,deployment}/control.go, control/util.go,
// control/apis.go), pure: each returns the merge patch the control writes, or undefined when it writes nothing.
//
// How blue-green works on a workload: Initialize saves the rolling settings in the
// `rollouts.kruise.io/original-deployment-strategy` annotation, sets maxSurge 1 / maxUnavailable 0 and
// minReadySeconds MaxReadySeconds (≈68 years): the new pods come up beside the old ones and never count
// as available, so the workload's own controller never removes an old pod. Each batch raises maxSurge
// to the step's replicas. Finalize puts the saved settings back: the new pods become available and the
// old ones go. (Deployment: also progressDeadlineSeconds MaxProgressSeconds, and the stable ReplicaSet's
// minReadySeconds, so that a rollback keeps the new pods until traffic is back.)
import type { IntOrString } from '../intstr';
import type { KubeObject } from '../types';
import { at, intOrStringAt, isObj, mergePatchAt, numAt, strAt } from '../workloads/access';
import { cloneSetRollingPath, isCloneSetV1beta1 } from '../workloads/cloneset-shape';
import { BATCH_RELEASE_CONTROL_ANNOTATION, DEPLOYMENT_STABLE_REVISION_LABEL, newRSReplicasLimit, scaledIntOrPercent } from './deployment-partition';

export const ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION = 'rollouts.kruise.io/original-deployment-strategy';
/** api/v1beta1/deployment_types.go: MaxInt32, and one less. */
export const MAX_PROGRESS_SECONDS = 2 ** 31 - 1;
export const MAX_READY_SECONDS = MAX_PROGRESS_SECONDS - 1;

export type BlueGreenKind = 'CloneSet' | 'Deployment';

/** control/apis.go OriginalDeploymentStrategy (omitempty fields). */
export interface OriginalSetting {
  maxUnavailable?: IntOrString;
  maxSurge?: IntOrString;
  minReadySeconds?: number;
  progressDeadlineSeconds?: number;
}

type Patch = Record<string, unknown>;

function rollingPath(kind: BlueGreenKind, obj: KubeObject): string[] {
  return kind === 'CloneSet' ? cloneSetRollingPath(obj) : ['spec', 'strategy', 'rollingUpdate'];
}

function setAt(obj: Patch, path: readonly string[], value: unknown): void {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    if (!isObj(cur[key])) cur[key] = {};
    cur = cur[key] as Patch;
  }
  cur[path[path.length - 1]!] = value;
}

function patchOf(entries: Array<[readonly string[], unknown]>): Patch {
  const patch: Patch = {};
  for (const [path, value] of entries) setAt(patch, path, value);
  return patch;
}

/** GetOriginalSetting: the annotation, {} when absent; undefined when unreadable (Go: a BadRequest). */
export function originalSettingOf(obj: KubeObject): OriginalSetting | undefined {
  const raw = obj.metadata.annotations?.[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION];
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObj(parsed) ? (parsed as OriginalSetting) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * InitOriginalSetting: fills what the saved setting lacks from the workload. Defaults when the workload
 * has none: Deployment maxSurge/maxUnavailable 25%, progressDeadlineSeconds 600; CloneSet maxSurge "0%",
 * maxUnavailable "20%".
 */
export function initOriginalSetting(kind: BlueGreenKind, setting: OriginalSetting, obj: KubeObject): OriginalSetting {
  const out = { ...setting };
  const path = rollingPath(kind, obj);
  if (out.maxSurge === undefined) out.maxSurge = intOrStringAt(obj, ...path, 'maxSurge') ?? (kind === 'Deployment' ? '25%' : '0%');
  if (out.maxUnavailable === undefined) out.maxUnavailable = intOrStringAt(obj, ...path, 'maxUnavailable') ?? (kind === 'Deployment' ? '25%' : '20%');
  if (kind === 'Deployment' && out.progressDeadlineSeconds === undefined) out.progressDeadlineSeconds = numAt(obj, 'spec', 'progressDeadlineSeconds') ?? 600;
  if (!out.minReadySeconds) out.minReadySeconds = numAt(obj, 'spec', 'minReadySeconds') ?? 0;
  return out;
}

/** JSON as Go's encoding/json writes the struct (field order of control/apis.go, omitempty). */
export function originalSettingJson(s: OriginalSetting): string {
  const o: Record<string, unknown> = {};
  if (s.maxUnavailable !== undefined) o.maxUnavailable = s.maxUnavailable;
  if (s.maxSurge !== undefined) o.maxSurge = s.maxSurge;
  if (s.minReadySeconds) o.minReadySeconds = s.minReadySeconds;
  if (s.progressDeadlineSeconds !== undefined) o.progressDeadlineSeconds = s.progressDeadlineSeconds;
  return JSON.stringify(o);
}

/** control/util.go IsControlledByBatchRelease, by the control-info annotation's uid. */
function controlledBy(obj: KubeObject, brUid: string | undefined): boolean {
  const info = obj.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION];
  if (!info) return false;
  try {
    const ref: unknown = JSON.parse(info);
    return isObj(ref) && ref.uid === brUid;
  } catch {
    return false;
  }
}

/**
 * Initialize: undefined when already controlled by this BatchRelease; otherwise the workload's patch
 * (an error message when the saved setting is unreadable).
 */
export function blueGreenInitialize(kind: BlueGreenKind, obj: KubeObject, brUid: string | undefined, controlInfo: string): Patch | string | undefined {
  if (controlledBy(obj, brUid)) return undefined;
  const saved = originalSettingOf(obj);
  if (!saved) return `cannot get original setting for ${kind.toLowerCase()} ${obj.metadata.namespace}/${obj.metadata.name} from annotation`;
  const setting = initOriginalSetting(kind, saved, obj);
  const patch: Patch = mergePatchAt(['metadata', 'annotations'], {
    [ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION]: originalSettingJson(setting),
    [BATCH_RELEASE_CONTROL_ANNOTATION]: controlInfo,
  });
  const path = rollingPath(kind, obj);
  if (kind === 'CloneSet') {
    // partition stays "100%" (set by the webhook) and plays "paused"; paused itself is cleared
    setAt(patch, [...path, 'paused'], false);
    setAt(patch, [...path, 'maxSurge'], 1);
    setAt(patch, [...path, 'maxUnavailable'], 0);
  } else {
    setAt(patch, ['spec', 'strategy'], { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    setAt(patch, ['spec', 'progressDeadlineSeconds'], MAX_PROGRESS_SECONDS);
  }
  setAt(patch, ['spec', 'minReadySeconds'], MAX_READY_SECONDS);
  return patch;
}

/** Deployment Initialize's first write: the stable ReplicaSet's minReadySeconds (patchStableRSMinReadySeconds). */
export function stableReplicaSetPatch(): Patch {
  return { spec: { minReadySeconds: MAX_READY_SECONDS } };
}

/** control/util.go ValidateReadyForBlueGreenRelease: why the workload is not ready for a batch, or undefined. */
export function blueGreenNotReady(kind: BlueGreenKind, obj: KubeObject): string | undefined {
  if (!obj.metadata.annotations?.[BATCH_RELEASE_CONTROL_ANNOTATION]) return 'workload has no control info annotation';
  if (kind === 'Deployment') {
    const type = strAt(obj, 'spec', 'strategy', 'type');
    if (type && type !== 'RollingUpdate') return 'deployment strategy type is not RollingUpdate';
    if (!isObj(at(obj, 'spec', 'strategy', 'rollingUpdate'))) return 'deployment strategy rollingUpdate is nil';
    if (numAt(obj, 'spec', 'minReadySeconds') !== MAX_READY_SECONDS || numAt(obj, 'spec', 'progressDeadlineSeconds') !== MAX_PROGRESS_SECONDS) {
      return 'deployment strategy minReadySeconds or progressDeadlineSeconds is not MaxReadySeconds or MaxProgressSeconds';
    }
    return undefined;
  }
  // the pod update policy: v1alpha1 updateStrategy.type, v1beta1 rollingUpdate.podUpdatePolicy
  const type = isCloneSetV1beta1(obj) ? strAt(obj, ...cloneSetRollingPath(obj), 'podUpdatePolicy') : strAt(obj, 'spec', 'updateStrategy', 'type');
  if (type && type !== 'ReCreate') return 'cloneSet strategy type is not ReCreate';
  if (numAt(obj, 'spec', 'minReadySeconds') !== MAX_READY_SECONDS) return 'cloneSet strategy minReadySeconds is not MaxReadySeconds';
  return undefined;
}

/** The numbers of one blue-green batch (CalculateBatchContext). */
export interface BlueGreenBatch {
  currentBatch: number;
  replicas: number;
  desiredSurge: IntOrString;
  currentSurge: IntOrString;
  plannedUpdatedReplicas: number;
  desiredUpdatedReplicas: number;
  updatedReplicas: number;
  updatedReadyReplicas: number;
}

/**
 * CalculateBatchContext: the step's replicas are the desired surge; the workload's maxSurge is the
 * current one, except 1, Initialize's placeholder, which counts as 0. CloneSet plans ⌈desired⌉ pods;
 * Deployment plans NewRSReplicasLimit (a percentage below 100% keeps one pod back).
 */
export function blueGreenBatchContext(
  kind: BlueGreenKind,
  obj: KubeObject,
  batches: readonly IntOrString[],
  currentBatch: number,
  updatedReadyReplicas: number,
): BlueGreenBatch {
  const replicas = numAt(obj, 'spec', 'replicas') ?? 1;
  const desiredSurge = batches[currentBatch] ?? 0;
  let currentSurge: IntOrString = intOrStringAt(obj, ...rollingPath(kind, obj), 'maxSurge') ?? 0;
  if (currentSurge === 1) currentSurge = 0;
  const planned = kind === 'CloneSet' ? scaledIntOrPercent(desiredSurge, replicas, true) : newRSReplicasLimit(desiredSurge, replicas);
  return {
    currentBatch,
    replicas,
    desiredSurge,
    currentSurge,
    plannedUpdatedReplicas: planned,
    desiredUpdatedReplicas: planned,
    updatedReplicas: numAt(obj, 'status', 'updatedReplicas') ?? 0,
    updatedReadyReplicas,
  };
}

/** UpgradeBatch: raise maxSurge to the batch's (CloneSet: partition removed; Deployment: resumed, maxUnavailable 0). */
export function blueGreenUpgrade(kind: BlueGreenKind, obj: KubeObject, ctx: BlueGreenBatch): Patch | undefined {
  const desired = scaledIntOrPercent(ctx.desiredSurge, ctx.replicas, true);
  const current = scaledIntOrPercent(ctx.currentSurge, ctx.replicas, true);
  if (current >= desired) return undefined;
  if (kind === 'CloneSet') {
    const path = cloneSetRollingPath(obj);
    return patchOf([
      [[...path, 'partition'], null],
      [[...path, 'maxSurge'], ctx.desiredSurge],
    ]);
  }
  return patchOf([
    [['spec', 'paused'], false],
    [['spec', 'strategy'], { type: 'RollingUpdate', rollingUpdate: { maxSurge: ctx.desiredSurge, maxUnavailable: 0 } }],
  ]);
}

/**
 * Finalize's restore: the saved settings back, the annotations (and the Deployment's stable-revision
 * label) removed; undefined when already restored (no saved setting) or under a batchPartition.
 */
export function blueGreenRestore(kind: BlueGreenKind, obj: KubeObject, batchPartition: number | undefined): Patch | undefined {
  if (batchPartition !== undefined) return undefined; // continuous release: not supported upstream either
  if (!obj.metadata.annotations?.[ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION] || obj.metadata.deletionTimestamp) return undefined;
  const s = originalSettingOf(obj) ?? {};
  const path = rollingPath(kind, obj);
  const patch = patchOf([
    [['metadata', 'annotations', ORIGINAL_DEPLOYMENT_STRATEGY_ANNOTATION], null],
    [['metadata', 'annotations', BATCH_RELEASE_CONTROL_ANNOTATION], null],
    [['spec', 'minReadySeconds'], s.minReadySeconds ?? 0],
    [[...path, 'maxSurge'], s.maxSurge ?? null],
    [[...path, 'maxUnavailable'], s.maxUnavailable ?? null],
  ]);
  if (kind === 'Deployment') {
    setAt(patch, ['spec', 'paused'], false);
    setAt(patch, ['spec', 'progressDeadlineSeconds'], s.progressDeadlineSeconds ?? null);
    setAt(patch, ['metadata', 'labels', DEPLOYMENT_STABLE_REVISION_LABEL], null);
  }
  return patch;
}

/**
 * Finalize's wait after the restore: why the workload is not done yet, or undefined. CloneSet: every
 * ready pod updated. Deployment (waitAllUpdatedAndReady): not paused, ready == updated, and no more
 * unavailable pods than maxUnavailable allows.
 */
export function blueGreenFinalizePending(kind: BlueGreenKind, obj: KubeObject): string | undefined {
  const ready = numAt(obj, 'status', 'readyReplicas') ?? 0;
  if (kind === 'CloneSet') {
    const updatedReady = numAt(obj, 'status', 'updatedReadyReplicas') ?? 0;
    return ready === updatedReady ? undefined : `readyReplicas ${ready} != updatedReadyReplicas ${updatedReady}`;
  }
  if (at(obj, 'spec', 'paused') === true) return 'deployment should not be paused';
  if (ready !== (numAt(obj, 'status', 'updatedReplicas') ?? 0)) return 'all ready replicas should be updated, and all updated replicas should be ready';
  const replicas = numAt(obj, 'spec', 'replicas') ?? 1;
  const maxUnavailable = deploymentMaxUnavailable(obj, replicas);
  if (maxUnavailable + (numAt(obj, 'status', 'availableReplicas') ?? 0) < (numAt(obj, 'status', 'replicas') ?? 0)) return 'ready replicas should satisfy maxUnavailable';
  return undefined;
}

/** pkg/util DeploymentMaxUnavailable: RollingUpdate's maxUnavailable rounded down (maxSurge 0 too → 1), 0 otherwise. */
function deploymentMaxUnavailable(obj: KubeObject, replicas: number): number {
  if (strAt(obj, 'spec', 'strategy', 'type') !== 'RollingUpdate' || replicas === 0) return 0;
  const ru = at(obj, 'spec', 'strategy', 'rollingUpdate');
  const surge = scaledIntOrPercent(intOrStringAt(ru, 'maxSurge') ?? 0, replicas, true);
  let unavailable = scaledIntOrPercent(intOrStringAt(ru, 'maxUnavailable') ?? 0, replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return Math.min(unavailable, replicas);
}
