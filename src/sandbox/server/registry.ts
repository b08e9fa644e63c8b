// Lookup of served kinds by group/version/resource, kept in step with the installed
// CustomResourceDefinitions (a CRD becomes servable as soon as it is stored).
import type { KubeObject } from '../../kruise/types';
import { builtinResourceTypes } from './builtin-resources';
import { ALL_VERBS, compareVersionPriority, type JsonSchema, type PrinterColumn, type ResourceType, type ServedVersion } from './resource-types';

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JsonSchema };
  additionalPrinterColumns?: PrinterColumn[];
  subresources?: { status?: object; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
}

export interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  versions: CrdVersion[];
}

export function resourceTypeFromCrd(crd: KubeObject): ResourceType {
  const spec = crd.spec as CrdSpec;
  const versions: ServedVersion[] = spec.versions.map((v) => ({
    name: v.name,
    served: v.served !== false,
    storage: v.storage === true,
    schema: v.schema?.openAPIV3Schema,
    printerColumns: v.additionalPrinterColumns,
    status: v.subresources?.status !== undefined,
    scale: v.subresources?.scale,
    deprecated: v.deprecated,
    deprecationWarning: v.deprecationWarning,
  }));
  const storage = versions.find((v) => v.storage) ?? versions[0]!;
  return {
    group: spec.group,
    resource: spec.names.plural,
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    namespaced: spec.scope !== 'Cluster',
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    verbs: ALL_VERBS,
    versions,
    storageVersion: storage.name,
    crd: crd.metadata.name,
    builtin: false,
  };
}

export class ResourceRegistry {
  private readonly byGr = new Map<string, ResourceType>();
  /** Bumped on every change, so discovery/OpenAPI caches know when to rebuild. */
  generation = 0;

  constructor() {
    for (const t of builtinResourceTypes()) this.byGr.set(key(t.group, t.resource), t);
  }

  get(group: string, resource: string): ResourceType | undefined {
    return this.byGr.get(key(group, resource));
  }

  /** The kind served at group/version/resource, with that version's details. */
  lookup(group: string, version: string, resource: string): { type: ResourceType; version: ServedVersion } | undefined {
    const type = this.byGr.get(key(group, resource));
    const v = type?.versions.find((x) => x.name === version && x.served);
    return type && v ? { type, version: v } : undefined;
  }

  byKind(group: string, kind: string): ResourceType | undefined {
    for (const t of this.byGr.values()) if (t.group === group && t.kind === kind) return t;
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.byGr.values()];
  }

  /** Groups with their served versions in priority order (preferred first). */
  groups(): Array<{ group: string; versions: string[] }> {
    const map = new Map<string, Set<string>>();
    for (const t of this.byGr.values()) {
      for (const v of t.versions) {
        if (!v.served) continue;
        if (!map.has(t.group)) map.set(t.group, new Set());
        map.get(t.group)!.add(v.name);
      }
    }
    const order = ['', 'apps', 'events.k8s.io', 'batch', 'policy', 'rbac.authorization.k8s.io', 'apiextensions.k8s.io', 'coordination.k8s.io'];
    const rank = (g: string): number => {
      const i = order.indexOf(g);
      return i === -1 ? order.length : i;
    };
    return [...map.entries()]
      .map(([group, vs]) => ({ group, versions: [...vs].sort(compareVersionPriority) }))
      .sort((a, b) => rank(a.group) - rank(b.group) || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  }

  installCrd(crd: KubeObject): ResourceType {
    const t = resourceTypeFromCrd(crd);
    this.byGr.set(key(t.group, t.resource), t);
    this.generation++;
    return t;
  }

  removeCrd(crd: KubeObject): void {
    const spec = crd.spec as CrdSpec;
    const k = key(spec.group, spec.names.plural);
    if (this.byGr.get(k)?.crd === crd.metadata.name) {
      this.byGr.delete(k);
      this.generation++;
    }
  }
}

function key(group: string, resource: string): string {
  return `${group}/${resource}`;
}
