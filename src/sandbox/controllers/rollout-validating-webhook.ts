// Kruise Rollout's validating webhook `vrollout.kb.io` (pkg/webhook/rollout/validating/, rules in
// src/kruise/rollout/rollout-validation.ts) as a sandbox admission hook on rollouts.kruise.io/rollouts: on a
// create, and on an update of the object itself (not its status subresource, which the webhook is not
// registered for), it judges the Rollout in the version the client wrote, against its namespace's other
// Rollouts and, on an update, the stored object's phase; a denial is kube-apiserver's 422 for a webhook.
import type { KubeObject } from '../../kruise/types';
import { convertRolloutObject } from '../../kruise/rollout-conversion';
import { rolloutWebhookDenial, validateRollout, validateRolloutUpdate, type RolloutWebhookRelease } from '../../kruise/rollout/rollout-validation';
import { jsonEqual } from '../../lib/json-equal';
import { ApiError } from '../server/errors';
import type { AdmissionHook } from '../store-api';

const ROLLOUTS = { group: 'rollouts.kruise.io', resource: 'rollouts' };

export function createRolloutValidatingWebhook(release: () => RolloutWebhookRelease): AdmissionHook {
  return {
    gr: ROLLOUTS,
    operations: ['CREATE', 'UPDATE'],
    admit(op, obj, old, store, request) {
      if (request?.subresource === 'status') return obj;
      // A controller's own write of metadata (finalizers, the hash annotation) changes no spec: nothing to judge anew.
      if (op === 'UPDATE' && old && jsonEqual(old.spec, obj.spec) && jsonEqual(old.metadata.annotations ?? {}, obj.metadata.annotations ?? {})) return obj;
      // The webhook decodes the request in its own version (v1alpha1 and v1beta1 have their own rules).
      const version = request?.version ?? (obj.apiVersion ?? '').split('/')[1] ?? 'v1beta1';
      const inVersion = (o: KubeObject): KubeObject => convertRolloutObject(o, version);
      const siblings = store.list(ROLLOUTS, { namespace: obj.metadata.namespace }).filter((r) => r.metadata.name !== obj.metadata.name);
      // The object as written when the client wrote another version than the stored one (a round trip through
      // the storage version would turn v1alpha1 weights into replicas).
      const written = request?.object ?? inVersion(obj);
      const errors =
        op === 'UPDATE' && old
          ? validateRolloutUpdate(inVersion(old), written, (old.status as { phase?: string } | undefined)?.phase, siblings, release())
          : validateRollout(written, siblings, release());
      if (errors.length > 0) throw ApiError.webhookDenied(422, rolloutWebhookDenial(errors));
      return obj;
    },
  };
}
