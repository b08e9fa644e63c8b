// runScaledown reads the workload, then its pods: two reads. A concurrent scaledown of the same pod can
// land between them and its pod be deleted at once, so the pod list no longer holds the pod while the
// workload we read does not yet record it. That must read as "already scaled down", not as a pod that
// never existed (exit 2): found by test/e2e/scaledown.test.ts "two scale-downs of the same pod at once"
// failing under load; this script replays the interleaving exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runScaledown } from '../../../src/engine/scaledown';
import type { KubeClient, KubeObject, ResourceType } from '../../../src/kube/client';
import { KubeApiError } from '../../../src/kube/errors';
import { SCALEDOWN_ANNOTATION } from '../../../src/kruise/plans/scaledown';

const RT: ResourceType = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true } as ResourceType;
const cloneSet = (rv: string, replicas: number, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-web', resourceVersion: rv, annotations },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, scaleStrategy: {} },
});
const pod = (name: string): KubeObject => ({
  metadata: { name, uid: `uid-${name}`, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: 'uid-web', controller: true }] },
});

const notFound = (): KubeApiError => new KubeApiError('pods "web-a" not found', 404, 'NotFound', undefined);

test('a concurrent scaledown landing between our workload read and our pod list: unchanged, nothing written', async () => {
  const before = cloneSet('10', 3);
  const after = cloneSet('11', 2, { [SCALEDOWN_ANNOTATION]: JSON.stringify({ pods: { 'web-a': 'uid-web-a' } }) });
  let gets = 0;
  const writes: string[] = [];
  const client = {
    // first read: before the other run's write; every later read: after it
    get: async (rt: ResourceType, name: string) => {
      if (rt.resource === 'pods') throw notFound();
      return gets++ === 0 ? before : after;
    },
    list: async () => ({ items: [pod('web-b'), pod('web-c')], metadata: {} }),
    patch: async () => {
      writes.push('patch');
      return after;
    },
  } as unknown as KubeClient;
  const out = await runScaledown(client, { rt: RT, kind: 'CloneSet', name: 'web', namespace: 'default', request: { pods: ['web-a'] }, dryRun: 'none', fieldManager: 'test' });
  assert.equal(out.kind, 'unchanged');
  assert.deepEqual(writes, []);
});

test('a pod that does not exist on a workload that did not move: still refused as bad input (exit 2), one extra GET', async () => {
  let gets = 0;
  const client = {
    get: async (rt: ResourceType) => {
      if (rt.resource === 'pods') throw notFound();
      gets++;
      return cloneSet('10', 3);
    },
    list: async () => ({ items: [pod('web-b'), pod('web-c')], metadata: {} }),
    patch: async () => assert.fail('no write'),
  } as unknown as KubeClient;
  await assert.rejects(
    runScaledown(client, { rt: RT, kind: 'CloneSet', name: 'web', namespace: 'default', request: { pods: ['web-a'] }, dryRun: 'none', fieldManager: 'test' }),
    (err: Error & { exitCode?: number }) => /pod "web-a" not found/.test(err.message) && err.exitCode === 2,
  );
  assert.equal(gets, 2);
});
