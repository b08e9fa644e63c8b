// Resource references on the command line: TYPE/NAME..., TYPE NAME..., -f FILE,
// -l SELECTOR / --all with a TYPE. parseTargets() is pure and validates every
// name before it can reach a URL (exit 2); resolveTargets() maps them onto the
// cluster through a KubeClient.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ManifestInputError, readManifestText, yamlDocuments } from '../lib/yaml-documents';
import { splitTopLevel } from '../lib/label-selector';
import { usageError } from '../cli/exit';
import { dns1123LabelProblem, dns1123SubdomainProblem } from '../kruise/names';
import type { KubeClient, KubeObject, ResourceType } from './client';
import { splitApiVersion } from '../kruise/api-version';
import { lookupKind, lookupType } from './aliases';
import { unknownTypeError } from './resolve';
import { resourceLabel } from './errors';

export type TargetSpec =
  | { kind: 'named'; type: string; name: string }
  | { kind: 'selector'; type: string; selector: string }
  | { kind: 'all'; type: string }
  | { kind: 'object'; object: KubeObject; source: string };

export interface TargetInput {
  args: string[];
  filenames?: string[];
  selector?: string;
  all?: boolean;
  /** -R: a directory's subdirectories too (kubectl's --recursive). */
  recursive?: boolean;
  /** Reads "-" (stdin) and files; injectable for tests. */
  readFile?: (path: string) => string;
}

export interface ResolvedTarget {
  rt: ResourceType;
  name: string;
  /** Undefined for cluster-scoped kinds. */
  namespace?: string;
  /** The object from -f, or from the list for -l/--all. */
  object?: KubeObject;
}

export function validateName(name: string, what = 'name'): void {
  if (name.includes('/') || name.includes('%')) throw usageError(`invalid ${what} "${name}": must not contain "/" or "%"`);
  const problem = dns1123SubdomainProblem(name);
  if (problem) throw usageError(`invalid ${what} "${truncate(name)}": ${problem}`);
}

