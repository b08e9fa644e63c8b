import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { Pod } from '../../../../src/kruise/types';
import { buildCrr, crrName, DEFAULT_CRR_TTL_SECONDS, labelValueFor, RESTART_RUN_LABEL, workloadCrrSelector } from '../../../../src/kruise/builders/crr';
import { restartOptionsFromFlags } from '../../../../src/commands/restart/run';
import { crrRecordedRestarts } from '../../../../src/kruise/plans/restart';
import { buildImageListPullJob, buildImagePullJob, imageReferenceProblem, pullJobName } from '../../../../src/kruise/builders/imagepulljob';
import { buildPps, parsePreferredTopology, parseTopologyKeys } from '../../../../src/kruise/builders/pps';
import { preferredByKey, readPpsSpec } from '../../../../src/kruise/rules/pps';
import { crdSchema, servedVersions, validate } from './crd-schema';

const pods = parseAllDocuments(readFileSync(new URL('../../../fixtures/ops/cloneset-web-pods.yaml', import.meta.url), 'utf8')).map((d) => d.toJS() as Pod);
const RELEASES = ['v1.3.0', 'v1.9.0', 'master'];
const run = { runId: 'r1', workloadKind: 'CloneSet', workloadName: 'web', total: 2, requestedContainers: [] };

