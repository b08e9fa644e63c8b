import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Pod } from '../../../../src/kruise/types';
import { batchSizeFor, containersToRestart, crrBoundElsewhere, crrOutcome, parseContainerList, planBatches, podReplacedSince, validateRestartTargets, wholeSeconds } from '../../../../src/kruise/plans/restart';
import { imagesNotYetRun, parseNodeSelector, planWorkloadImages, planWorkloadPredownload } from '../../../../src/kruise/plans/predownload';

const pods = parseAllDocuments(readFileSync(new URL('../../../fixtures/ops/cloneset-web-pods.yaml', import.meta.url), 'utf8')).map((d) => d.toJS() as Pod);

test('max-unavailable: integers as is, percentages round down with a minimum of 1', () => {
  assert.equal(batchSizeFor('2', 6), 2);
  assert.equal(batchSizeFor('10%', 1000), 100);
  assert.equal(batchSizeFor('10%', 5), 1);
  assert.equal(batchSizeFor('50%', 5), 2);
  assert.equal(batchSizeFor('100%', 7), 7);
  for (const bad of ['0', '-1', '0%', '101%', 'x', '5.5', '%']) assert.throws(() => batchSizeFor(bad, 6), /max-unavailable/, bad);
});

test('batches follow pod name order with ordinals compared numerically', () => {
  const mk = (name: string) => ({ metadata: { name } });
  const batches = planBatches(['web-10', 'web-2', 'web-1', 'web-3', 'web-4', 'web-5'].map(mk), 2);
  assert.deepEqual(batches.map((b) => b.map((p) => p.metadata.name)), [['web-1', 'web-2'], ['web-3', 'web-4'], ['web-5', 'web-10']]);
});

test('containers: all by default, unknown or unstarted ones are reported per pod', () => {
  assert.deepEqual(containersToRestart(pods[0]!, []).containers, ['nginx', 'log-agent']);
  const r = validateRestartTargets(pods, ['nginx', 'sidecar']);
  assert.deepEqual(r.problems.map((p) => p.pod), ['web-7xkq2', 'web-b9d4m']);
  assert.match(r.problems[0]!.message, /no container "sidecar"/);
  const unscheduled: Pod = { ...pods[0]!, spec: { ...pods[0]!.spec, nodeName: undefined } };
  assert.match(validateRestartTargets([unscheduled], []).problems[0]!.message, /not scheduled/);
  const notStarted: Pod = { ...pods[0]!, status: { ...pods[0]!.status, containerStatuses: [] } };
  assert.match(validateRestartTargets([notStarted], ['nginx']).problems[0]!.message, /not been started/);
});

test('-c parsing rejects empty names', () => {
  assert.deepEqual(parseContainerList(['a,b', 'a']), ['a', 'b']);
  assert.deepEqual(parseContainerList(undefined), []);
  assert.throws(() => parseContainerList(['']), /empty container name/);
  assert.throws(() => parseContainerList(['a,']), /empty container name/);
  assert.throws(() => parseContainerList(['A']), /invalid container name/);
});

test('durations must be whole seconds within range', () => {
  assert.equal(wholeSeconds(3000, '--active-deadline', 3), 3);
  assert.throws(() => wholeSeconds(2000, '--active-deadline', 3), /at least 3s/);
  assert.throws(() => wholeSeconds(1500, '--ttl'), /whole number/);
});

test('CRR outcome is judged from the container phases', () => {
  const m = { name: 'x' };
  assert.equal(crrOutcome({ metadata: m }), 'Running');
  assert.equal(crrOutcome({ metadata: m, status: { phase: 'Recreating' } }), 'Running');
  assert.equal(crrOutcome({ metadata: m, status: { phase: 'Completed', containerRecreateStates: [{ name: 'a', phase: 'Succeeded' }] } }), 'Succeeded');
  assert.equal(crrOutcome({ metadata: m, status: { phase: 'Completed', containerRecreateStates: [{ name: 'a', phase: 'Succeeded' }, { name: 'b', phase: 'Failed' }] } }), 'Failed');
  assert.equal(crrOutcome({ metadata: m, status: { phase: 'Completed', message: 'pod has gone' } }), 'Failed');
});

