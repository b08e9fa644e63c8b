// Kruise Rollout's workload mutating webhook (pkg/webhook/workload/mutating/workload_update_handler.go,
// v0.6.2) as sandbox admission hooks: on an UPDATE of a workload a live, not Disabled Rollout names
// (fetchMatchedRollout), the kind's release control holds the new revision (CloneSet: partition
// "100%" + the in-progressing annotation) so nothing rolls before the Rollout controller acts.
import { groupVersion, isObj } from '../../kruise/workloads/access';
import { releaseControlFor } from '../../kruise/rollout/release-control';
import { readRolloutSpec } from '../../kruise/rollout/state-machine';
import { rolloutV1alpha1ToV1beta1 } from '../../kruise/rollout-conversion';
import type { KubeObject } from '../../kruise/types';
import type { AdmissionHook } from '../store-api';
import { WORKLOAD_RESOURCES } from './rollout-workloads';

export function createRolloutWebhook(rollouts: () => KubeObject[]): AdmissionHook[] {
  return WORKLOAD_RESOURCES.map(
    (gr): AdmissionHook => ({
      gr,
      operations: ['UPDATE'],
      admit(_op, obj, old, store) {
        if (!old) return obj;
        const matched = fetchMatchedRollout(obj, rollouts());
        if (!matched) return obj;
        const spec = readRolloutSpec(matched);
        // IsEmptyRelease: a strategy without steps releases nothing
        if (spec.steps.length === 0) return obj;
        const control = releaseControlFor(obj.apiVersion ?? '', obj.kind ?? '', spec.rollingStyle);
        if (!control) return obj;
        const held = control.holdOnRevisionChange(obj, old, {
          rolloutName: spec.name,
          hasTrafficRoutings: spec.hasTrafficRoutings,
          list: (group, resource) => store.list({ group, resource }, { namespace: obj.metadata.namespace }),
        });
        return held ?? obj;
      },
    }),
  );
}

/** fetchMatchedRollout: the first Rollout of the namespace, not deleting nor Disabled, naming this workload. */
function fetchMatchedRollout(obj: KubeObject, all: KubeObject[]): KubeObject | undefined {
  const { group } = groupVersion(obj);
  for (const stored of all) {
    if (stored.metadata.namespace !== obj.metadata.namespace || stored.metadata.deletionTimestamp) continue;
    const r = stored.apiVersion === 'rollouts.kruise.io/v1alpha1' ? rolloutV1alpha1ToV1beta1(stored) : stored;
    const status = r.status;
    if (isObj(status) && status.phase === 'Disabled') continue;
    const ref = readRolloutSpec(r).workloadRef;
    if (!ref) continue;
    const refGroup = ref.apiVersion.includes('/') ? ref.apiVersion.slice(0, ref.apiVersion.indexOf('/')) : '';
    if (refGroup === group && ref.kind === obj.kind && ref.name === obj.metadata.name) return r;
  }
  return undefined;
}
