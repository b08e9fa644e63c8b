// apiVersion strings ("apps.kruise.io/v1beta1", core "v1") split into group and version and
// put back together: the one place that knows the core group has no "group/" prefix. Pure, so
// the CLI, the cluster layer and the sandbox all share it.
import type { KubeObject } from './types';

export interface GroupVersion {
  /** '' for the core group. */
  group: string;
  version: string;
}

/**
 * "apps.kruise.io/v1beta1" → { group: "apps.kruise.io", version: "v1beta1" }; core "v1" → group "".
 * Splits at the first "/" (a group never holds one); a missing apiVersion reads as { '', '' }.
 */
export function splitApiVersion(apiVersion: string | undefined): GroupVersion {
  const av = apiVersion ?? '';
  const slash = av.indexOf('/');
  return slash < 0 ? { group: '', version: av } : { group: av.slice(0, slash), version: av.slice(slash + 1) };
}

/** The API group of an apiVersion: "apps/v1" → "apps", "v1" (core) or missing → "". */
export function apiGroupOf(apiVersion: string | undefined): string {
  return splitApiVersion(apiVersion).group;
}

/** The inverse of splitApiVersion: ("apps", "v1") → "apps/v1", ("", "v1") → "v1". */
export function joinApiVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** The object with apiVersion and kind filled in from its resource type when either is missing. */
export function withTypeMeta<T extends KubeObject>(obj: T, type: { group: string; version: string; kind: string }): T {
  return obj.apiVersion && obj.kind ? obj : { ...obj, apiVersion: joinApiVersion(type.group, type.version), kind: type.kind };
}
