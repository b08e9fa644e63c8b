// PersistentPodState objects and auto-generation annotations (kruise-semantics §6).
// v1alpha1 names topology keys `nodeTopologyKeys`, v1beta1 (main branch) `keys`.
import type { KubeObject } from '../types';
import { dns1123SubdomainProblem, labelValueProblem } from '../names';

export const PPS_AUTO_ANNOTATION = 'kruise.io/auto-generate-persistent-pod-state';
export const PPS_REQUIRED_ANNOTATION = 'kruise.io/required-persistent-topology';
export const PPS_PREFERRED_ANNOTATION = 'kruise.io/preferred-persistent-topology';
export const PPS_POD_ANNOTATIONS_ANNOTATION = 'kruise.io/persistent-pod-annotations';
export const PPS_INJECTED_ANNOTATION = 'kruise.io/injected-persistent-pod-state';

export interface PreferredTopology {
  key: string;
  weight: number;
}

export interface PpsSpecInput {
  apiVersion: string;
  name: string;
  namespace: string;
  target: { apiVersion: string; kind: string; name: string };
  required: string[];
  preferred: PreferredTopology[];
  podAnnotations: string[];
  retention?: 'WhenScaled' | 'WhenDeleted';
}

function keysField(apiVersion: string): 'keys' | 'nodeTopologyKeys' {
  return apiVersion.endsWith('/v1beta1') ? 'keys' : 'nodeTopologyKeys';
}

export function buildPps(input: PpsSpecInput): KubeObject {
  const field = keysField(input.apiVersion);
  const spec: Record<string, unknown> = { targetRef: { ...input.target } };
  if (input.required.length > 0) spec.requiredPersistentTopology = { [field]: [...input.required] };
  if (input.preferred.length > 0) {
    spec.preferredPersistentTopology = input.preferred.map((p) => ({ weight: p.weight, preference: { [field]: [p.key] } }));
  }
  if (input.podAnnotations.length > 0) spec.persistentPodAnnotations = input.podAnnotations.map((key) => ({ key }));
  if (input.retention) spec.persistentPodStateRetentionPolicy = input.retention;
  return { apiVersion: input.apiVersion, kind: 'PersistentPodState', metadata: { name: input.name, namespace: input.namespace }, spec };
}

/**
 * Annotations that make Kruise generate the PPS itself (named after the StatefulSet).
 * The preferred annotation has no weights: Kruise uses 100.
 */
export function autoGenerateAnnotations(required: readonly string[], preferred: readonly string[], podAnnotations: readonly string[]): Record<string, string> {
  const a: Record<string, string> = { [PPS_AUTO_ANNOTATION]: 'true' };
  if (required.length > 0) a[PPS_REQUIRED_ANNOTATION] = required.join(',');
  if (preferred.length > 0) a[PPS_PREFERRED_ANNOTATION] = preferred.join(',');
  if (podAnnotations.length > 0) a[PPS_POD_ANNOTATIONS_ANNOTATION] = podAnnotations.join(',');
  return a;
}

/** Why `key` is not a valid label key (undefined when it is), by the name rules of names.ts. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && dns1123SubdomainProblem(prefix)) return `invalid prefix "${prefix}"`;
  // a label value that is not empty is exactly a valid name part
  if (name.length === 0 || labelValueProblem(name)) return `invalid name part "${name}"`;
  return undefined;
}

/** "k1,k2" → keys; throws with a user message. */
export function parseTopologyKeys(value: string, flag: string): string[] {
  const keys = value.split(',');
  for (const k of keys) {
    if (k === '') throw new Error(`empty topology key in ${flag}`);
    const p = labelKeyProblem(k);
    if (p) throw new Error(`invalid topology key "${k}" in ${flag}: ${p}`);
  }
  return [...new Set(keys)];
}

/** "k[:weight],..." → keys with weights 1–100 (default 100); throws with a user message. */
export function parsePreferredTopology(value: string): PreferredTopology[] {
  const out: PreferredTopology[] = [];
  for (const entry of value.split(',')) {
    if (entry === '') throw new Error('empty topology key in --preferred-topology');
    const colon = entry.lastIndexOf(':');
    const key = colon === -1 ? entry : entry.slice(0, colon);
    let weight = 100;
    if (colon !== -1) {
      const w = entry.slice(colon + 1);
      if (!/^-?\d+$/.test(w)) throw new Error(`invalid weight "${w}" for "${key}" in --preferred-topology: must be an integer from 1 to 100`);
      weight = Number(w);
      if (weight < 1 || weight > 100) throw new Error(`invalid weight ${weight} for "${key}" in --preferred-topology: must be from 1 to 100 (Kubernetes rejects pods with other weights)`);
    }
    const p = labelKeyProblem(key);
    if (p) throw new Error(`invalid topology key "${key}" in --preferred-topology: ${p}`);
    if (out.some((o) => o.key === key)) throw new Error(`topology key "${key}" given twice in --preferred-topology`);
    out.push({ key, weight });
  }
  return out;
}
