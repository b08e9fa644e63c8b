// Edits of `set serviceaccount|selector|subject`, pure: parse the arguments as kubectl does
// (pkg/cmd/set/set_serviceaccount.go, set_selector.go, set_subject.go) and express each change
// as the smallest JSON patch, guarded by `test` ops on what it replaces or appends to.
import { locatePodSpec, type EditPlan, type JsonPatchOp, type PodSpecChange } from './containers';
import { dns1123LabelProblem, dns1123SubdomainProblem, labelValueProblem, qualifiedNameProblem } from './names';
import { jsonEqual } from '../lib/json-equal';
import type { KubeObject } from './types';
import { escapePointer, isObj } from './workloads/access';
import { splitTopLevel } from '../lib/label-selector';

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

// ---------------------------------------------------------------------------
// set serviceaccount

/** A service account name as the API server checks it (ValidateServiceAccountName: a DNS-1123 subdomain). */
export function serviceAccountNameProblem(name: string): string | undefined {
  return dns1123SubdomainProblem(name);
}

/**
 * spec.serviceAccountName of the pod spec (kubectl's UpdatePodSpecForObject, then only that field).
 * The deprecated spec.serviceAccount is rewritten too when it holds another name: the API server
 * converts it for native kinds, but a Kruise CRD stores the template as sent.
 */
export function planServiceAccountChange(obj: KubeObject, serviceAccount: string): EditPlan<PodSpecChange> {
  const loc = locatePodSpec(obj);
  if (!loc) return { ok: true, ops: [], changes: [] };
  const ops: JsonPatchOp[] = [];
  const field = (key: 'serviceAccountName' | 'serviceAccount'): void => {
    const current = loc.spec[key];
    const path = `${loc.pointer}/${key}`;
    if (current === serviceAccount) return;
    if (current === undefined) {
      if (key === 'serviceAccountName') ops.push({ op: 'add', path, value: serviceAccount });
      return;
    }
    ops.push({ op: 'test', path, value: current }, { op: 'replace', path, value: serviceAccount });
  };
  field('serviceAccountName');
  field('serviceAccount');
  return { ok: true, ops, changes: ops.length > 0 ? [{ field: 'serviceAccountName' }] : [] };
}

// ---------------------------------------------------------------------------
// set selector

export interface SelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface ParsedSelector {
  matchLabels: Record<string, string>;
  matchExpressions: SelectorRequirement[];
}

/** Splits at commas outside parentheses (one level deep at most). */
function splitRequirements(text: string): string[] | undefined {
  return splitTopLevel(text, 1);
}

/**
 * A label selector as metav1.ParseToLabelSelector reads it: `k=v` and `k==v` go to matchLabels;
 * `k in (a,b)`, `k notin (a,b)`, `k` and `!k` to matchExpressions; `!=`, `<` and `>` are refused
 * as there. An empty text is the empty selector.
 */
