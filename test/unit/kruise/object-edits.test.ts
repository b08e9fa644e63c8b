// `set serviceaccount|selector|subject` edits (src/kruise/object-edits.ts): kubectl's rules, with the
// rows of kubectl's own tests (pkg/cmd/set/set_subject_test.go, set_selector_test.go) named after
// their Go test, and the minimal guarded JSON patches we send instead of kubectl's merge patches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { applyJsonPatch } from '../../../src/kruise/containers';
import {
  checkSubjectFlags,
  formatExpressions,
  hasNamespacelessServiceAccount,
  parseSelectorExpression,
  planServiceAccountChange,
  planServiceSelectorChange,
  planSubjectChange,
  selectorRefusal,
  subjectsFromFlags,
  type Subject,
} from '../../../src/kruise/object-edits';
import type { KubeObject } from '../../../src/kruise/types';

type Obj = KubeObject & Record<string, any>;
const fixture = (dir: string, file: string): Obj => parse(readFileSync(join(import.meta.dirname, '../../fixtures', dir, file), 'utf8')) as Obj;
const flags = (users: string[] = [], groups: string[] = [], serviceAccounts: string[] = []) => ({ users, groups, serviceAccounts });
const RBAC = 'rbac.authorization.k8s.io';

test('TestValidate (pkg/cmd/set/set_subject_test.go): missing subjects, "foo", "foo:" refused; ":foo" refused for a ClusterRoleBinding; the valid case', () => {
  assert.equal(checkSubjectFlags(flags()), 'you must specify at least one value of user, group or serviceaccount'); // test-missing-subjects
  assert.match(checkSubjectFlags(flags([], [], ['foo']))!, /serviceaccount must be <namespace>:<name>/); // test-invalid-serviceaccounts
  assert.match(checkSubjectFlags(flags([], [], ['foo:']))!, /serviceaccount must be <namespace>:<name>/); // test-missing-serviceaccounts-name
  // test-missing-serviceaccounts-namespace: valid as flags, refused for a ClusterRoleBinding (set subject checks the kind)
  assert.equal(checkSubjectFlags(flags([], [], [':foo'])), undefined);
  assert.equal(hasNamespacelessServiceAccount(flags([], [], [':foo'])), true);
  assert.equal(checkSubjectFlags(flags(['foo'], ['foo'], ['ns:foo'])), undefined); // test-valid-case
  // Names the API server would refuse are caught before sending.
  assert.match(checkSubjectFlags(flags([], [], ['Team_A:foo']))!, /invalid namespace "Team_A"/);
  assert.match(checkSubjectFlags(flags([], [], ['ns:Foo']))!, /invalid service account name "Foo"/);
  assert.match(checkSubjectFlags(flags(['']))!, /--user must not be empty/);
});

test('subjects come in kubectl\'s order (users, groups, service accounts; each sorted, unique); ":name" takes the current namespace', () => {
  assert.deepEqual(subjectsFromFlags(flags(['bob', 'alice', 'bob'], ['devs'], ['ops:b', ':a']), 'team'), [
    { kind: 'User', apiGroup: RBAC, name: 'alice' },
    { kind: 'User', apiGroup: RBAC, name: 'bob' },
    { kind: 'Group', apiGroup: RBAC, name: 'devs' },
    { kind: 'ServiceAccount', name: 'a', namespace: 'team' },
    { kind: 'ServiceAccount', name: 'b', namespace: 'ops' },
  ]);
});

const binding = (subjects?: Subject[]): Obj => ({ apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'admin', namespace: 'one' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'admin' }, ...(subjects ? { subjects } : {}) });

