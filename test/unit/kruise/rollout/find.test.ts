import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiGroupOf, rolloutForWorkload } from '../../../../src/kruise/rollout/find';
import type { KubeObject } from '../../../../src/kruise/types';
import { loadKind } from './helpers';

const SRC = 'pkg/webhook/workload/mutating/workload_update_handler.go fetchMatchedRollout (openkruise/rollouts v0.6.2)';

function beta(name: string, ref: { apiVersion: string; kind: string; name: string }, extra: { phase?: string; deleting?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1',
    kind: 'Rollout',
    metadata: { name, namespace: 'shop', ...(extra.deleting ? { deletionTimestamp: '2026-11-25T01:00:00Z' } : {}) },
    spec: { workloadRef: ref, strategy: { canary: { steps: [{ replicas: 1 }] } } },
    ...(extra.phase ? { status: { phase: extra.phase } } : {}),
  } as KubeObject;
}

const WEB = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' };

test(`${SRC}: group (any version), kind and name of workloadRef must all match`, () => {
  const other = beta('other', { ...WEB, name: 'api' });
  const deploy = beta('deploy', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' });
  const match = beta('web-rollout', { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', name: 'web' });
  assert.equal(rolloutForWorkload([other, deploy, match], WEB)?.metadata.name, 'web-rollout');
  assert.equal(rolloutForWorkload([other, deploy], WEB), undefined);
  // Advanced StatefulSet vs native StatefulSet: same kind, the group tells them apart.
  const nativeSts = beta('sts', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' });
  assert.equal(rolloutForWorkload([nativeSts], { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', name: 'db' }), undefined);
  assert.equal(rolloutForWorkload([nativeSts], { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' })?.metadata.name, 'sts');
});

test(`${SRC}: Rollouts being deleted and Disabled ones are skipped; the first match wins`, () => {
  const deleting = beta('a-deleting', WEB, { deleting: true });
  const disabled = beta('b-disabled', WEB, { phase: 'Disabled' });
  const first = beta('c-first', WEB, { phase: 'Progressing' });
  const second = beta('d-second', WEB);
  assert.equal(rolloutForWorkload([deleting, disabled, first, second], WEB)?.metadata.name, 'c-first');
  assert.equal(rolloutForWorkload([deleting, disabled], WEB), undefined);
});

test('v1alpha1 Rollouts are matched through spec.objectRef.workloadRef (api/v1alpha1/rollout_types.go)', () => {
  const alpha = loadKind('v1alpha1-canary-manual-step.yaml', 'Rollout');
  const ref = (alpha.spec as { objectRef: { workloadRef: { apiVersion: string; kind: string; name: string } } }).objectRef.workloadRef;
  assert.equal(rolloutForWorkload([alpha], ref)?.metadata.name, alpha.metadata.name);
});

test('apiGroupOf: schema.ParseGroupVersion group ("v1" is the core group)', () => {
  assert.equal(apiGroupOf('apps.kruise.io/v1alpha1'), 'apps.kruise.io');
  assert.equal(apiGroupOf('apps/v1'), 'apps');
  assert.equal(apiGroupOf('v1'), '');
});
