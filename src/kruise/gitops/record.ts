// How the API server updates metadata.managedFields on a write (the sandbox records them with it):
// an Update gives the changed fields to its manager's Update entry, an Apply makes the manager's
// Apply entry exactly the fields of its configuration; either way other managers lose those fields.
import type { KubeObject } from '../types';
import { changedFieldPaths, fieldPathsOf, fieldSet, ownsPath, withPaths, withoutPaths, type FieldPath, type FieldsV1, type ManagedFieldsEntry } from './fields';

export interface WriteAttribution {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
}

/** kube-apiserver's default manager: the User-Agent up to its first `/` (`kubectl/v1.31.0 (...)` → `kubectl`). */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0]!.trim();
  return (prefix || 'unknown').slice(0, 128);
}

function isEmpty(set: FieldsV1 | undefined): boolean {
  return !set || Object.keys(set).length === 0;
}

/**
 * The managedFields after a write: `before` undefined for a create; `applied` the configuration
 * of an Apply (its fields become the manager's), absent for an Update (the changed fields do).
 */
export function recordManagedFields(before: KubeObject | undefined, after: KubeObject, who: WriteAttribution, applied?: KubeObject): ManagedFieldsEntry[] {
  const entries = ((before?.metadata.managedFields ?? []) as ManagedFieldsEntry[]).filter((e) => e && typeof e === 'object');
  const own = entries.find((e) => e.manager === who.manager && e.operation === who.operation && !e.subresource);
  // `paths`: what the other managers lose. An Apply shares the fields it sets to the value they
  // already had (both managers own them) and takes the ones it changes, as with --force-conflicts.
  let paths: string[][];
  let mine: FieldsV1;
  if (who.operation === 'Apply') {
    mine = fieldSet(fieldPathsOf(applied ?? after));
    paths = before ? changedFieldPaths(before, after) : [];
  } else {
    paths = before ? changedFieldPaths(before, after) : fieldPathsOf(after);
    // Removed fields belong to nobody: only what is still set joins the manager's fields.
    mine = withPaths(own?.fieldsV1, paths);
    if (before) mine = withoutPaths(mine, paths.filter((p) => !fieldStillSet(after, p)));
  }
  const entry: ManagedFieldsEntry = { manager: who.manager, operation: who.operation, apiVersion: who.apiVersion, time: who.time, fieldsType: 'FieldsV1', fieldsV1: mine };
  // The entry keeps its place when it was there; a new manager comes last, as the API server orders them.
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e === own) {
      if (!isEmpty(mine)) out.push(entry);
      continue;
    }
    // A subresource's entry (status) is not touched by a write of the main resource.
    const fieldsV1 = e.subresource ? e.fieldsV1 : withoutPaths(e.fieldsV1, paths);
    if (!isEmpty(fieldsV1)) out.push({ ...e, fieldsV1 });
  }
  if (!own && !isEmpty(mine)) out.push(entry);
  return out;
}

/** Whether the object still has the field at `path` (a removed one is owned by nobody). */
function fieldStillSet(obj: KubeObject, path: FieldPath): boolean {
  let node: unknown = obj;
  let field = '';
  for (const el of path) {
    if (el === '.') return true;
    if (el.startsWith('f:')) {
      field = el.slice(2);
      if (typeof node !== 'object' || node === null || Array.isArray(node)) return false;
      node = (node as Record<string, unknown>)[field];
      if (node === undefined) return false;
    } else if (el.startsWith('k:')) {
      if (!Array.isArray(node)) return false;
      const key = JSON.parse(el.slice(2)) as Record<string, unknown>;
      node = node.find((item) => typeof item === 'object' && item !== null && Object.entries(key).every(([k, v]) => ((item as Record<string, unknown>)[k] ?? (k === 'protocol' ? 'TCP' : undefined)) === v));
      if (node === undefined) return false;
    } else return true;
  }
  return true;
}

export interface ApplyConflict {
  manager: string;
  apiVersion: string;
  /** `.spec.template.spec.containers[name="app"].image`, as the API server names it. */
  field: string;
}

/**
 * The conflicts an Apply without force meets: fields its configuration sets to a value other than
 * the object's, owned by another manager (the API server answers 409 listing them).
 */
export function applyConflicts(before: KubeObject, after: KubeObject, applied: KubeObject, manager: string): ApplyConflict[] {
  const entries = (before.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const appliedSet = fieldSet(fieldPathsOf(applied));
  const out: ApplyConflict[] = [];
  for (const path of changedFieldPaths(before, after)) {
    if (!ownsPath(appliedSet, path)) continue;
    for (const e of entries) {
      if (e.subresource || (e.manager === manager && e.operation === 'Apply') || !ownsPath(e.fieldsV1, path)) continue;
      out.push({ manager: e.manager ?? '', apiVersion: e.apiVersion ?? '', field: conflictFieldPath(path) });
    }
  }
  return out;
}

/** `.spec.template.spec.containers[name="app"].image` (sigs.k8s.io/structured-merge-diff's path text). */
export function conflictFieldPath(path: FieldPath): string {
  let out = '';
  for (const el of path) {
    if (el === '.') continue;
    if (el.startsWith('f:')) out += `.${el.slice(2)}`;
    else if (el.startsWith('k:')) {
      const key = JSON.parse(el.slice(2)) as Record<string, unknown>;
      out += `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    } else out += `[${el.slice(2)}]`;
  }
  return out;
}
