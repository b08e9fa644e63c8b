// The sandbox's RBAC authorizer (src/sandbox/server/rbac.ts) against kube's rbac.go semantics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authorize, forbiddenMessage, ruleAllows, type Policy, type RequestAttributes } from '../../../../src/sandbox/server/rbac';

const res = (verb: string, group: string, resource: string, more: Partial<Extract<RequestAttributes, { resourceRequest: true }>> = {}): RequestAttributes => ({ resourceRequest: true, verb, group, resource, namespace: 'default', ...more });
const RO = 'rollouts.kruise.io';
const alice = { name: 'alice', groups: ['system:authenticated'] };

test('ruleAllows: verbs, groups and resources each match exactly or by "*"; a subresource only as resource/sub or */sub', () => {
  const rule = { verbs: ['patch'], apiGroups: [RO], resources: ['rollouts/status'] };
  assert.equal(ruleAllows(res('patch', RO, 'rollouts', { subresource: 'status' }), rule), true);
  assert.equal(ruleAllows(res('patch', RO, 'rollouts'), rule), false, 'rollouts/status does not give rollouts');
  assert.equal(ruleAllows(res('patch', RO, 'rollouts', { subresource: 'status' }), { verbs: ['patch'], apiGroups: [RO], resources: ['rollouts'] }), false, 'rollouts does not give rollouts/status');
  assert.equal(ruleAllows(res('patch', RO, 'rollouts', { subresource: 'status' }), { verbs: ['patch'], apiGroups: [RO], resources: ['*/status'] }), true);
  assert.equal(ruleAllows(res('patch', RO, 'rollouts', { subresource: 'scale' }), { verbs: ['patch'], apiGroups: [RO], resources: ['*/status'] }), false);
  assert.equal(ruleAllows(res('patch', RO, 'rollouts', { subresource: 'status' }), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), true);
  assert.equal(ruleAllows(res('get', RO, 'rollouts', { subresource: 'status' }), rule), false, 'verb');
  assert.equal(ruleAllows(res('patch', 'apps', 'rollouts', { subresource: 'status' }), rule), false, 'group');
  assert.equal(ruleAllows(res('get', '', 'pods'), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), true);
});

test('ruleAllows: resourceNames hold the object\'s name; a list (no name) is then refused', () => {
  const rule = { verbs: ['get', 'list'], apiGroups: [RO], resources: ['rollouts'], resourceNames: ['web'] };
  assert.equal(ruleAllows(res('get', RO, 'rollouts', { name: 'web' }), rule), true);
  assert.equal(ruleAllows(res('get', RO, 'rollouts', { name: 'api' }), rule), false);
  assert.equal(ruleAllows(res('list', RO, 'rollouts'), rule), false);
  assert.equal(ruleAllows(res('list', RO, 'rollouts', { name: 'web' }), rule), true, 'a list with fieldSelector metadata.name=web');
});

test('ruleAllows: nonResourceURLs exact, "*" or a prefix ending in "*"', () => {
  const path = (p: string): RequestAttributes => ({ resourceRequest: false, verb: 'get', path: p });
  assert.equal(ruleAllows(path('/apis/apps'), { verbs: ['get'], nonResourceURLs: ['/apis/*'] }), true);
  assert.equal(ruleAllows(path('/apis'), { verbs: ['get'], nonResourceURLs: ['/apis/*'] }), false);
  assert.equal(ruleAllows(path('/metrics'), { verbs: ['get'], nonResourceURLs: ['*'] }), true);
  assert.equal(ruleAllows(path('/metrics'), { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }), false);
});

const policy = (p: Partial<Policy>): Policy => ({ roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [], ...p });
const verifier = { metadata: { name: 'verify', namespace: 'default' }, rules: [{ verbs: ['get', 'list', 'watch', 'patch'], apiGroups: [RO], resources: ['rollouts'] }, { verbs: ['patch'], apiGroups: [RO], resources: ['rollouts/status'] }] };
const binding = (ns: string, kind: 'Role' | 'ClusterRole', subjects = [{ kind: 'User', name: 'alice' }]) => ({ metadata: { name: 'verify', namespace: ns }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: 'verify' } });

