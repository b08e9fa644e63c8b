// Kruise Rollout's workload mutating webhook (pkg/webhook/workload/mutating/workload_update_handler.go,
// v0.6.2; master adds the native DaemonSet) as sandbox admission hooks: on an UPDATE of a workload a live,
// not Disabled Rollout names (fetchMatchedRollout), the kind's release control in the imitated release
// holds the new revision (CloneSet: partition "100%" + the in-progressing annotation) so nothing rolls
// before the Rollout controller acts.
import { rolloutForWorkload } from '../../kruise/rollout/find';
import { releaseControlFor } from '../../kruise/rollout/release-control';
import { readRolloutSpec } from '../../kruise/rollout/state-machine';
import { rolloutV1alpha1ToV1beta1 } from '../../kruise/rollout-conversion';
import type { KubeObject } from '../../kruise/types';
import type { KruiseRolloutRelease } from '../../kruise/rollout/release-workload';
import type { AdmissionHook } from '../store-api';
import { WORKLOAD_RESOURCES } from './rollout-workloads';

export function createRolloutWebhook(rollouts: () => KubeObject[], release: () => KruiseRolloutRelease): AdmissionHook[] {
  return WORKLOAD_RESOURCES.map(
    (gr): AdmissionHook => ({
      gr,
      operations: ['UPDATE'],
      admit(_op, obj, old, store) {
        if (!old) return obj;
        // fetchMatchedRollout, the rule `rollout status` of a workload also follows (src/kruise/rollout/find.ts)
        const sameNamespace = rollouts().filter((r) => r.metadata.namespace === obj.metadata.namespace);
        const found = rolloutForWorkload(sameNamespace, { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '', name: obj.metadata.name ?? '' });
        if (!found) return obj;
        const matched = found.apiVersion === 'rollouts.kruise.io/v1alpha1' ? rolloutV1alpha1ToV1beta1(found) : found;
        const spec = readRolloutSpec(matched);
        // IsEmptyRelease: a strategy without steps releases nothing
        if (spec.steps.length === 0) return obj;
        const control = releaseControlFor(obj.apiVersion ?? '', obj.kind ?? '', spec.rollingStyle, release());
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
