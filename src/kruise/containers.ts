// Container edits for `set image|env|resources`, pure: find containers in any
// workload's pod spec, compute the change, and express it as the smallest JSON patch
// (RFC 6902) that touches only the fields asked for. Every write is guarded by `test`
// ops on the container (and env entry) names at the indexes used, so a concurrent
// reorder makes the server reject the patch instead of hitting the wrong container.
import type { Container, KubeObject, PodSpec } from './types';
import { adapterFor } from './workloads/index';
import { escapePointer, isObj, pointerOf } from './workloads/access';
import { subsetTemplateOf } from './rules/uniteddeployment';
import { parseQuantity } from './quantity';
import { jsonPatch } from '../lib/json-patch';

export type ContainerListName = 'containers' | 'initContainers';

export interface ContainerRef {
  list: ContainerListName;
  index: number;
  name: string;
  container: Container;
  /** JSON pointer of this container, e.g. "/spec/template/spec/containers/0". */
  pointer: string;
}

export type JsonPatchOp =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export type ChangeField = 'image' | 'env' | 'resources';

export interface ContainerChange {
  list: ContainerListName;
  container: string;
  field: ChangeField;
}

/** A change of a pod spec field outside the containers (`set serviceaccount`). */
export interface PodSpecChange {
  field: 'serviceAccountName';
}

export type TemplateChange = ContainerChange | PodSpecChange;

export function isContainerChange(change: TemplateChange): change is ContainerChange {
  return 'list' in change;
}

/** The outcome of planning an edit on one object. */
export type EditPlan<C extends TemplateChange = ContainerChange> =
  | { ok: true; ops: JsonPatchOp[]; changes: C[] }
  | { ok: false; missingContainers: string[] };

// ---------------------------------------------------------------------------
// Locating the pod spec

/** Path segments from the object root to its pod spec, by kind (undefined when the kind has none). */
export function podSpecPath(obj: KubeObject): string[] | undefined {
  switch (obj.kind) {
    case 'Pod':
      return ['spec'];
    // SidecarSet holds containers/initContainers directly under spec (no template).
    case 'SidecarSet':
      return ['spec'];
    case 'CronJob':
      return ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
    // UnitedDeployment: the pod template of its subset workload template
    case 'UnitedDeployment': {
      const found = subsetTemplateOf(obj);
      return found ? ['spec', 'template', found.info.field, 'spec', 'template', 'spec'] : undefined;
    }
    default: {
      const spec = obj.spec;
      if (isObj(spec) && isObj(spec.template)) return ['spec', 'template', 'spec'];
      return undefined;
    }
  }
}

