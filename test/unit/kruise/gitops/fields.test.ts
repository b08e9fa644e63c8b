import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { applyJsonPatch } from '../../../../src/kruise/containers';
import { changedFieldPaths, fieldPathsOf, fieldSet, formatFieldPath, ownsPath, withoutPaths } from '../../../../src/kruise/gitops/fields';
import { formatFinding, gitopsFindings, reverterOf } from '../../../../src/kruise/gitops/owners';
import { applyConflicts, conflictFieldPath, managerFromUserAgent, recordManagedFields } from '../../../../src/kruise/gitops/record';
import type { KubeObject } from '../../../../src/kruise/types';

const cs = (): KubeObject => parse(readFileSync(resolve(import.meta.dirname, '../../../fixtures/gitops/cloneset-flux-owned.yaml'), 'utf8')) as KubeObject;
const IMAGE = ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:image'];

test('changedFieldPaths: a container image is addressed by the container name (k:{"name":...}), as FieldsV1 does', () => {
  const before = cs();
  const after = applyJsonPatch(before, [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' }]);
  assert.deepEqual(changedFieldPaths(before, after), [IMAGE]);
  assert.equal(formatFieldPath(IMAGE), 'spec.template.spec.containers[app].image');
  assert.equal(formatFieldPath(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"containerPort":80,"protocol":"TCP"}']), 'spec.template.spec.containers[80,TCP]');
});

test('changedFieldPaths: an added map key and an added list item are their own leaves; status and server metadata are not tracked', () => {
  const before = cs();
  const after = structuredClone(before) as any;
  after.spec.template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': 'now' };
  after.spec.template.spec.containers[0].env = [{ name: 'A', value: '1' }];
  after.status = { replicas: 9 };
  after.metadata.resourceVersion = '42';
  assert.deepEqual(changedFieldPaths(before, after), [
    ['f:spec', 'f:template', 'f:metadata', 'f:annotations', 'f:kubectl.kubernetes.io/restartedAt'],
    ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:env', 'k:{"name":"A"}', '.'],
    ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:env', 'k:{"name":"A"}', 'f:name'],
    ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:env', 'k:{"name":"A"}', 'f:value'],
  ]);
});

test('ownsPath: the field, a field below a replaced subtree, an atomic list above; not a sibling nor a map a new key joins', () => {
  const flux = (cs().metadata.managedFields as any[])[0].fieldsV1;
  assert.equal(ownsPath(flux, IMAGE), true);
  assert.equal(ownsPath(flux, ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}']), true, 'replacing the container replaces its image');
  assert.equal(ownsPath(flux, ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:args', 'i:0']), true, 'args is atomic');
  assert.equal(ownsPath(flux, ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"sidecar"}', 'f:image']), false);
  assert.equal(ownsPath(flux, ['f:spec', 'f:replicas']), false);
  assert.equal(ownsPath(flux, ['f:spec', 'f:template', 'f:metadata', 'f:annotations', 'f:x']), false);
  assert.equal(ownsPath(flux, ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:env', 'k:{"name":"A"}', '.']), false);
});

test('gitopsFindings: the image Flux applied warns naming kustomize-controller; replicas (kubectl-scale) and the sidecar do not', () => {
  const before = cs();
  const after = applyJsonPatch(before, [
    { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' },
    { op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'busybox:1.37' },
    { op: 'replace', path: '/spec/replicas', value: 6 },
  ]);
  const findings = gitopsFindings(before, after, 'kubectl-set');
  assert.deepEqual(findings.map(formatFinding), ['spec.template.spec.containers[app].image is managed by kustomize-controller; Flux will set it back at the next reconcile']);
  assert.deepEqual(gitopsFindings(before, after, 'kustomize-controller'), [], 'its own fields are no finding');
});

test('reverterOf: Argo CD, Flux and any server-side apply manager; an Update manager (kubectl-set, client-side kubectl apply) is not', () => {
  assert.equal(reverterOf({ manager: 'argocd-controller', operation: 'Apply' })?.tool, 'Argo CD');
  assert.equal(reverterOf({ manager: 'argocd-application-controller', operation: 'Update' })?.tool, 'Argo CD');
  assert.equal(reverterOf({ manager: 'helm-controller', operation: 'Update' })?.tool, 'Flux');
  assert.equal(reverterOf({ manager: 'kubectl-client-side-apply', operation: 'Update' }), undefined, 'a one-off kubectl apply reconciles nothing');
  assert.equal(reverterOf({ manager: 'my-operator', operation: 'Apply' })?.effect, 'my-operator will set it back at its next apply');
  assert.equal(reverterOf({ manager: 'kubectl-set', operation: 'Update' }), undefined);
});

test('recordManagedFields: an Update moves the changed fields to its manager and takes them from the others', () => {
  const before = cs();
  const after = applyJsonPatch(before, [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' }]);
  const entries = recordManagedFields(before, after, { manager: 'kubectl-set', operation: 'Update', apiVersion: 'apps.kruise.io/v1alpha1', time: 't' });
  assert.deepEqual(entries.map((e) => e.manager), ['kustomize-controller', 'kubectl-scale', 'kruise-manager', 'kubectl-set']);
  assert.equal(ownsPath(entries[0]!.fieldsV1, IMAGE), false);
  assert.equal(ownsPath(entries[0]!.fieldsV1, ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:name']), true, 'the rest of the container stays Flux\'s');
  assert.deepEqual(entries[3]!.fieldsV1, fieldSet([IMAGE]));
  assert.equal(entries[3]!.operation, 'Update');
  // The same manager again: one entry, fields merged, in its place.
  const again = applyJsonPatch(after, [{ op: 'replace', path: '/spec/replicas', value: 7 }]);
  const next = recordManagedFields({ ...after, metadata: { ...after.metadata, managedFields: entries } }, again, { manager: 'kubectl-set', operation: 'Update', apiVersion: 'apps.kruise.io/v1alpha1', time: 't2' });
  assert.deepEqual(next.map((e) => e.manager), ['kustomize-controller', 'kruise-manager', 'kubectl-set'], 'kubectl-scale owned nothing else and is gone');
  assert.deepEqual(next[2]!.fieldsV1, fieldSet([IMAGE, ['f:spec', 'f:replicas']]));
});

test('recordManagedFields: an Apply owns exactly its configuration, shares fields it leaves as they were, takes those it changes', () => {
  const created = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'app', image: 'a' }] } } } } as KubeObject;
  const first = recordManagedFields(undefined, created, { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v', time: 't' });
  assert.deepEqual(first[0]!.fieldsV1, fieldSet(fieldPathsOf(created)));
  const applied = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'app', image: 'b' }] } } } } as KubeObject;
  const after = structuredClone(created) as any;
  after.spec.template.spec.containers[0].image = 'b';
  const entries = recordManagedFields({ ...created, metadata: { ...created.metadata, managedFields: first } }, after, { manager: 'kustomize-controller', operation: 'Apply', apiVersion: 'v', time: 't' }, applied);
  assert.deepEqual(entries.map((e) => [e.manager, e.operation]), [['kubectl-create', 'Update'], ['kustomize-controller', 'Apply']]);
  assert.equal(ownsPath(entries[0]!.fieldsV1, ['f:spec', 'f:replicas']), true, 'same value: shared');
  assert.equal(ownsPath(entries[0]!.fieldsV1, IMAGE), false, 'changed: taken');
  assert.equal(ownsPath(entries[1]!.fieldsV1, IMAGE), true);
  assert.equal(ownsPath(entries[1]!.fieldsV1, ['f:spec', 'f:replicas']), true);
});

test('withoutPaths keeps an atomic field above a removed path; managerFromUserAgent takes the first word', () => {
  const set = fieldSet([['f:spec', 'f:args']]);
  assert.deepEqual(withoutPaths(set, [['f:spec', 'f:args', 'i:0']]), set);
  assert.deepEqual(withoutPaths(set, [['f:spec', 'f:args']]), {});
  assert.equal(managerFromUserAgent('kubectl/v1.31.0 (linux/amd64) kubernetes/abc'), 'kubectl');
  assert.equal(managerFromUserAgent(undefined), 'unknown');
});

test('applyConflicts: an Apply changing a field another manager owns conflicts; the same value, its own fields and status do not', () => {
  const before = cs();
  const applied = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas: 3, template: { spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] } } } } as KubeObject;
  const after = structuredClone(before) as any;
  after.spec.replicas = 3;
  assert.deepEqual(applyConflicts(before, after, applied, 'flux-applier'), [{ manager: 'kubectl-scale', apiVersion: 'apps.kruise.io/v1alpha1', field: '.spec.replicas' }]);
  assert.deepEqual(applyConflicts(before, before, applied, 'flux-applier'), [], 'values unchanged: shared, no conflict');
  const imageChange = structuredClone(before) as any;
  imageChange.spec.template.spec.containers[0].image = 'nginx:1.26';
  assert.deepEqual(applyConflicts(before, imageChange, applied, 'kustomize-controller'), [], 'its own Apply fields');
  assert.equal(conflictFieldPath(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"containerPort":80,"protocol":"TCP"}', 'f:name']), '.spec.template.spec.containers[containerPort=80,protocol="TCP"].name');
});
