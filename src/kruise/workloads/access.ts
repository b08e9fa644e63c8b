// Small typed readers over plain objects, shared by the workload adapters, so that each
// adapter reads like a list of field paths instead of a pile of casts.
import { splitApiVersion, type GroupVersion } from '../api-version';
import type { KubeObject } from '../types';
import type { IntOrString, TemplateContainer } from './types';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The JSON object an annotation holds (the records this CLI keeps on the cluster, Kruise's JSON
 * annotations); undefined when absent, unparsable or not an object, which readers treat as "none".
 */
export function jsonObjectOf(text: string | undefined): Obj | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObj(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Value at a path of keys, or undefined when any step is missing. */
export function at(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (!isObj(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function numAt(obj: unknown, ...path: string[]): number | undefined {
  const v = at(obj, ...path);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function strAt(obj: unknown, ...path: string[]): string | undefined {
  const v = at(obj, ...path);
  return typeof v === 'string' ? v : undefined;
}

export function boolAt(obj: unknown, ...path: string[]): boolean {
  return at(obj, ...path) === true;
}

export function objAt(obj: unknown, ...path: string[]): Obj | undefined {
  const v = at(obj, ...path);
  return isObj(v) ? v : undefined;
}

/** An int-or-string field (other types read as undefined). */
export function intOrStringAt(obj: unknown, ...path: string[]): IntOrString | undefined {
  const v = at(obj, ...path);
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
}

/** The group and version of an object's apiVersion (see splitApiVersion). */
export function groupVersion(obj: KubeObject): GroupVersion {
  return splitApiVersion(obj.apiVersion);
}

/** Nested merge patch { a: { b: { c: value } } } for a path of keys. */
export function mergePatchAt(path: string[], value: unknown): Record<string, unknown> {
  let patch: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) patch = { [path[i]!]: patch };
  return patch as Record<string, unknown>;
}

/** One JSON pointer segment (RFC 6901 escaping). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** JSON pointer of a path of keys. */
export function pointerOf(path: readonly string[]): string {
  return `/${path.map(escapePointer).join('/')}`;
}

export type Conditions = Array<{ type: string; status: string; reason?: string; message?: string }>;

export function conditionsOf(obj: KubeObject): Conditions {
  const list = at(obj, 'status', 'conditions');
  if (!Array.isArray(list)) return [];
  return list.filter((c): c is Conditions[number] => isObj(c) && typeof c.type === 'string' && typeof c.status === 'string');
}

/** Containers then init containers of the pod template at spec.template, with JSON pointers. */
export function templateContainers(obj: KubeObject): TemplateContainer[] {
  const out: TemplateContainer[] = [];
  for (const [field, init] of [['containers', false], ['initContainers', true]] as const) {
    const list = at(obj, 'spec', 'template', 'spec', field);
    if (!Array.isArray(list)) continue;
    list.forEach((c, i) => {
      if (!isObj(c) || typeof c.name !== 'string') return;
      const entry: TemplateContainer = { name: c.name, init, pointer: `/spec/template/spec/${field}/${i}` };
      if (typeof c.image === 'string') entry.image = c.image;
      out.push(entry);
    });
  }
  return out;
}
