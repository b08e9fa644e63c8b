// The template defaults Kruise's mutating webhooks inject into CloneSets and Advanced StatefulSets.
// Kruise has no test table for this step; the rules are:
// - pkg/webhook/cloneset/mutating/cloneset_create_update_handler.go (v1alpha1 lines 93-107, v1beta1 57-71) and
//   pkg/webhook/statefulset/mutating/statefulset_create_update_handler.go (74-100): injectTemplateDefaults on
//   create, and on an update only when spec.template differs from the old object's;
// - apis/apps/defaults/v1alpha1.go SetDefaultsCloneSet, v1beta1.go SetDefaultsCloneSetV1beta1 and
//   SetDefaultsStatefulSet: SetDefaultPodSpec on the template, SetDefaults_PersistentVolumeClaim on each
//   volume claim template; in-place policies get an empty inPlaceUpdateStrategy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { cloneSetDefaults } from '../../../../src/kruise/rules/cloneset-webhook';
import { advancedStatefulSetDefaults } from '../../../../src/kruise/rules/asts';
import type { KubeObject } from '../../../../src/kruise/types';

type Obj = KubeObject & { spec: Record<string, any> };
const [csV1alpha1, csV1beta1, asts] = parseAllDocuments(readFileSync(join(import.meta.dirname, '../../../fixtures/webhooks/template-defaults.yaml'), 'utf8')).map((d) => d.toJS() as Obj);

const APP_CONTAINER = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' };
const POD_SPEC = { restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', securityContext: {} };

test('CloneSet v1alpha1 on create: pod spec and container defaults (app containers pull Always), claim phase Pending, inPlaceUpdateStrategy {}', () => {
  const out = cloneSetDefaults(csV1alpha1!, true) as Obj;
  const spec = out.spec.template.spec;
  assert.deepEqual({ ...spec, containers: undefined, initContainers: undefined }, { ...POD_SPEC, containers: undefined, initContainers: undefined });
  assert.deepEqual(spec.containers[0], {
    name: 'redis', image: 'redis:7.2', ports: [{ containerPort: 6379, protocol: 'TCP' }], volumeMounts: [{ name: 'data', mountPath: '/data' }], ...APP_CONTAINER,
  });
  // Init containers keep kube's rule: IfNotPresent for a tagged image.
  assert.equal(spec.initContainers[0].imagePullPolicy, 'IfNotPresent');
  assert.deepEqual(out.spec.volumeClaimTemplates[0].status, { phase: 'Pending' });
  assert.deepEqual(out.spec.updateStrategy, { type: 'InPlaceIfPossible', inPlaceUpdateStrategy: {}, partition: 0, maxUnavailable: '20%', maxSurge: 0 });
  assert.equal(csV1alpha1!.spec.template.spec.restartPolicy, undefined, 'a copy: the input is left alone');
});

test('CloneSet v1alpha1 on an update that leaves spec.template alone: no template defaults', () => {
  const out = cloneSetDefaults(csV1alpha1!, false) as Obj;
  assert.deepEqual(out.spec.template, csV1alpha1!.spec.template);
  assert.deepEqual(out.spec.volumeClaimTemplates, csV1alpha1!.spec.volumeClaimTemplates);
  // The strategy defaults apply either way.
  assert.deepEqual(out.spec.updateStrategy.inPlaceUpdateStrategy, {});
});

test('CloneSet v1beta1 on create: the same template defaults; InPlaceOnly gets rollingUpdate.inPlaceUpdateStrategy {}', () => {
  const out = cloneSetDefaults(csV1beta1!, true) as Obj;
  assert.deepEqual(out.spec.template.spec.containers[0], { name: 'redis', image: 'redis:7.2', ...APP_CONTAINER });
  assert.deepEqual(out.spec.updateStrategy.rollingUpdate, { podUpdatePolicy: 'InPlaceOnly', inPlaceUpdateStrategy: {}, partition: 0, maxUnavailable: '20%', maxSurge: 0 });
  assert.deepEqual(cloneSetDefaults(csV1beta1!, false).spec, { ...out.spec, template: csV1beta1!.spec.template });
});

test('a ReCreate CloneSet gets no inPlaceUpdateStrategy', () => {
  const recreate = structuredClone(csV1alpha1!);
  recreate.spec.updateStrategy = { type: 'ReCreate' };
  assert.equal((cloneSetDefaults(recreate, true) as Obj).spec.updateStrategy.inPlaceUpdateStrategy, undefined);
});

test('Advanced StatefulSet on create: template and claim defaults; on an update without a template change, none', () => {
  const out = advancedStatefulSetDefaults(asts!, true) as Obj;
  assert.deepEqual(out.spec.template.spec.containers[0], { name: 'postgres', image: 'postgres:16.1', ...APP_CONTAINER });
  assert.equal(out.spec.template.spec.dnsPolicy, 'ClusterFirst');
  assert.deepEqual(out.spec.volumeClaimTemplates[0].status, { phase: 'Pending' });
  const unchanged = advancedStatefulSetDefaults(asts!, false) as Obj;
  assert.deepEqual(unchanged.spec.template, asts!.spec.template);
  assert.equal(unchanged.spec.volumeClaimTemplates[0].status, undefined);
});