function at(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const seg of path) {
    if (Array.isArray(cur)) cur = /^(0|[1-9][0-9]*)$/.test(seg) ? cur[Number(seg)] : undefined;
    else if (isObj(cur)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}

/** The pod spec of a workload, pod, job, cron job or SidecarSet, with its JSON pointer. */
export function locatePodSpec(obj: KubeObject): { pointer: string; spec: Partial<PodSpec> } | undefined {
  const path = podSpecPath(obj);
  if (!path) return undefined;
  const spec = at(obj, path);
  if (!isObj(spec)) return undefined;
  return { pointer: pointerOf(path), spec: spec as Partial<PodSpec> };
}

/** Every container and init container, init containers first (kubectl's order). */
export function allContainers(obj: KubeObject): ContainerRef[] {
  const loc = locatePodSpec(obj);
  if (!loc) return [];
  const out: ContainerRef[] = [];
  for (const list of ['initContainers', 'containers'] as const) {
    const items = loc.spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((container, index) => {
      if (!isObj(container) || typeof container.name !== 'string') return;
      out.push({ list, index, name: container.name, container, pointer: `${loc.pointer}/${list}/${index}` });
    });
  }
  return out;
}

/** Containers selected by a name, or `*` for all of them. */
export function selectContainers(obj: KubeObject, selector: string): ContainerRef[] {
  return allContainers(obj).filter((c) => selector === '*' || c.name === selector);
}

function nameGuard(ref: ContainerRef): JsonPatchOp {
  return { op: 'test', path: `${ref.pointer}/name`, value: ref.name };
}

/** Orders ops so that every guard runs before any write (tests see the original indexes). */
function guardedOps(guards: JsonPatchOp[], writes: JsonPatchOp[]): JsonPatchOp[] {
  if (writes.length === 0) return [];
  const seen = new Set<string>();
  const uniqueGuards = guards.filter((g) => {
    const key = `${g.path}\0${JSON.stringify('value' in g ? g.value : null)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return [...uniqueGuards, ...writes];
}

// ---------------------------------------------------------------------------
// set image

export interface ImageAssignment {
  container: string; // a name or "*"
  image: string;
}

/**
 * Parses `CONTAINER=IMAGE` arguments. Returns an error message for a malformed pair
 * (no `=`, empty name or image); image syntax is checked separately.
 */
export function parseImageAssignments(args: readonly string[]): { ok: true; pairs: ImageAssignment[] } | { ok: false; message: string } {
  const pairs: ImageAssignment[] = [];
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq < 0) return { ok: false, message: `invalid image assignment "${arg}": expected CONTAINER=IMAGE` };
    const container = arg.slice(0, eq);
    const image = arg.slice(eq + 1);
    if (container === '') return { ok: false, message: `invalid image assignment "${arg}": the container name is empty` };
    if (image === '') return { ok: false, message: `invalid image assignment "${arg}": the image is empty` };
    if (pairs.some((p) => p.container === container)) return { ok: false, message: `container "${container}" is assigned more than once` };
    pairs.push({ container, image });
  }
  if (pairs.length === 0) return { ok: false, message: 'at least one CONTAINER=IMAGE is required' };
  return { ok: true, pairs };
}

/**
 * Plans an image change: one `test` on each touched container's name, one `replace`
 * (or `add` when the field is absent) of its image. Explicit names win over `*`.
 * Every named container must exist, else nothing is planned (all-or-nothing).
 */
export function planImageChange(obj: KubeObject, pairs: readonly ImageAssignment[]): EditPlan {
  const containers = allContainers(obj);
  const missing = pairs.filter((p) => p.container !== '*' && !containers.some((c) => c.name === p.container)).map((p) => p.container);
  if (pairs.some((p) => p.container === '*') && containers.length === 0) missing.push('*');
  if (missing.length > 0) return { ok: false, missingContainers: missing };

  const wildcard = pairs.find((p) => p.container === '*');
  const guards: JsonPatchOp[] = [];
  const writes: JsonPatchOp[] = [];
  const changes: ContainerChange[] = [];
  for (const ref of containers) {
    const pair = pairs.find((p) => p.container === ref.name) ?? wildcard;
    if (!pair || ref.container.image === pair.image) continue;
    guards.push(nameGuard(ref));
    writes.push({ op: typeof ref.container.image === 'string' ? 'replace' : 'add', path: `${ref.pointer}/image`, value: pair.image });
    changes.push({ list: ref.list, container: ref.name, field: 'image' });
  }
  return { ok: true, ops: guardedOps(guards, writes), changes };
}

// ---------------------------------------------------------------------------
// set env

export type EnvVar = NonNullable<Container['env']>[number];

// The API server's rule for env names (validation.IsEnvVarName), which kubectl also applies.
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export function isValidEnvName(name: string): boolean {
  return ENV_NAME.test(name) && name !== '.' && name !== '..' && !name.startsWith('..');
}

export interface EnvEdits {
  /** Entries to set (plain values or valueFrom), in order. */
  set: EnvVar[];
  /** Names to remove (`KEY-`). */
  remove: string[];
}

/** Parses `KEY=VALUE` and `KEY-` arguments (the value may contain `=`). */
export function parseEnvArgs(args: readonly string[]): { ok: true; edits: EnvEdits } | { ok: false; message: string } {
  const edits: EnvEdits = { set: [], remove: [] };
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq >= 0) {
      const name = arg.slice(0, eq);
      if (!isValidEnvName(name)) return { ok: false, message: `invalid environment variable name "${name}" in "${arg}": must consist of letters, digits, '_', '-' or '.', and must not start with a digit` };
      edits.set = edits.set.filter((e) => e.name !== name);
      edits.set.push({ name, value: arg.slice(eq + 1) });
    } else if (arg.endsWith('-') && arg.length > 1) {
      const name = arg.slice(0, -1);
      if (!isValidEnvName(name)) return { ok: false, message: `invalid environment variable name "${name}" in "${arg}"` };
      edits.remove.push(name);
    } else {
      return { ok: false, message: `invalid environment argument "${arg}": expected KEY=VALUE or KEY-` };
    }
  }
  const both = edits.set.find((e) => edits.remove.includes(e.name));
  if (both) return { ok: false, message: `environment variable "${both.name}" is both set and removed` };
  return { ok: true, edits };
}

/** kubectl's key → env name rule for --from: upper case, invalid characters become `_`. */
export function keyToEnvName(key: string): string {
  return key.replace(/[^a-zA-Z0-9_]/g, '_').toUpperCase();
}

/** Env entries referencing every key of a ConfigMap or Secret (`--from`), like kubectl. */
export function envFromSource(kind: 'configmap' | 'secret', name: string, keys: readonly string[], prefix = ''): EnvVar[] {
  const refField = kind === 'configmap' ? 'configMapKeyRef' : 'secretKeyRef';
  return [...keys].sort().map((key) => ({ name: `${prefix}${keyToEnvName(key)}`, valueFrom: { [refField]: { name, key } } }));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function envEntryEquals(current: EnvVar, wanted: EnvVar): boolean {
  // Compare what the server stores: a plain value and no valueFrom, or a valueFrom and no value.
  const norm = (e: EnvVar): unknown => ({ name: e.name, value: e.value ?? '', valueFrom: e.valueFrom ?? null });
  return sameJson(norm(current), norm(wanted));
}

/**
 * Plans env edits on the selected containers (`*` = all, like kubectl's default):
 * `replace` an existing entry (guarded by a `test` on its name), `remove` entries
 * (highest index first so earlier indexes stay valid), `add` new ones at the end.
 */
export function planEnvChange(obj: KubeObject, selector: string, edits: EnvEdits): EditPlan {
  const targets = selectContainers(obj, selector);
  if (targets.length === 0) return { ok: false, missingContainers: [selector] };
  const guards: JsonPatchOp[] = [];
  const writes: JsonPatchOp[] = [];
  const changes: ContainerChange[] = [];
  for (const ref of targets) {
    const env = Array.isArray(ref.container.env) ? ref.container.env : undefined;
    const containerWrites: JsonPatchOp[] = [];
    const containerGuards: JsonPatchOp[] = [nameGuard(ref)];
    if (!env) {
      if (edits.set.length > 0) containerWrites.push({ op: 'add', path: `${ref.pointer}/env`, value: edits.set.map((e) => ({ ...e })) });
    } else {
      const removals = new Set<number>();
      const appends: EnvVar[] = [];
      const replaces: JsonPatchOp[] = [];
      for (const wanted of edits.set) {
        const indexes = env.map((e, i) => (e.name === wanted.name ? i : -1)).filter((i) => i >= 0);
        if (indexes.length === 0) {
          appends.push({ ...wanted });
          continue;
        }
        const [first, ...duplicates] = indexes;
        if (!envEntryEquals(env[first]!, wanted)) {
          containerGuards.push({ op: 'test', path: `${ref.pointer}/env/${first}/name`, value: wanted.name });
          replaces.push({ op: 'replace', path: `${ref.pointer}/env/${first}`, value: { ...wanted } });
        }
        // Later duplicates would shadow the new value in the container; drop them.
        for (const d of duplicates) removals.add(d);
      }
      for (const name of edits.remove) env.forEach((e, i) => e.name === name && removals.add(i));
      const removeOps: JsonPatchOp[] = [...removals]
        .sort((a, b) => b - a)
        .map((i) => {
          containerGuards.push({ op: 'test', path: `${ref.pointer}/env/${i}/name`, value: env[i]!.name });
          return { op: 'remove', path: `${ref.pointer}/env/${i}` };
        });
      containerWrites.push(...replaces, ...removeOps, ...appends.map((value): JsonPatchOp => ({ op: 'add', path: `${ref.pointer}/env/-`, value })));
    }
    if (containerWrites.length > 0) {
      guards.push(...containerGuards);
      writes.push(...containerWrites);
      changes.push({ list: ref.list, container: ref.name, field: 'env' });
    }
  }
  return { ok: true, ops: guardedOps(guards, writes), changes };
}

/** `--list` output: kubectl's format, a comment line per container then `KEY=value` lines. */
export function formatEnvList(resource: string, obj: KubeObject, selector: string): string {
  const lines: string[] = [];
  for (const ref of selectContainers(obj, selector)) {
    lines.push(`# ${resource}, ${ref.list === 'initContainers' ? 'init container' : 'container'} ${ref.name}`);
    for (const e of ref.container.env ?? []) {
      if (e.valueFrom === undefined) {
        lines.push(`${e.name}=${e.value ?? ''}`);
        continue;
      }
      lines.push(`# ${e.name} from ${describeValueFrom(e.valueFrom)}`);
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

function describeValueFrom(from: unknown): string {
  if (!isObj(from)) return 'an unknown source';
  const ref = (k: string): Record<string, unknown> | undefined => (isObj(from[k]) ? (from[k] as Record<string, unknown>) : undefined);
  const cm = ref('configMapKeyRef');
  if (cm) return `configmap ${String(cm.name)}, key ${String(cm.key)}`;
  const secret = ref('secretKeyRef');
  if (secret) return `secret ${String(secret.name)}, key ${String(secret.key)}`;
  const field = ref('fieldRef');
  if (field) return `field path ${String(field.fieldPath)}`;
  const res = ref('resourceFieldRef');
  if (res) return `resource ${String(res.resource)}`;
  return 'an unknown source';
}

// ---------------------------------------------------------------------------
// set resources

// Resource names: a qualified name (optionally prefixed, e.g. nvidia.com/gpu).
const RESOURCE_NAME = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Parses `cpu=200m,memory=512Mi`; rejects malformed names, quantities and negatives. */
export function parseResourceList(text: string, flag: string): { ok: true; list: Record<string, string> } | { ok: false; message: string } {
  const list: Record<string, string> = {};
  if (text.trim() === '') return { ok: false, message: `${flag} is empty: expected NAME=QUANTITY[,NAME=QUANTITY]` };
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false, message: `invalid ${flag} entry "${part}": expected NAME=QUANTITY` };
    const name = part.slice(0, eq).trim();
    const qty = part.slice(eq + 1).trim();
    if (!RESOURCE_NAME.test(name)) return { ok: false, message: `invalid resource name "${name}" in ${flag}` };
    const value = parseQuantity(qty);
    if (value === undefined) return { ok: false, message: `invalid quantity "${qty}" for ${name} in ${flag}: expected e.g. 500m, 2, 512Mi, 1Gi` };
    if (value < 0) return { ok: false, message: `invalid quantity "${qty}" for ${name} in ${flag}: must not be negative` };
    list[name] = qty;
  }
  return { ok: true, list };
}

export interface ResourceEdits {
  limits?: Record<string, string>;
  requests?: Record<string, string>;
}

/**
 * Plans resource edits: one `add` per changed quantity (add on an existing member
 * replaces it), creating `resources`/`limits`/`requests` only when absent. Returns the
 * request-above-limit violations too, so the command can refuse before sending.
 */
export function planResourcesChange(obj: KubeObject, selector: string, edits: ResourceEdits): EditPlan & { violations?: string[] } {
  const targets = selectContainers(obj, selector);
  if (targets.length === 0) return { ok: false, missingContainers: [selector] };
  const guards: JsonPatchOp[] = [];
  const writes: JsonPatchOp[] = [];
  const changes: ContainerChange[] = [];
  const violations: string[] = [];
  for (const ref of targets) {
    const current = isObj(ref.container.resources) ? ref.container.resources : undefined;
    const containerWrites: JsonPatchOp[] = [];
    const merged: { limits: Record<string, string>; requests: Record<string, string> } = {
      limits: { ...(current?.limits ?? {}) },
      requests: { ...(current?.requests ?? {}) },
    };
    const pending: { limits?: Record<string, string>; requests?: Record<string, string> } = {};
    for (const kind of ['limits', 'requests'] as const) {
      const wanted = edits[kind];
      if (!wanted) continue;
      for (const [name, qty] of Object.entries(wanted)) {
        const have = current?.[kind]?.[name];
        merged[kind][name] = qty;
        if (have !== undefined && (have === qty || parseQuantity(have) === parseQuantity(qty))) continue;
        (pending[kind] ??= {})[name] = qty;
      }
    }
    for (const [name, req] of Object.entries(merged.requests)) {
      const lim = merged.limits[name];
      if (lim === undefined) continue;
      const r = parseQuantity(req);
      const l = parseQuantity(lim);
      if (r !== undefined && l !== undefined && r > l) violations.push(`container "${ref.name}": ${name} request ${req} is above its limit ${lim}`);
    }
    if (!pending.limits && !pending.requests) continue;
    if (!current) {
      containerWrites.push({ op: 'add', path: `${ref.pointer}/resources`, value: { ...pending } });
    } else {
      for (const kind of ['limits', 'requests'] as const) {
        const values = pending[kind];
        if (!values) continue;
        if (!isObj(current[kind])) {
          containerWrites.push({ op: 'add', path: `${ref.pointer}/resources/${kind}`, value: { ...values } });
          continue;
        }
        for (const [name, qty] of Object.entries(values)) containerWrites.push({ op: 'add', path: `${ref.pointer}/resources/${kind}/${escapePointer(name)}`, value: qty });
      }
    }
    guards.push(nameGuard(ref));
    writes.push(...containerWrites);
    changes.push({ list: ref.list, container: ref.name, field: 'resources' });
  }
  const plan: EditPlan & { violations?: string[] } = { ok: true, ops: guardedOps(guards, writes), changes };
  if (violations.length > 0) plan.violations = violations;
  return plan;
}

// ---------------------------------------------------------------------------
// In-place compatibility

export type InPlacePolicy = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly';

/**
 * The pod update policy of a Kruise workload that can update pods in place; undefined for
 * kinds that always recreate (native workloads, pods, jobs) or never touch pods (SidecarSet).
 */
export function inPlacePolicy(obj: KubeObject): InPlacePolicy | undefined {
  const adapter = adapterFor(obj);
  // Native kinds always recreate pods; their adapters report ReCreate, which needs no warning.
  if (!adapter || adapter.group !== 'apps.kruise.io') return undefined;
  const policy = adapter.updatePolicy(obj);
  return policy === 'OnDelete' ? undefined : policy;
}

/** Whether Kruise can apply this change to running pods without recreating them. */
export function changeIsInPlace(change: TemplateChange): boolean {
  // Kruise updates only app container images in place; init containers, env, resources and the
  // service account need new pods.
  return isContainerChange(change) && change.field === 'image' && change.list === 'containers';
}

function changeLabel(c: TemplateChange): string {
  if (!isContainerChange(c)) return 'service account';
  return c.field === 'image' ? 'init container image' : c.field === 'resources' ? 'resource' : 'env';
}

export interface InPlaceVerdict {
  policy: InPlacePolicy;
  /** Human description of what cannot be done in place, e.g. "env changes". */
  what: string;
  /** InPlaceOnly: the webhook would reject the change. */
  rejected: boolean;
}

/** Describes the changes that a Kruise in-place policy cannot apply in place (undefined when all can). */
export function inPlaceVerdict(obj: KubeObject, changes: readonly TemplateChange[]): InPlaceVerdict | undefined {
  const policy = inPlacePolicy(obj);
  if (policy !== 'InPlaceIfPossible' && policy !== 'InPlaceOnly') return undefined;
  const blocking = changes.filter((c) => !changeIsInPlace(c));
  if (blocking.length === 0) return undefined;
  const fields = new Set<string>();
  for (const c of blocking) fields.add(changeLabel(c));
  return { policy, what: `${[...fields].join(' and ')} changes`, rejected: policy === 'InPlaceOnly' };
}

// ---------------------------------------------------------------------------
// Applying a JSON patch locally (--local and --dry-run=client show the result without a server)

/** Applies a JSON patch to a deep copy of `obj` (lib/json-patch's RFC 6902; throws its JsonPatchError). */
export function applyJsonPatch<T extends KubeObject>(obj: T, ops: readonly JsonPatchOp[]): T {
  return jsonPatch(obj, ops) as T;
}