export function validateNamespace(ns: string): void {
  const problem = dns1123LabelProblem(ns);
  if (problem) throw usageError(`invalid namespace "${truncate(ns)}": ${problem}`);
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 60)}...(${s.length} chars)` : s;
}

function validateType(type: string, ref: string): void {
  if (type === '') throw usageError(`invalid resource reference "${ref}": the type is empty (expected TYPE/NAME, e.g. cloneset/web)`);
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(type)) throw usageError(`invalid resource type "${truncate(type)}"`);
}

// key, !key, key=v, key==v, key!=v, key in (a,b), key notin (a,b), and the set-based forms.
const LABEL_KEY = '(?:[a-z0-9A-Z](?:[-a-z0-9A-Z_.]*[a-z0-9A-Z])?/)?[a-z0-9A-Z](?:[-a-z0-9A-Z_.]*[a-z0-9A-Z])?';
const LABEL_VALUE = '(?:[a-z0-9A-Z](?:[-a-z0-9A-Z_.]*[a-z0-9A-Z])?)?';
const REQUIREMENT = new RegExp(
  `^(?:!\\s*${LABEL_KEY}|${LABEL_KEY}\\s*(?:(?:=|==|!=)\\s*${LABEL_VALUE}|\\s(?:in|notin)\\s*\\(\\s*${LABEL_VALUE}(?:\\s*,\\s*${LABEL_VALUE})*\\s*\\))?)$`,
);

/** Checks label selector syntax (exit 2 on a malformed one). */
export function validateSelector(selector: string): void {
  if (selector.trim() === '') throw usageError('empty label selector (-l)');
  const parts = splitTopLevel(selector);
  if (!parts) throw usageError(`invalid label selector "${selector}": unbalanced parentheses`);
  for (const p of parts) {
    if (!REQUIREMENT.test(p.trim())) throw usageError(`invalid label selector "${selector}": cannot parse "${p.trim()}"`);
  }
}

function splitRef(ref: string): { type: string; name: string } {
  const parts = ref.split('/');
  if (parts.length !== 2) throw usageError(`invalid resource reference "${truncate(ref)}": expected TYPE/NAME with exactly one "/"`);
  const [type, name] = parts as [string, string];
  validateType(type, ref);
  if (name === '') throw usageError(`invalid resource reference "${ref}": the name is empty (expected TYPE/NAME)`);
  validateName(name);
  return { type, name };
}

/** Parses the references of a command (pure except for reading -f files). */
export function parseTargets(input: TargetInput): TargetSpec[] {
  const args = input.args;
  const files = input.filenames ?? [];
  if (files.length) {
    if (args.length) throw usageError('give either -f FILE or TYPE/NAME arguments, not both');
    if (input.selector !== undefined || input.all) throw usageError('-l and --all cannot be combined with -f');
    return files.flatMap((f) => readObjects(f, input.readFile, input.recursive));
  }
  if (input.selector !== undefined && input.all) throw usageError('give either -l SELECTOR or --all, not both');
  if (input.selector !== undefined || input.all) {
    if (args.length !== 1 || args[0]!.includes('/')) {
      throw usageError(`${input.all ? '--all' : '-l'} needs exactly one TYPE and no names (e.g. ${input.all ? '"cloneset --all"' : '"cloneset -l app=web"'})`);
    }
    const types = splitTypes(args[0]!);
    if (input.selector !== undefined) {
      validateSelector(input.selector);
      return types.map((type) => ({ kind: 'selector' as const, type, selector: input.selector! }));
    }
    return types.map((type) => ({ kind: 'all' as const, type }));
  }
  if (args.length === 0) throw usageError('you must specify the type of resource and a name, e.g. cloneset/web (or -f FILE, -l SELECTOR)');
  if (args[0]!.includes('/')) {
    return args.map((a) => {
      if (!a.includes('/')) throw usageError(`"${truncate(a)}" has no type: when one argument is TYPE/NAME, all must be (e.g. cloneset/web cloneset/api)`);
      return { kind: 'named' as const, ...splitRef(a) };
    });
  }
  const type = args[0]!;
  const types = splitTypes(type);
  if (args.length === 1) throw nameMissing(type, `a name is required for "${type}": give ${type}/NAME, "${type} NAME" or ${type} -l SELECTOR`);
  const names = args.slice(1).map((name) => {
    if (name.includes('/')) throw usageError(`"${truncate(name)}" looks like TYPE/NAME: do not mix it with "${type} NAME" (there is no need to give the type separately)`);
    validateName(name);
    return name;
  });
  return types.flatMap((t) => names.map((name) => ({ kind: 'named' as const, type: t, name })));
}

/**
 * A lone word where TYPE/NAME was wanted: kubectl reads it as a type, so a word no kind is spelt
 * like ("web", a name given without its type) is the server's answer for an unknown type, not a
 * hint about names that would send the user to a flag the command may refuse.
 */
export function nameMissing(word: string, message: string): Error {
  const unknown = word.split(',').find((t) => lookupType(t) === undefined);
  return unknown !== undefined ? unknownTypeError(unknown, undefined, true) : usageError(message);
}

/** `deployment,cloneset` (kubectl's TYPE1,TYPE2 form): each type validated on its own. */
function splitTypes(arg: string): string[] {
  const types = arg.split(',');
  for (const t of types) validateType(t, arg);
  return types;
}

function defaultRead(path: string): string {
  return readManifestText(path, path === '-' ? 'stdin' : path);
}

/** The manifests of a -f argument: the file, or a directory's .yaml/.yml/.json files (with -R, its subdirectories' too), in name order. */
function filesOf(path: string, recursive = false): string[] {
  if (path === '-') return [path];
  let st;
  try {
    st = statSync(path);
  } catch {
    throw usageError(`the path "${path}" does not exist`);
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) {
      if (recursive) out.push(...filesOf(full, true));
    } else if (/\.(ya?ml|json)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** Reads the objects of one -f argument (file, directory or "-"): multi-document YAML/JSON, Lists expanded. */
export function readObjects(path: string, read: (p: string) => string = defaultRead, recursive = false): TargetSpec[] {
  const out: TargetSpec[] = [];
  const paths = read === defaultRead ? filesOf(path, recursive) : [path];
  for (const file of paths) {
    const source = file === '-' ? 'stdin' : file;
    let text: string;
    try {
      text = read(file);
    } catch (e) {
      if (e instanceof ManifestInputError) throw usageError(e.message);
      const code = (e as NodeJS.ErrnoException).code;
      throw usageError(`cannot read ${source}: ${code === 'ENOENT' ? 'no such file' : code ?? (e as Error).message}`);
    }
    try {
      for (const { value, index } of yamlDocuments(text, source)) {
        if (value === null || value === undefined) continue;
        const items = isList(value) ? (value as { items: unknown[] }).items : [value];
        for (const item of items) out.push({ kind: 'object', object: checkObject(item, `${source} (document ${index})`), source });
      }
    } catch (e) {
      throw e instanceof ManifestInputError ? usageError(e.message) : e;
    }
  }
  if (out.length === 0) throw usageError(`no objects passed in ${path === '-' ? 'stdin' : path}`);
  return out;
}

function isList(v: unknown): boolean {
  const o = v as { kind?: unknown; items?: unknown };
  return typeof o === 'object' && o !== null && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items);
}

function checkObject(v: unknown, where: string): KubeObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw usageError(`${where}: expected a Kubernetes object (a mapping with apiVersion, kind, metadata)`);
  const o = v as KubeObject;
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '') throw usageError(`${where}: apiVersion is missing`);
  if (typeof o.kind !== 'string' || o.kind === '') throw usageError(`${where}: kind is missing`);
  if (!o.metadata || typeof o.metadata !== 'object' || typeof o.metadata.name !== 'string' || o.metadata.name === '') {
    throw usageError(`${where}: metadata.name is missing`);
  }
  validateName(o.metadata.name, `${o.kind} name`);
  if (o.metadata.namespace !== undefined) validateNamespace(String(o.metadata.namespace));
  return o;
}

export interface ResolveTargetOptions {
  /** Namespace from -n (undefined = the client's default and no mismatch check). */
  explicitNamespace?: string;
  /** Restrict to kinds a command supports: returns an error message for others (exit 2). */
  allow?: (rt: ResourceType) => string | undefined;
  signal?: AbortSignal;
}

/** Resolves parsed references against the cluster: types through discovery, -l/--all by listing. */
export async function resolveTargets(client: KubeClient, specs: TargetSpec[], opts: ResolveTargetOptions = {}): Promise<ResolvedTarget[]> {
  const out: ResolvedTarget[] = [];
  const namespace = client.namespace;
  const check = (rt: ResourceType): ResourceType => {
    const problem = opts.allow?.(rt);
    if (problem) throw usageError(problem);
    return rt;
  };
  for (const spec of specs) {
    switch (spec.kind) {
      case 'named': {
        const rt = check(await client.resolve(spec.type));
        out.push({ rt, name: spec.name, namespace: rt.namespaced ? namespace : undefined });
        break;
      }
      case 'selector':
      case 'all': {
        const rt = check(await client.resolve(spec.type));
        const list = await client.list(rt, rt.namespaced ? namespace : undefined, { labelSelector: spec.kind === 'selector' ? spec.selector : undefined, signal: opts.signal });
        for (const item of list.items) {
          out.push({ rt, name: item.metadata.name ?? '', namespace: rt.namespaced ? (item.metadata.namespace ?? namespace) : undefined, object: item });
        }
        break;
      }
      case 'object': {
        const { group, version } = splitApiVersion(spec.object.apiVersion);
        const known = lookupKind(group, spec.object.kind ?? '');
        if (!known) throw usageError(`${spec.source}: ${spec.object.kind} (${spec.object.apiVersion}) is not a kind this command handles`);
        const rt = check(await client.resolve(`${known.resource}.${version}${group ? `.${group}` : ''}`));
        let ns: string | undefined;
        if (rt.namespaced) {
          const objNs = spec.object.metadata.namespace;
          if (objNs !== undefined && opts.explicitNamespace !== undefined && objNs !== opts.explicitNamespace) {
            throw usageError(`the namespace of ${resourceLabel(rt)} "${spec.object.metadata.name}" in ${spec.source} is "${objNs}", not "${opts.explicitNamespace}" (from --namespace)`);
          }
          ns = objNs ?? namespace;
        }
        out.push({ rt, name: spec.object.metadata.name!, namespace: ns, object: spec.object });
        break;
      }
    }
  }
  return out;
}