test('TestAddSubject (set_subject_test.go) rows: a user already bound changes nothing; a service account of another namespace is appended', () => {
  // "add resource with users": existing a, b; adding a -> no change
  const users = binding([
    { apiGroup: RBAC, kind: 'User', name: 'a' },
    { apiGroup: RBAC, kind: 'User', name: 'b' },
  ]);
  assert.deepEqual(planSubjectChange(users, [{ apiGroup: RBAC, kind: 'User', name: 'a' }]), []);
  // "add resource with serviceaccounts": existing one/a, one/b; adding two/a -> appended
  const sas = binding([
    { kind: 'ServiceAccount', namespace: 'one', name: 'a' },
    { kind: 'ServiceAccount', namespace: 'one', name: 'b' },
  ]);
  const ops = planSubjectChange(sas, [{ kind: 'ServiceAccount', namespace: 'two', name: 'a' }]);
  assert.deepEqual(ops, [
    { op: 'test', path: '/subjects', value: sas.subjects },
    { op: 'add', path: '/subjects/-', value: { kind: 'ServiceAccount', namespace: 'two', name: 'a' } },
  ]);
  assert.deepEqual(applyJsonPatch(sas, ops).subjects, [...sas.subjects, { kind: 'ServiceAccount', namespace: 'two', name: 'a' }]);
});

test('TestUpdateSubjectForObject (set_subject_test.go) rows "add resource with users/groups/serviceaccounts in rolebinding": only the missing one is added', () => {
  for (const kind of ['User', 'Group'] as const) {
    const rb = binding([{ apiGroup: RBAC, kind, name: 'a' }]);
    const after = applyJsonPatch(rb, planSubjectChange(rb, [{ apiGroup: RBAC, kind, name: 'a' }, { apiGroup: RBAC, kind, name: 'b' }]));
    assert.deepEqual(after.subjects, [{ apiGroup: RBAC, kind, name: 'a' }, { apiGroup: RBAC, kind, name: 'b' }]);
  }
  // A binding without subjects gets the list in one add; a stored subject without apiGroup equals ours.
  assert.deepEqual(planSubjectChange(binding(), [{ kind: 'ServiceAccount', namespace: 'one', name: 'a' }]), [{ op: 'add', path: '/subjects', value: [{ kind: 'ServiceAccount', namespace: 'one', name: 'a' }] }]);
  assert.deepEqual(planSubjectChange(binding([{ kind: 'ServiceAccount', namespace: 'one', name: 'a', apiGroup: '' }]), [{ kind: 'ServiceAccount', namespace: 'one', name: 'a' }]), []);
});

test('selector expressions parse like metav1.ParseToLabelSelector: = and == to matchLabels, in/notin/exists to expressions, != < > refused', () => {
  assert.deepEqual(parseSelectorExpression('app=web, tier==frontend'), { ok: true, value: { matchLabels: { app: 'web', tier: 'frontend' }, matchExpressions: [] } });
  assert.deepEqual(parseSelectorExpression(''), { ok: true, value: { matchLabels: {}, matchExpressions: [] } });
  const e = parseSelectorExpression('env in (prod,qa),!canary,zone');
  assert.ok(e.ok);
  assert.deepEqual(e.value.matchExpressions, [
    { key: 'env', operator: 'In', values: ['prod', 'qa'] },
    { key: 'canary', operator: 'DoesNotExist' },
    { key: 'zone', operator: 'Exists' },
  ]);
  assert.equal(formatExpressions(e.value.matchExpressions.slice(0, 1)), '[{env In [prod qa]}]');
  for (const [text, why] of [
    ['app!=web', /"!=" is not a valid label selector operator/],
    ['n>1', /"gt" isn't supported in label selectors/],
    ['app=we b', /cannot parse/],
    ['app=(x', /unbalanced parentheses|cannot parse/],
    ['-app=x', /invalid label key "-app"/],
    [`app=${'v'.repeat(64)}`, /invalid label value/],
  ] as const) {
    const r = parseSelectorExpression(text);
    assert.ok(!r.ok && why.test(r.message), `${text}: ${JSON.stringify(r)}`);
  }
});

test('TestUpdateOldSelectorValuesForObject / TestUpdateNewSelectorValuesForObject (set_selector_test.go): the new selector replaces the old one', () => {
  const svc = (selector?: Record<string, string>): Obj => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }], ...(selector ? { selector } : {}) } });
  // old {fee: true} -> label-only {b: u}: exactly {b: u}, one test of the old map first
  const old = svc({ fee: 'true' });
  const ops = planServiceSelectorChange(old, { b: 'u' });
  assert.deepEqual(ops, [
    { op: 'test', path: '/spec/selector', value: { fee: 'true' } },
    { op: 'remove', path: '/spec/selector/fee' },
    { op: 'add', path: '/spec/selector/b', value: 'u' },
  ]);
  assert.deepEqual(applyJsonPatch(old, ops).spec.selector, { b: 'u' });
  // "empty": the selector goes away
  assert.equal(applyJsonPatch(old, planServiceSelectorChange(old, {})).spec.selector, undefined);
  // a Service without a selector gets it whole; an empty one on it is no change
  assert.deepEqual(planServiceSelectorChange(svc(), { b: 'u' }), [{ op: 'add', path: '/spec/selector', value: { b: 'u' } }]);
  assert.deepEqual(planServiceSelectorChange(svc(), {}), []);
  // the same map (any key order) is no change: nothing is sent
  assert.deepEqual(planServiceSelectorChange(svc({ a: '1', b: '2' }), { b: '2', a: '1' }), []);
  // keys with "/" are escaped in the pointer
  assert.deepEqual(planServiceSelectorChange(svc({ a: '1' }), { a: '1', 'app.kubernetes.io/name': 'web' }).slice(1), [{ op: 'add', path: '/spec/selector/app.kubernetes.io~1name', value: 'web' }]);
});