test('authorize: a RoleBinding gives its Role\'s rules in its namespace only, with kube\'s reason', () => {
  const p = policy({ roles: [verifier], roleBindings: [binding('default', 'Role')] });
  assert.deepEqual(authorize(p, alice, res('patch', RO, 'rollouts', { subresource: 'status', name: 'web' })), { allowed: true, reason: 'RBAC: allowed by RoleBinding "verify/default" of Role "verify" to User "alice"' });
  assert.equal(authorize(p, alice, res('patch', RO, 'rollouts', { namespace: 'prod' })).allowed, false);
  assert.equal(authorize(p, alice, res('list', RO, 'rollouts', { namespace: undefined })).allowed, false, 'cluster scope');
  assert.equal(authorize(p, { name: 'bob', groups: ['system:authenticated'] }, res('get', RO, 'rollouts')).allowed, false);
  assert.equal(authorize(p, alice, res('delete', RO, 'rollouts')).allowed, false);
});

test('authorize: a RoleBinding to a ClusterRole, a ClusterRoleBinding everywhere; Group and ServiceAccount subjects', () => {
  const cr = { ...verifier, metadata: { name: 'verify' } };
  assert.equal(authorize(policy({ clusterRoles: [cr], roleBindings: [binding('default', 'ClusterRole')] }), alice, res('get', RO, 'rollouts')).allowed, true);
  const crb = { ...binding('', 'ClusterRole', [{ kind: 'Group', name: 'ci' }]), metadata: { name: 'verify' } };
  const p = policy({ clusterRoles: [cr], clusterRoleBindings: [crb] });
  assert.deepEqual(authorize(p, { name: 'carol', groups: ['ci', 'system:authenticated'] }, res('get', RO, 'rollouts', { namespace: 'prod' })), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "verify" of ClusterRole "verify" to Group "ci"' });
  assert.equal(authorize(p, alice, res('get', RO, 'rollouts')).allowed, false);
  const sa = policy({ roles: [verifier], roleBindings: [binding('default', 'Role', [{ kind: 'ServiceAccount', name: 'ci', namespace: 'default' }] as never)] });
  assert.equal(authorize(sa, { name: 'system:serviceaccount:default:ci', groups: [] }, res('get', RO, 'rollouts')).allowed, true);
});

test('authorize: a missing role is named in the reason; discovery and self reviews need no binding', () => {
  const d = authorize(policy({ roleBindings: [binding('default', 'Role')] }), alice, res('get', RO, 'rollouts'));
  assert.deepEqual(d, { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "verify" not found' });
  assert.equal(authorize(policy({}), alice, { resourceRequest: false, verb: 'get', path: '/apis/rollouts.kruise.io/v1beta1' }).allowed, true);
  assert.equal(authorize(policy({}), alice, res('create', 'authorization.k8s.io', 'selfsubjectaccessreviews', { namespace: undefined })).allowed, true);
  assert.equal(authorize(policy({}), alice, { resourceRequest: false, verb: 'get', path: '/metrics' }).allowed, false);
});

test('forbiddenMessage: kube\'s text, resource/subresource, namespace or cluster scope, the reason after ": "', () => {
  assert.equal(forbiddenMessage('alice', res('patch', RO, 'rollouts', { subresource: 'status' }), ''), 'User "alice" cannot patch resource "rollouts/status" in API group "rollouts.kruise.io" in the namespace "default"');
  assert.equal(forbiddenMessage('alice', res('list', '', 'nodes', { namespace: undefined }), 'RBAC: x'), 'User "alice" cannot list resource "nodes" in API group "" at the cluster scope: RBAC: x');
});