test('CRR names are deterministic per pod, containers and run, and fit 253 characters', () => {
  const pod = pods[0]!;
  const a = crrName(pod.metadata.name!, pod.metadata.uid!, ['nginx', 'log-agent'], 'r1');
  assert.equal(a, crrName(pod.metadata.name!, pod.metadata.uid!, ['log-agent', 'nginx'], 'r1'));
  assert.notEqual(a, crrName(pod.metadata.name!, pod.metadata.uid!, ['nginx'], 'r1'));
  assert.notEqual(a, crrName(pod.metadata.name!, pod.metadata.uid!, ['nginx', 'log-agent'], 'r2'));
  assert.match(a, /^web-7xkq2-[a-z0-9]{10}$/);
  const long = crrName('a'.repeat(253), 'uid', ['c'], 'r1');
  assert.ok(long.length <= 253);
  assert.match(long, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
  assert.ok(labelValueFor('w'.repeat(200)).length <= 63);
});

test('CRR carries the run labels and only the fields a client may set', () => {
  const crr = buildCrr({
    apiVersion: 'apps.kruise.io/v1alpha1',
    pod: pods[0]!,
    containers: ['nginx'],
    run,
    strategy: { failurePolicy: 'Ignore', orderedRecreate: true, unreadyGracePeriodSeconds: 3, minStartedSeconds: 10 },
    activeDeadlineSeconds: 300,
    ttlSecondsAfterFinished: 1800,
  });
  assert.equal(crr.metadata.labels![RESTART_RUN_LABEL], 'r1');
  assert.equal(crr.metadata.namespace, 'default');
  assert.deepEqual(crr.spec, {
    podName: 'web-7xkq2',
    containers: [{ name: 'nginx' }],
    strategy: { failurePolicy: 'Ignore', orderedRecreate: true, unreadyGracePeriodSeconds: 3, minStartedSeconds: 10 },
    activeDeadlineSeconds: 300,
    ttlSecondsAfterFinished: 1800,
  });
  assert.equal(workloadCrrSelector('CloneSet', 'web'), 'kubectl-kruise/workload-kind=cloneset,kubectl-kruise/workload-name=web');
});

test('#32: a CRR is deleted 5 minutes after it finished unless told otherwise (Kruise has no default: crr_controller.go keeps it forever); --ttl=-1 keeps it', () => {
  const ttl = (t?: number | null) => (buildCrr({ apiVersion: 'apps.kruise.io/v1alpha1', pod: pods[0]!, containers: ['nginx'], run, ttlSecondsAfterFinished: t }).spec as { ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished;
  assert.equal(DEFAULT_CRR_TTL_SECONDS, 300);
  assert.equal(ttl(undefined), 300);
  assert.equal(ttl(0), 0);
  assert.equal(ttl(null), undefined);
  assert.equal(restartOptionsFromFlags({}).ttlSecondsAfterFinished, undefined);
  assert.equal(restartOptionsFromFlags({ ttl: '-1' }).ttlSecondsAfterFinished, null);
  assert.equal(restartOptionsFromFlags({ ttl: '1h' }).ttlSecondsAfterFinished, 3600);
  assert.throws(() => restartOptionsFromFlags({ ttl: '-2s' }), /--ttl/);
});

test("a CRR's recorded restart counts are the webhook's statusContext (the before of a restart), none before admission", () => {
  const crr = buildCrr({ apiVersion: 'apps.kruise.io/v1alpha1', pod: pods[0]!, containers: ['nginx', 'log-agent'], run });
  assert.equal(crrRecordedRestarts(crr), undefined);
  (crr.spec as { containers: Array<Record<string, unknown>> }).containers = [
    { name: 'nginx', statusContext: { containerID: 'containerd://a', restartCount: 9 } },
    { name: 'log-agent', statusContext: { containerID: 'containerd://b' } },
  ];
  assert.deepEqual(crrRecordedRestarts(crr), { nginx: 9, 'log-agent': 0 });
});

for (const release of RELEASES) {
  for (const version of servedVersions(release, 'containerrecreaterequests')) {
    test(`CRR validates against ${release} ${version} schema`, () => {
      const schema = crdSchema(release, 'containerrecreaterequests', version)!;
      const hasForce = JSON.stringify(schema).includes('forceRecreate');
      const crr = buildCrr({
        apiVersion: `apps.kruise.io/${version}`,
        pod: pods[1]!,
        containers: ['nginx', 'log-agent'],
        run,
        strategy: { failurePolicy: 'Fail', orderedRecreate: true, forceRecreate: hasForce, unreadyGracePeriodSeconds: 0, minStartedSeconds: 5 },
        activeDeadlineSeconds: 3,
        ttlSecondsAfterFinished: 0,
      });
      assert.deepEqual(validate(schema, crr), []);
      const byDefault = buildCrr({ apiVersion: `apps.kruise.io/${version}`, pod: pods[1]!, containers: ['nginx'], run });
      assert.equal((byDefault.spec as { ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished, DEFAULT_CRR_TTL_SECONDS);
      assert.deepEqual(validate(schema, byDefault), []);
    });
  }
  for (const version of servedVersions(release, 'imagepulljobs')) {
    test(`ImagePullJob validates against ${release} ${version} schema (pod and node targets)`, () => {
      const schema = crdSchema(release, 'imagepulljobs', version)!;
      const options = { parallelism: 2, timeoutSeconds: 120, backoffLimit: 1, pullSecrets: ['regcred'], ttlSecondsAfterFinished: 600 };
      for (const target of [
        { kind: 'pods' as const, podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'controller-revision-hash', operator: 'NotIn', values: ['web-1', '1'] }] } },
        { kind: 'nodes' as const, names: ['node-1', 'node-2'] },
        { kind: 'nodeSelector' as const, matchLabels: { 'topology.kubernetes.io/zone': 'zone-a' } },
        { kind: 'allNodes' as const },
      ]) {
        const job = buildImagePullJob({ apiVersion: `apps.kruise.io/${version}`, name: 'web-x', namespace: 'default', images: ['nginx:1.25.3'], target, options });
        assert.deepEqual(validate(schema, job), [], JSON.stringify(target));
      }
    });
  }
  for (const version of servedVersions(release, 'imagelistpulljobs')) {
    test(`ImageListPullJob validates against ${release} ${version} schema`, () => {
      const schema = crdSchema(release, 'imagelistpulljobs', version)!;
      const job = buildImageListPullJob({
        apiVersion: `apps.kruise.io/${version}`,
        name: 'web-x',
        namespace: 'default',
        images: ['nginx:1.25.3', 'fluent/fluent-bit:3.0'],
        target: { kind: 'pods', podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'controller-revision-hash', operator: 'NotIn', values: ['a'] }] } },
        options: { parallelism: 1, timeoutSeconds: 60 },
      });
      assert.deepEqual(validate(schema, job), []);
    });
  }
  for (const version of servedVersions(release, 'persistentpodstates')) {
    test(`PersistentPodState validates against ${release} ${version} schema`, () => {
      const schema = crdSchema(release, 'persistentpodstates', version)!;
      const hasAnnotations = JSON.stringify(schema).includes('persistentPodAnnotations');
      const pps = buildPps({
        apiVersion: `apps.kruise.io/${version}`,
        name: 'db',
        namespace: 'default',
        target: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' },
        required: ['topology.kubernetes.io/zone'],
        preferred: [{ key: 'kubernetes.io/hostname', weight: 100 }],
        podAnnotations: hasAnnotations ? ['example.com/ip'] : [],
        retention: 'WhenDeleted',
      });
      assert.deepEqual(validate(schema, pps), []);
      const keysField = version === 'v1beta1' ? 'keys' : 'nodeTopologyKeys';
      assert.deepEqual((pps.spec as { requiredPersistentTopology: Record<string, string[]> }).requiredPersistentTopology[keysField], ['topology.kubernetes.io/zone']);
      assert.deepEqual(preferredByKey(readPpsSpec(pps)), [{ key: 'kubernetes.io/hostname', weight: 100 }]);
    });
  }
}