test('TestUpdateSelectorForObjectTypes (set_selector_test.go): only Services; our refusal names the rule that fixes each kind\'s selector', () => {
  for (const [group, kind] of [['', 'ReplicationController'], ['apps', 'Deployment'], ['apps', 'DaemonSet'], ['apps', 'ReplicaSet'], ['batch', 'Job'], ['', 'PersistentVolumeClaim'], ['', 'ServiceAccount']]) {
    assert.match(selectorRefusal(group!, kind!), /^setting a selector is only supported for Services/, kind);
  }
  assert.match(selectorRefusal('apps.kruise.io', 'CloneSet'), /CloneSet's spec\.selector is immutable: Kruise's webhook \(ValidateCloneSetUpdate\) forbids updates to cloneset spec for fields other than 'replicas'/);
  assert.match(selectorRefusal('apps.kruise.io', 'StatefulSet'), /Advanced StatefulSet's spec\.selector is immutable: Kruise's webhook \(ValidateStatefulSetUpdate\)/);
  assert.match(selectorRefusal('apps.kruise.io', 'DaemonSet'), /must keep matching its template labels/);
  assert.match(selectorRefusal('apps', 'StatefulSet'), /immutable in apps\/v1/);
});

test('serviceaccount: spec.serviceAccountName of each kind\'s pod template, guarded by a test of the old value; the deprecated field follows', () => {
  const cs = fixture('scaledown', 'cloneset-web.yaml');
  const add = planServiceAccountChange(cs, 'runner');
  assert.ok(add.ok);
  assert.deepEqual(add.ops, [{ op: 'add', path: '/spec/template/spec/serviceAccountName', value: 'runner' }]);
  assert.deepEqual(add.changes, [{ field: 'serviceAccountName' }]);
  const named = applyJsonPatch(cs, add.ops);
  const same = planServiceAccountChange(named, 'runner');
  assert.ok(same.ok);
  assert.deepEqual(same.ops, [], 'unchanged: nothing to send');
  named.spec.template.spec.serviceAccount = 'runner';
  const again = planServiceAccountChange(named, 'other');
  assert.ok(again.ok);
  assert.deepEqual(again.ops, [
    { op: 'test', path: '/spec/template/spec/serviceAccountName', value: 'runner' },
    { op: 'replace', path: '/spec/template/spec/serviceAccountName', value: 'other' },
    { op: 'test', path: '/spec/template/spec/serviceAccount', value: 'runner' },
    { op: 'replace', path: '/spec/template/spec/serviceAccount', value: 'other' },
  ]);
  // CronJob and UnitedDeployment: their nested templates
  const cj = fixture('set', 'cronjob-report.yaml');
  const cjPlan = planServiceAccountChange(cj, 'reporter');
  assert.ok(cjPlan.ok);
  assert.equal(cjPlan.ops.at(-1)!.path, '/spec/jobTemplate/spec/template/spec/serviceAccountName');
  const ud = planServiceAccountChange(fixture('uniteddeployment', 'ud-web.yaml'), 'web-runner');
  assert.ok(ud.ok);
  assert.equal(ud.ops.at(-1)!.path, '/spec/template/cloneSetTemplate/spec/template/spec/serviceAccountName', 'the subset template: every subset gets it');
});
