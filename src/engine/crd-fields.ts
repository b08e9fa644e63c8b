// Whether the cluster's CRD for a Kruise kind knows a field: newer flags (--force,
// --persistent-annotations) would be silently pruned by an older release's schema, so they
// are refused up front instead. Best effort: unknown (false) when the CRD cannot be read.
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';

const CRD_RT: ResourceType = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };

/** True only when the CRD `crdName` is readable, its `version` has a schema, and `field` appears nowhere in it. */
export async function crdVersionLacksField(client: KubeClient, crdName: string, version: string, field: string): Promise<boolean> {
  let crd: KubeObject;
  try {
    crd = await client.get(CRD_RT, crdName);
  } catch {
    return false;
  }
  const versions = (crd.spec as { versions?: Array<{ name: string; schema?: unknown }> } | undefined)?.versions ?? [];
  const schema = versions.find((x) => x.name === version)?.schema;
  return schema !== undefined && !JSON.stringify(schema).includes(`"${field}"`);
}

/**
 * The OpenAPI schema node at `path` (property names from the root's properties down, "items" for
 * an array's items) in the CRD `crdName`'s `version`; undefined when the CRD cannot be read or
 * has no such node (best effort, like crdVersionLacksField).
 */
export async function crdSchemaAt(client: KubeClient, crdName: string, version: string, path: readonly string[]): Promise<unknown> {
  let crd: KubeObject;
  try {
    crd = await client.get(CRD_RT, crdName);
  } catch {
    return undefined;
  }
  const versions = (crd.spec as { versions?: Array<{ name: string; schema?: { openAPIV3Schema?: unknown } }> } | undefined)?.versions ?? [];
  let node: unknown = versions.find((x) => x.name === version)?.schema?.openAPIV3Schema;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    const n = node as { properties?: Record<string, unknown>; items?: unknown };
    node = key === 'items' ? n.items : n.properties?.[key];
  }
  return node;
}
