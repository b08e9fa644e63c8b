import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { convertKruiseObject, ConversionError, EXCLUDE_PREPARING_DELETE_LABEL } from '../../../src/kruise/conversion';
import type { KubeObject } from '../../../src/kruise/types';

const fixture = (name: string): KubeObject => parse(readFileSync(new URL(`../../fixtures/workloads/${name}`, import.meta.url), 'utf8')) as KubeObject;

test('CloneSet v1alpha1 → v1beta1 matches the v1beta1 fixture exactly', () => {
  const alpha = fixture('cloneset-v1alpha1.yaml');
  const before = structuredClone(alpha);
  const beta = convertKruiseObject(alpha, 'apps.kruise.io/v1beta1');
  assert.deepEqual(beta, fixture('cloneset-v1beta1.yaml'));
  assert.deepEqual(alpha, before, 'the input is not mutated');
});

test('CloneSet v1beta1 → v1alpha1 matches the v1alpha1 fixture exactly', () => {
  assert.deepEqual(convertKruiseObject(fixture('cloneset-v1beta1.yaml'), 'apps.kruise.io/v1alpha1'), fixture('cloneset-v1alpha1.yaml'));
});

test('CloneSet round trips v1alpha1 → v1beta1 → v1alpha1 for every update type', () => {
  for (const type of ['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly']) {
    const alpha = fixture('cloneset-v1alpha1.yaml');
    (alpha.spec as { updateStrategy: { type: string } }).updateStrategy.type = type;
    const beta = convertKruiseObject(alpha, 'apps.kruise.io/v1beta1');
    const rolling = (beta.spec as { updateStrategy: { type: string; rollingUpdate: { podUpdatePolicy: string } } }).updateStrategy;
    assert.equal(rolling.type, 'RollingUpdate');
    assert.equal(rolling.rollingUpdate.podUpdatePolicy, type);
    assert.deepEqual(convertKruiseObject(beta, 'apps.kruise.io/v1alpha1'), alpha);
  }
  // Go writes v1alpha1's scaleStrategy struct even when empty: a CloneSet without one comes back with `{}`.
  const pre = fixture('cloneset-v1alpha1-pre-v1.2.yaml');
  assert.deepEqual(convertKruiseObject(convertKruiseObject(pre, 'apps.kruise.io/v1beta1'), 'apps.kruise.io/v1alpha1'), { ...pre, spec: { ...(pre.spec as object), scaleStrategy: {} } });
});

test('CloneSet empty type becomes RollingUpdate/ReCreate; OnDelete drops rollingUpdate one way only', () => {
  const alpha: KubeObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'x' }, spec: { replicas: 2, updateStrategy: { partition: 1 } } };
  const beta = convertKruiseObject(alpha, 'apps.kruise.io/v1beta1');
  assert.deepEqual(beta.spec, { replicas: 2, scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1, podUpdatePolicy: 'ReCreate' } } });
  const onDelete: KubeObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'x' }, spec: { updateStrategy: { type: 'OnDelete', partition: 1 } } };
  assert.deepEqual((convertKruiseObject(onDelete, 'apps.kruise.io/v1beta1').spec as Record<string, unknown>).updateStrategy, { type: 'OnDelete' });
  const back = convertKruiseObject(fixture('cloneset-v1beta1-ondelete.yaml'), 'apps.kruise.io/v1alpha1');
  assert.deepEqual((back.spec as Record<string, unknown>).updateStrategy, { type: 'OnDelete' });
  // ConvertFrom copies rollingUpdate whatever the type: a v1beta1 OnDelete keeps its partition in v1alpha1.
  const kept = convertKruiseObject(fixture('cloneset-v1beta1-ondelete-partition.yaml'), 'apps.kruise.io/v1alpha1');
  assert.deepEqual((kept.spec as Record<string, unknown>).updateStrategy, { type: 'OnDelete', partition: 2 });
});

