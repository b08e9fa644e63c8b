// Who may do what on the sandbox: everyone without --tls; under --tls the admin everything, the `viewer`
// only get, list and watch (and its own access reviews), and each --token-user by the RBAC objects stored in the
// sandbox, as kube-apiserver's RBAC authorizer decides (rbac.ts).
import { authorize, forbiddenMessage, type Decision, type Policy, type RequestAttributes } from './rbac';
import type { MemoryStore } from './store';

export interface AuthConfig {
  /** token → user name */
  tokens: Map<string, string>;
  /** users that may only get/list/watch */
  readOnlyUsers: Set<string>;
  /** users whose requests the stored Roles, ClusterRoles and their bindings authorize */
  rbacUsers?: Set<string>;
}

const READ_VERBS = new Set(['get', 'list', 'watch']);
const RBAC = 'rbac.authorization.k8s.io';

function policyOf(store: MemoryStore): Policy {
  const list = (resource: string) => store.listRefs({ group: RBAC, resource }) as never[];
  return { roles: list('roles'), clusterRoles: list('clusterroles'), roleBindings: list('rolebindings'), clusterRoleBindings: list('clusterrolebindings') };
}

/** The decision on a request of `user` (already authenticated). */
export function authorizeRequest(auth: AuthConfig | undefined, store: MemoryStore, user: string, attrs: RequestAttributes): Decision {
  if (!auth) return { allowed: true, reason: '' };
  if (auth.rbacUsers?.has(user)) return authorize(policyOf(store), { name: user, groups: ['system:authenticated'] }, attrs);
  if (auth.readOnlyUsers.has(user)) {
    const review = attrs.resourceRequest && (attrs.group === 'authorization.k8s.io' || attrs.group === 'authentication.k8s.io');
    return READ_VERBS.has(attrs.verb) || review || !attrs.resourceRequest ? { allowed: true, reason: '' } : { allowed: false, reason: `User "${user}" may only get, list and watch` };
  }
  return { allowed: true, reason: '' };
}

export { forbiddenMessage };