test('the schema check itself catches what a server would prune or reject', () => {
  const schema = crdSchema('v1.3.0', 'containerrecreaterequests', 'v1alpha1')!;
  const crr = buildCrr({ apiVersion: 'apps.kruise.io/v1alpha1', pod: pods[0]!, containers: ['nginx'], run, strategy: { forceRecreate: true } });
  assert.deepEqual(validate(schema, crr), ['.spec.strategy.forceRecreate: unknown field']);
  const noPod = { ...crr, spec: { containers: [{ name: 'nginx' }] } };
  assert.deepEqual(validate(schema, noPod), ['.spec.podName: Required value']);
});

test('pull job names are stable and image references are checked like a docker reference', () => {
  const t = { kind: 'nodes' as const, names: ['node-1'] };
  assert.equal(pullJobName('web', ['b', 'a'], t), pullJobName('web', ['a', 'b'], t));
  assert.notEqual(pullJobName('web', ['a'], t), pullJobName('web', ['a'], { kind: 'nodes', names: ['node-2'] }));
  for (const ok of ['nginx', 'nginx:1.25', 'docker.io/library/nginx:1.25@sha256:' + 'a'.repeat(64), 'localhost:5000/team/app:v1', 'registry.example.com/a_b/c-d:fail-pull']) {
    assert.equal(imageReferenceProblem(ok), undefined, ok);
  }
  for (const bad of ['', 'Nginx:1', 'nginx:', 'a'.repeat(64), 'nginx::1', 'reg.io/Team/app', 'ngi nx', 'nginx@sha256:zz']) {
    assert.notEqual(imageReferenceProblem(bad), undefined, bad);
  }
});

test('topology flags: keys validated, weights 1-100', () => {
  assert.deepEqual(parseTopologyKeys('topology.kubernetes.io/zone,kubernetes.io/hostname', '--required-topology'), ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
  assert.throws(() => parseTopologyKeys('a,,b', '--required-topology'), /empty topology key/);
  assert.throws(() => parseTopologyKeys('Bad Key', '--required-topology'), /invalid topology key/);
  assert.deepEqual(parsePreferredTopology('kubernetes.io/hostname:50,topology.kubernetes.io/zone'), [
    { key: 'kubernetes.io/hostname', weight: 50 },
    { key: 'topology.kubernetes.io/zone', weight: 100 },
  ]);
  assert.throws(() => parsePreferredTopology('kubernetes.io/hostname:0'), /from 1 to 100/);
  assert.throws(() => parsePreferredTopology('kubernetes.io/hostname:101'), /from 1 to 100/);
  assert.throws(() => parsePreferredTopology('kubernetes.io/hostname:x'), /integer/);
});

test('a built PersistentPodState passes the webhook rules; the pod-state preview follows the controller', async () => {
  const { validatePersistentPodState } = await import('../../../../src/kruise/rules/pps');
  const { previewPodStates, podStateRows } = await import('../../../../src/engine/pps-view');
  const pps = buildPps({
    apiVersion: 'apps.kruise.io/v1beta1',
    name: 'web',
    namespace: 'default',
    target: { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', name: 'web' },
    required: ['topology.kubernetes.io/zone'],
    preferred: [{ key: 'kubernetes.io/hostname', weight: 60 }],
    podAnnotations: [],
  });
  assert.deepEqual(validatePersistentPodState(pps, undefined, []), []);
  const nodes: Array<{ metadata: { name: string; labels: Record<string, string> } }> = [
    { metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1', 'topology.kubernetes.io/zone': 'zone-a' } } },
    { metadata: { name: 'node-2', labels: { 'kubernetes.io/hostname': 'node-2' } } },
  ];
  const notReady: Pod = { ...pods[1]!, metadata: { ...pods[1]!.metadata, name: 'web-b9d4m' }, status: { ...pods[1]!.status, conditions: [{ type: 'Ready', status: 'False' }] } };
  const states = previewPodStates(pps, [pods[0]!, notReady], nodes);
  assert.deepEqual(states, { 'web-7xkq2': { nodeName: 'node-1', nodeTopologyLabels: { 'topology.kubernetes.io/zone': 'zone-a', 'kubernetes.io/hostname': 'node-1' } } });
  // A pod recorded on node-2 that now runs on node-1 is reported as elsewhere.
  const withStatus = { ...pps, status: { podStates: { 'web-7xkq2': { nodeName: 'node-2', nodeTopologyLabels: { 'kubernetes.io/hostname': 'node-2' } }, 'web-0': { nodeName: 'node-1' } } } };
  const rows = podStateRows(withStatus, [pods[0]!]);
  assert.deepEqual(rows.map((r) => [r.pod, r.exists, r.elsewhere, r.currentNode]), [['web-0', false, false, undefined], ['web-7xkq2', true, true, 'node-1']]);
});
