// Whether the cluster's CRD for a Kruise kind knows a field: newer flags (--force,
// --persistent-annotations) and copied fields (migrate's progressDeadlineSeconds) would be
// silently pruned by an older release's schema, so they are refused or left out up front
// instead. Best effort: unknown (false) when the CRD cannot be read.
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';

const CRD_RT: ResourceType = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };

interface SchemaShape {
  openAPIV3Schema?: { 'x-kubernetes-preserve-unknown-fields'?: boolean; properties?: Record<string, { 'x-kubernetes-preserve-unknown-fields'?: boolean }> };
}

/**
 * True when a version's schema would prune `field`: it appears nowhere in the schema and neither the
 * object nor its spec keeps unknown fields (a permissive schema, as the sandbox's built-in
 * definitions have, prunes nothing).
 */
export function schemaLacksField(schema: unknown, field: string): boolean {
  if (schema === undefined || schema === null) return false;
  const root = (schema as SchemaShape).openAPIV3Schema;
  if (root?.['x-kubernetes-preserve-unknown-fields'] || root?.properties?.spec?.['x-kubernetes-preserve-unknown-fields']) return false;
  return !JSON.stringify(schema).includes(`"${field}"`);
}

/** The schema of the CRD `crdName`'s `version`; undefined when the CRD cannot be read or has no such version. */
async function versionSchema(client: KubeClient, crdName: string, version: string): Promise<{ openAPIV3Schema?: unknown } | undefined> {
  let crd: KubeObject;
  try {
    crd = await client.get(CRD_RT, crdName);
  } catch {
    return undefined;
  }
  const versions = (crd.spec as { versions?: Array<{ name: string; schema?: { openAPIV3Schema?: unknown } }> } | undefined)?.versions ?? [];
  return versions.find((x) => x.name === version)?.schema;
}

/** True only when the CRD `crdName` is readable, its `version` has a schema, and that schema would prune `field`. */
export async function crdVersionLacksField(client: KubeClient, crdName: string, version: string, field: string): Promise<boolean> {
  return schemaLacksField(await versionSchema(client, crdName, version), field);
}

/**
 * The OpenAPI schema node at `path` (property names from the root's properties down, "items" for
 * an array's items) in the CRD `crdName`'s `version`; undefined when the CRD cannot be read or
 * has no such node (best effort, like crdVersionLacksField).
 */
export async function crdSchemaAt(client: KubeClient, crdName: string, version: string, path: readonly string[]): Promise<unknown> {
  let node: unknown = (await versionSchema(client, crdName, version))?.openAPIV3Schema;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    const n = node as { properties?: Record<string, unknown>; items?: unknown };
    node = key === 'items' ? n.items : n.properties?.[key];
  }
  return node;
}