test('CloneSet PVC reuse is inverted (unset included); the exclude label sets excludePreparingDelete and stays, the field does not become a label', () => {
  const alpha: KubeObject = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'x', labels: { [EXCLUDE_PREPARING_DELETE_LABEL]: 'true' } },
    spec: { scaleStrategy: { disablePVCReuse: false } },
  };
  const beta = convertKruiseObject(alpha, 'apps.kruise.io/v1beta1');
  assert.deepEqual(beta.metadata.labels, { [EXCLUDE_PREPARING_DELETE_LABEL]: 'true' });
  assert.deepEqual((beta.spec as Record<string, unknown>).scaleStrategy, { enablePVCReuse: true, excludePreparingDelete: true });
  const fromBeta: KubeObject = { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', metadata: { name: 'x' }, spec: { scaleStrategy: { excludePreparingDelete: true } } };
  const back = convertKruiseObject(fromBeta, 'apps.kruise.io/v1alpha1');
  assert.equal(back.metadata.labels, undefined);
  assert.deepEqual((back.spec as Record<string, unknown>).scaleStrategy, { disablePVCReuse: true });
});

test('status is carried unchanged', () => {
  const alpha = fixture('cloneset-v1alpha1.yaml');
  assert.deepEqual(convertKruiseObject(alpha, 'apps.kruise.io/v1beta1').status, alpha.status);
});

test('PersistentPodState nodeTopologyKeys ↔ keys in required and each preferred term', () => {
  const alpha = fixture('pps-v1alpha1.yaml');
  const beta = convertKruiseObject(alpha, 'apps.kruise.io/v1beta1');
  assert.deepEqual(beta, fixture('pps-v1beta1.yaml'));
  assert.deepEqual(convertKruiseObject(beta, 'apps.kruise.io/v1alpha1'), alpha);
});

test('kinds of one shape only change apiVersion; cross-group conversion is refused', () => {
  const ads = fixture('ads-v1alpha1.yaml');
  const beta = convertKruiseObject(ads, 'apps.kruise.io/v1beta1');
  assert.equal(beta.apiVersion, 'apps.kruise.io/v1beta1');
  // daemonset_conversion.go: the short hash moves to status.updateRevision.
  const { daemonSetHash, ...status } = ads.status as Record<string, unknown>;
  assert.deepEqual({ ...beta, apiVersion: ads.apiVersion }, { ...ads, status: { ...status, updateRevision: daemonSetHash } });
  const job: KubeObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'ImagePullJob', metadata: { name: 'j' }, spec: { image: 'nginx:1' } };
  assert.deepEqual(convertKruiseObject(job, 'apps.kruise.io/v1beta1'), { ...job, apiVersion: 'apps.kruise.io/v1beta1' });
  assert.throws(() => convertKruiseObject(ads, 'apps/v1'), ConversionError);
});

test('SidecarSet v1alpha1 → v1beta1 (sidecarset_conversion.go): spec.namespace becomes a namespaceSelector, the custom-version label spec.customVersion; and back', () => {
  const alpha: KubeObject = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'SidecarSet',
    metadata: { name: 'log', labels: { 'apps.kruise.io/sidecarset-custom-version': 'v2' } },
    spec: { namespace: 'prod', namespaceSelector: { matchLabels: { env: 'x' } }, selector: { matchLabels: { app: 'web' } }, containers: [{ name: 'logger', image: 'fluent-bit:3.0' }] },
  };
  const beta = convertKruiseObject(alpha, 'apps.kruise.io/v1beta1');
  const spec = beta.spec as Record<string, unknown>;
  assert.equal(spec.namespace, undefined);
  assert.deepEqual(spec.namespaceSelector, { matchLabels: { 'kubernetes.io/metadata.name': 'prod' } }, 'namespace wins over namespaceSelector');
  assert.equal(spec.customVersion, 'v2');
  const back = convertKruiseObject(beta, 'apps.kruise.io/v1alpha1');
  assert.equal((back.spec as Record<string, unknown>).customVersion, undefined);
  assert.equal(back.metadata.labels?.['apps.kruise.io/sidecarset-custom-version'], 'v2');
  assert.deepEqual((back.spec as Record<string, unknown>).namespaceSelector, { matchLabels: { 'kubernetes.io/metadata.name': 'prod' } });
});