test('pre-download picks the template images old pods do not run, on their nodes', () => {
  const template = [{ name: 'nginx', image: 'nginx:1.25.3' }, { name: 'log-agent', image: 'fluent/fluent-bit:2.2' }];
  assert.deepEqual(imagesNotYetRun(template, pods), [{ container: 'nginx', image: 'nginx:1.25.3', pods: ['web-b9d4m'], nodes: ['node-2'] }]);
  const plan = planWorkloadPredownload({ templateContainers: template, pods, selector: { matchLabels: { app: 'web' } }, updateRevision: 'web-6d9b8c7f5d' })!;
  assert.deepEqual(plan.images, ['nginx:1.25.3']);
  assert.deepEqual(plan.nodes, ['node-2']);
  assert.deepEqual(plan.target, {
    kind: 'pods',
    podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'controller-revision-hash', operator: 'NotIn', values: ['6d9b8c7f5d', 'web-6d9b8c7f5d'] }] },
  });
  // Without a revision to exclude, the nodes are named.
  assert.deepEqual(planWorkloadPredownload({ templateContainers: template, pods })!.target, { kind: 'nodes', names: ['node-2'] });
  assert.equal(planWorkloadPredownload({ templateContainers: [{ name: 'log-agent', image: 'fluent/fluent-bit:2.2' }], pods }), undefined);
});

test('node selector flag', () => {
  assert.deepEqual(parseNodeSelector('a=b,c=d'), { a: 'b', c: 'd' });
  assert.throws(() => parseNodeSelector('a'), /key=value/);
});

test('every CRR built passes the webhook rules the sandbox enforces', async () => {
  const { buildCrr } = await import('../../../../src/kruise/builders/crr');
  const { validateCrrSpec, validateCrrAgainstPod } = await import('../../../../src/kruise/rules/crr');
  for (const pod of pods) {
    const crr = buildCrr({
      apiVersion: 'apps.kruise.io/v1alpha1',
      pod,
      containers: ['nginx', 'log-agent'],
      run: { runId: 'r', workloadKind: 'CloneSet', workloadName: 'web', total: 2, requestedContainers: [] },
      strategy: { failurePolicy: 'Ignore', minStartedSeconds: 1 },
      activeDeadlineSeconds: 3,
    });
    const spec = crr.spec as Parameters<typeof validateCrrSpec>[0];
    assert.deepEqual(validateCrrSpec(spec), []);
    assert.deepEqual(validateCrrAgainstPod(spec!, pod), []);
  }
});

test('explicit images for a workload: every node running one of its pods, deleting pods and unscheduled ones left out', () => {
  const deleting: Pod = { ...pods[0]!, metadata: { ...pods[0]!.metadata, name: 'web-gone', deletionTimestamp: '2026-11-24T10:00:00Z' }, spec: { ...pods[0]!.spec, nodeName: 'node-9' } };
  const pending: Pod = { ...pods[0]!, metadata: { ...pods[0]!.metadata, name: 'web-pending' }, spec: { ...pods[0]!.spec, nodeName: undefined } };
  const plan = planWorkloadImages({ images: ['redis:7.2', 'nginx:1.28', 'redis:7.2'], pods: [...pods, deleting, pending] })!;
  const nodes = [...new Set(pods.map((p) => p.spec.nodeName!))].sort();
  assert.deepEqual(plan.images, ['nginx:1.28', 'redis:7.2']);
  assert.deepEqual(plan.nodes, nodes);
  assert.deepEqual(plan.target, { kind: 'nodes', names: nodes });
  assert.ok(!plan.pods.includes('web-gone') && !plan.pods.includes('web-pending'));
  assert.equal(planWorkloadImages({ images: ['nginx:1.28'], pods: [pending] }), undefined);
});

test('restart batches act on the pods they were planned on: a pod deleted, terminating or replaced under its name is not restarted; a CRR the webhook bound to another pod is not ours', () => {
  const planned = { metadata: { name: 'db-2', uid: 'u-1' } } as Pod;
  assert.equal(podReplacedSince(planned, { metadata: { name: 'db-2', uid: 'u-1' } } as Pod), false);
  assert.equal(podReplacedSince(planned, undefined), true);
  assert.equal(podReplacedSince(planned, { metadata: { name: 'db-2', uid: 'u-1', deletionTimestamp: '2026-11-28T12:00:00Z' } } as Pod), true);
  assert.equal(podReplacedSince(planned, { metadata: { name: 'db-2', uid: 'u-2' } } as Pod), true);
  const crr = (uid?: string) => ({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'ContainerRecreateRequest', metadata: { name: 'db-2-x', ...(uid ? { labels: { 'crr.apps.kruise.io/pod-uid': uid } } : {}) } });
  assert.equal(crrBoundElsewhere(crr('u-1'), planned), false);
  assert.equal(crrBoundElsewhere(crr('u-2'), planned), true);
  // Not admitted by Kruise's webhook (a dry run, an older server): nothing to judge by.
  assert.equal(crrBoundElsewhere(crr(), planned), false);
});