export function parseSelectorExpression(text: string): Parsed<ParsedSelector> {
  const out: ParsedSelector = { matchLabels: {}, matchExpressions: [] };
  if (text.trim() === '') return { ok: true, value: out };
  const parts = splitRequirements(text);
  if (!parts) return { ok: false, message: `invalid selector "${text}": unbalanced parentheses` };
  for (const raw of parts) {
    const part = raw.trim();
    if (part === '') return { ok: false, message: `invalid selector "${text}": empty requirement` };
    let m: RegExpExecArray | null;
    if ((m = /^([^\s=!<>(),]+)\s*(!=)\s*(.*)$/.exec(part))) return { ok: false, message: `invalid selector "${text}": "!=" is not a valid label selector operator` };
    if ((m = /^([^\s=!<>(),]+)\s*([<>])\s*(.*)$/.exec(part))) return { ok: false, message: `invalid selector "${text}": "${m[2] === '>' ? 'gt' : 'lt'}" isn't supported in label selectors` };
    let req: { key: string; labels?: string; expression?: SelectorRequirement };
    if ((m = /^([^\s=!<>(),]+)\s*==?\s*([^\s=!<>(),]*)$/.exec(part))) req = { key: m[1]!, labels: m[2]! };
    else if ((m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part))) {
      const values = m[3]!.split(',').map((v) => v.trim());
      if (values.some((v) => v === '') && values.length > 1) return { ok: false, message: `invalid selector "${text}": empty value in "${part}"` };
      for (const v of values) {
        const p = labelValueProblem(v);
        if (p) return { ok: false, message: `invalid selector "${text}": invalid label value "${v}": ${p}` };
      }
      req = { key: m[1]!, expression: { key: m[1]!, operator: m[2] === 'in' ? 'In' : 'NotIn', values: [...new Set(values)].sort() } };
    } else if ((m = /^(!?)([^\s=!<>(),]+)$/.exec(part))) req = { key: m[2]!, expression: { key: m[2]!, operator: m[1] ? 'DoesNotExist' : 'Exists' } };
    else return { ok: false, message: `invalid selector "${text}": cannot parse "${part}"` };
    const kp = qualifiedNameProblem(req.key);
    if (kp) return { ok: false, message: `invalid selector "${text}": invalid label key "${req.key}": ${kp}` };
    if (req.labels !== undefined) {
      const vp = labelValueProblem(req.labels);
      if (vp) return { ok: false, message: `invalid selector "${text}": invalid label value "${req.labels}": ${vp}` };
      out.matchLabels[req.key] = req.labels;
    } else out.matchExpressions.push(req.expression!);
  }
  return { ok: true, value: out };
}

/** kubectl's `%v` of a []LabelSelectorRequirement: `[{key In [a b]}]`. */
export function formatExpressions(exprs: readonly SelectorRequirement[]): string {
  return `[${exprs.map((e) => `{${e.key} ${e.operator} [${(e.values ?? []).join(' ')}]}`).join(' ')}]`;
}

/**
 * A Service's spec.selector set to `selector` (kubectl: the new selector replaces the old one):
 * one `test` of the whole old map, then the keys removed and added one by one.
 */
export function planServiceSelectorChange(obj: KubeObject, selector: Record<string, string>): JsonPatchOp[] {
  const spec = isObj(obj.spec) ? obj.spec : undefined;
  const current = spec && isObj(spec.selector) ? (spec.selector as Record<string, unknown>) : undefined;
  const wanted = Object.keys(selector).length;
  if (!spec) return wanted ? [{ op: 'add', path: '/spec', value: { selector } }] : [];
  if (!current) return wanted ? [{ op: 'add', path: '/spec/selector', value: selector }] : [];
  if (jsonEqual(current, selector)) return [];
  if (wanted === 0) return [{ op: 'test', path: '/spec/selector', value: current }, { op: 'remove', path: '/spec/selector' }];
  const ops: JsonPatchOp[] = [{ op: 'test', path: '/spec/selector', value: current }];
  for (const k of Object.keys(current)) if (!(k in selector)) ops.push({ op: 'remove', path: `/spec/selector/${escapePointer(k)}` });
  for (const [k, v] of Object.entries(selector)) if (current[k] !== v) ops.push({ op: 'add', path: `/spec/selector/${escapePointer(k)}`, value: v });
  return ops;
}

/**
 * Why a kind other than Service cannot take `set selector`: kubectl's own refusal, plus the rule
 * that makes the selector of that workload fixed (Kruise's webhooks, apps/v1 validation).
 */
const SELECTOR_RULES: Record<string, string> = {
  'apps.kruise.io/CloneSet':
    "a CloneSet's spec.selector is immutable: Kruise's webhook (ValidateCloneSetUpdate) forbids updates to cloneset spec for fields other than 'replicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates' and 'revisionHistoryLimit'",
  'apps.kruise.io/StatefulSet':
    "an Advanced StatefulSet's spec.selector is immutable: Kruise's webhook (ValidateStatefulSetUpdate) forbids updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'volumeClaimTemplates' and 'updateStrategy'",
  'apps.kruise.io/DaemonSet':
    "an Advanced DaemonSet's spec.selector must keep matching its template labels (Kruise's webhook: \"`selector` does not match template `labels`\"), and pods it stops selecting are orphaned",
  'apps.kruise.io/UnitedDeployment': "a UnitedDeployment's spec.selector must match its subset template labels (Kruise's webhook), and its subset workloads are found through it",
  'apps.kruise.io/SidecarSet': "a SidecarSet's spec.selector picks the pods it injects: change it with kubectl patch or apply",
  'apps/Deployment': "a Deployment's spec.selector is immutable in apps/v1",
  'apps/StatefulSet': "a StatefulSet's spec.selector is immutable in apps/v1",
  'apps/DaemonSet': "a DaemonSet's spec.selector is immutable in apps/v1",
  'apps/ReplicaSet': "a ReplicaSet's spec.selector is immutable in apps/v1",
  'batch/Job': "a Job's spec.selector is immutable",
  '/Pod': 'a Pod has no selector',
  'batch/CronJob': 'a CronJob has no selector',
};

