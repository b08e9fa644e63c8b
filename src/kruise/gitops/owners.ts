// Which field managers put a field back after someone else changes it (GitOps controllers and
// server-side apply), and the findings a write about to change their fields gets.
import type { KubeObject } from '../types';
import { changedFieldPaths, formatFieldPath, ownsPath, type FieldPath, type ManagedFieldsEntry } from './fields';

export type GitOpsMode = 'warn' | 'refuse' | 'ignore';
export const GITOPS_MODES: readonly GitOpsMode[] = ['warn', 'refuse', 'ignore'];

export interface Reverter {
  /** The tool people know (`Argo CD`, `Flux`, `kubectl apply`, `server-side apply`). */
  tool: string;
  /** What it does to the field: `Flux will set it back at the next reconcile`. */
  effect: string;
}

const KNOWN: Record<string, Reverter> = {
  'argocd-controller': { tool: 'Argo CD', effect: 'Argo CD will set it back at the next sync (at once with self-heal)' },
  'argocd-application-controller': { tool: 'Argo CD', effect: 'Argo CD will set it back at the next sync (at once with self-heal)' },
  'kustomize-controller': { tool: 'Flux', effect: 'Flux will set it back at the next reconcile' },
  'helm-controller': { tool: 'Flux', effect: 'Flux will set it back at the next reconcile' },
};

/** What a manager does to a field it owns when someone else changes it, or undefined when it leaves it be. */
export function reverterOf(entry: ManagedFieldsEntry): Reverter | undefined {
  const manager = entry.manager ?? '';
  const known = KNOWN[manager];
  if (known) return known;
  // Server-side apply: the manager re-applies its configuration, and with it the field. A client-side
  // `kubectl apply` (kubectl-client-side-apply, an Update) is someone's one-off command, not a reconciler.
  if (entry.operation === 'Apply') return { tool: 'server-side apply', effect: `${manager} will set it back at its next apply` };
  return undefined;
}

export interface GitOpsFinding {
  /** `spec.template.spec.containers[app].image` */
  field: string;
  manager: string;
  tool: string;
  effect: string;
}

/**
 * The fields of `before` a write turning it into `after` changes that a reverting manager other
 * than `fieldManager` owns, one finding per field and manager.
 */
export function gitopsFindings(before: KubeObject, after: KubeObject, fieldManager: string): GitOpsFinding[] {
  const entries = (before.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  if (entries.length === 0) return [];
  return findingsForPaths(entries, changedFieldPaths(before, after), fieldManager);
}

export function findingsForPaths(entries: readonly ManagedFieldsEntry[], paths: readonly FieldPath[], fieldManager: string): GitOpsFinding[] {
  const out: GitOpsFinding[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    for (const entry of entries) {
      if (entry.manager === fieldManager || entry.subresource) continue;
      const reverter = reverterOf(entry);
      if (!reverter || !ownsPath(entry.fieldsV1, path)) continue;
      const field = formatFieldPath(path);
      const key = `${field}\u0000${entry.manager ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ field, manager: entry.manager ?? '', tool: reverter.tool, effect: reverter.effect });
    }
  }
  return out;
}

/** `spec.template.spec.containers[app].image is managed by kustomize-controller; Flux will set it back at the next reconcile` */
export function formatFinding(f: GitOpsFinding): string {
  return `${f.field} is managed by ${f.manager}; ${f.effect}`;
}
