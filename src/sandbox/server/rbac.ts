// The RBAC authorizer of kube-apiserver (plugin/pkg/auth/authorizer/rbac/rbac.go), pure: whether the
// rbac.authorization.k8s.io/v1 Roles, ClusterRoles and their bindings allow a request, and why.
// - A rule allows a resource request when its verbs, apiGroups, resources and resourceNames all match
//   (RuleAllows): "*" matches any verb, group or resource; a resource is matched as "resource/subresource"
//   ("rollouts/status"), or by "*/subresource"; resourceNames, when given, hold the object's name (a list or a
//   create, which have no name, are then not allowed). A non-resource request matches nonResourceURLs ("*",
//   the path, or a prefix ending in "*").
// - The rules that apply to a user (VisitRulesFor): those of the ClusterRole of every ClusterRoleBinding with a
//   subject for them, then, for a namespaced request, those of every RoleBinding of that namespace with a
//   subject for them (its roleRef a Role of that namespace or a ClusterRole). Subjects: kind User by name,
//   Group by the user's groups, ServiceAccount as system:serviceaccount:NS:NAME.
// - Allowed: "RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "u""; denied: no opinion,
//   the reason naming the roles that could not be found ("RBAC: role.rbac.authorization.k8s.io "r" not
//   found"), empty otherwise.
// - kube's bootstrap policy, for every authenticated user (group system:authenticated): system:discovery and
//   system:public-info-viewer (get on /api, /apis, /version, /openapi, /healthz... ), system:basic-user (create
//   selfsubjectaccessreviews, selfsubjectrulesreviews; selfsubjectreviews).
// Not done: aggregationRule (the sandbox runs no clusterrole-aggregation controller: a ClusterRole's rules
// are those it lists), escalation checks when a user writes RBAC objects.

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface RbacMeta {
  metadata: { name?: string; namespace?: string };
}
export interface RoleObject extends RbacMeta {
  rules?: PolicyRule[] | null;
}
export interface BindingObject extends RbacMeta {
  subjects?: Subject[] | null;
  roleRef?: { kind?: string; name?: string; apiGroup?: string };
}

export interface Policy {
  roles: readonly RoleObject[];
  clusterRoles: readonly RoleObject[];
  roleBindings: readonly BindingObject[];
  clusterRoleBindings: readonly BindingObject[];
}

export interface UserInfo {
  name: string;
  groups: readonly string[];
}

/** A request as the authorizer sees it (authorizer.Attributes). */
export type RequestAttributes =
  | { resourceRequest: true; verb: string; group: string; resource: string; subresource?: string; name?: string; namespace?: string }
  | { resourceRequest: false; verb: string; path: string };

export interface Decision {
  allowed: boolean;
  reason: string;
}

const BOOTSTRAP_RULES: Array<{ role: string; rule: PolicyRule }> = [
  { role: 'system:discovery', rule: { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', '/version', '/version/'] } },
  { role: 'system:public-info-viewer', rule: { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] } },
  { role: 'system:basic-user', rule: { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] } },
  { role: 'system:basic-user', rule: { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] } },
];

const has = (list: readonly string[] | undefined | null, value: string): boolean => (list ?? []).some((v) => v === '*' || v === value);

/** rbac.go RuleAllows. */
export function ruleAllows(attrs: RequestAttributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, attrs.verb)) return false;
  if (!attrs.resourceRequest) {
    return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === attrs.path || (u.endsWith('*') && attrs.path.startsWith(u.slice(0, -1))));
  }
  if (!has(rule.apiGroups, attrs.group)) return false;
  const sub = attrs.subresource ?? '';
  const combined = sub ? `${attrs.resource}/${sub}` : attrs.resource;
  const resourceOk = (rule.resources ?? []).some((r) => r === '*' || r === combined || (sub !== '' && r === `*/${sub}`));
  if (!resourceOk) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (attrs.name !== undefined && attrs.name !== '' && names.includes(attrs.name));
}

function subjectMatches(s: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === user.name;
    case 'Group':
      return s.name !== undefined && user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${s.name ?? ''}`;
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject): string {
  return s.kind === 'ServiceAccount' && s.namespace ? `${s.kind} "${s.namespace}/${s.name ?? ''}"` : `${s.kind ?? ''} "${s.name ?? ''}"`;
}

/** The RBAC decision on `attrs` for `user` under `policy` (rbac.go RBACAuthorizer.Authorize). */
export function authorize(policy: Policy, user: UserInfo, attrs: RequestAttributes): Decision {
  if (user.groups.includes('system:authenticated')) {
    const hit = BOOTSTRAP_RULES.find((b) => ruleAllows(attrs, b.rule));
    if (hit) return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "${hit.role}" of ClusterRole "${hit.role}" to Group "system:authenticated"` };
  }
  const errors: string[] = [];
  const visit = (binding: BindingObject, bindingNamespace: string, describe: (s: Subject) => string): string | undefined => {
    const subject = (binding.subjects ?? []).find((s) => subjectMatches(s, user, bindingNamespace));
    if (!subject) return undefined;
    const ref = binding.roleRef ?? {};
    let role: RoleObject | undefined;
    if (ref.kind === 'ClusterRole') {
      role = policy.clusterRoles.find((r) => r.metadata.name === ref.name);
      if (!role) errors.push(`clusterrole.rbac.authorization.k8s.io "${ref.name ?? ''}" not found`);
    } else if (ref.kind === 'Role' && bindingNamespace !== '') {
      role = policy.roles.find((r) => r.metadata.name === ref.name && r.metadata.namespace === bindingNamespace);
      if (!role) errors.push(`role.rbac.authorization.k8s.io "${ref.name ?? ''}" not found`);
    }
    if (role && (role.rules ?? []).some((rule) => ruleAllows(attrs, rule))) return `RBAC: allowed by ${describe(subject)}`;
    return undefined;
  };
  for (const b of policy.clusterRoleBindings) {
    const why = visit(b, '', (s) => `ClusterRoleBinding "${b.metadata.name ?? ''}" of ${b.roleRef?.kind ?? ''} "${b.roleRef?.name ?? ''}" to ${describeSubject(s)}`);
    if (why) return { allowed: true, reason: why };
  }
  const namespace = attrs.resourceRequest ? attrs.namespace ?? '' : '';
  if (namespace !== '') {
    for (const b of policy.roleBindings) {
      if (b.metadata.namespace !== namespace) continue;
      const why = visit(b, namespace, (s) => `RoleBinding "${b.metadata.name ?? ''}/${namespace}" of ${b.roleRef?.kind ?? ''} "${b.roleRef?.name ?? ''}" to ${describeSubject(s)}`);
      if (why) return { allowed: true, reason: why };
    }
  }
  return { allowed: false, reason: errors.length ? `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` : '' };
}

/**
 * The message of kube's 403 (endpoints/handlers/responsewriters.forbiddenMessage), with the authorizer's
 * reason after ": " when it gave one.
 */
export function forbiddenMessage(user: string, attrs: RequestAttributes, reason: string): string {
  let msg: string;
  if (!attrs.resourceRequest) msg = `User "${user}" cannot ${attrs.verb} path "${attrs.path}"`;
  else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    msg = `User "${user}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.group}" ${attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope'}`;
  }
  return reason ? `${msg}: ${reason}` : msg;
}