export function selectorRefusal(group: string, kind: string): string {
  const rule = SELECTOR_RULES[`${group}/${kind}`];
  return `setting a selector is only supported for Services${rule ? `: ${rule}` : ''}`;
}

// ---------------------------------------------------------------------------
// set subject

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface SubjectFlags {
  users: string[];
  groups: string[];
  /** `namespace:name`; an empty namespace means the current one (a RoleBinding only). */
  serviceAccounts: string[];
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Checks the flags as kubectl's Validate does, plus the names the API server would refuse. */
export function checkSubjectFlags(flags: SubjectFlags): string | undefined {
  if (flags.users.length === 0 && flags.groups.length === 0 && flags.serviceAccounts.length === 0) return 'you must specify at least one value of user, group or serviceaccount';
  for (const u of flags.users) if (u === '') return '--user must not be empty';
  for (const g of flags.groups) if (g === '') return '--group must not be empty';
  for (const sa of flags.serviceAccounts) {
    const tokens = sa.split(':');
    if (tokens.length !== 2 || tokens[1] === '') return `invalid --serviceaccount "${sa}": serviceaccount must be <namespace>:<name>`;
    const nsProblem = tokens[0] !== '' ? dns1123LabelProblem(tokens[0]!) : undefined;
    if (nsProblem) return `invalid namespace "${tokens[0]}" in --serviceaccount "${sa}": ${nsProblem}`;
    const nameProblem = serviceAccountNameProblem(tokens[1]!);
    if (nameProblem) return `invalid service account name "${tokens[1]}" in --serviceaccount "${sa}": ${nameProblem}`;
  }
  return undefined;
}

/** Whether a service account is given without its namespace (`:name`), which a ClusterRoleBinding refuses. */
export function hasNamespacelessServiceAccount(flags: SubjectFlags): boolean {
  return flags.serviceAccounts.some((sa) => sa.startsWith(':'));
}

/** The subjects to bind, in kubectl's order: users, groups, then service accounts, each sorted and unique. */
export function subjectsFromFlags(flags: SubjectFlags, namespace: string): Subject[] {
  const sorted = (xs: readonly string[]): string[] => [...new Set(xs)].sort();
  return [
    ...sorted(flags.users).map((name): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name })),
    ...sorted(flags.groups).map((name): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name })),
    ...sorted(flags.serviceAccounts).map((sa): Subject => {
      const [ns, name] = sa.split(':') as [string, string];
      return { kind: 'ServiceAccount', name, namespace: ns || namespace };
    }),
  ];
}

function subjectKey(s: Partial<Subject> & Record<string, unknown>): string {
  return JSON.stringify([s.kind ?? '', s.apiGroup ?? '', s.name ?? '', s.namespace ?? '']);
}

/** kubectl's addSubjects: appends the subjects the binding does not hold yet (all four fields compared). */
export function planSubjectChange(obj: KubeObject, subjects: readonly Subject[]): JsonPatchOp[] {
  const current = Array.isArray(obj.subjects) ? (obj.subjects as Array<Record<string, unknown>>) : undefined;
  const have = new Set((current ?? []).map((s) => subjectKey(s)));
  const missing = subjects.filter((s) => !have.has(subjectKey(s as unknown as Record<string, unknown>)));
  if (missing.length === 0) return [];
  if (!current) return [{ op: 'add', path: '/subjects', value: missing }];
  return [{ op: 'test', path: '/subjects', value: current }, ...missing.map((s): JsonPatchOp => ({ op: 'add', path: '/subjects/-', value: s }))];
}
