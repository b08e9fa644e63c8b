// Discovery documents: the legacy per-group-version lists and the aggregated
// (apidiscovery.k8s.io/v2) form that kubectl 1.32 asks for first.
import type { ResourceRegistry } from './registry';
import { groupVersion, type ResourceType, type ServedVersion } from './resource-types';

const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

interface SubresourceInfo {
  name: string;
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

function subresourcesOf(t: ResourceType, v: ServedVersion): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  if (v.scale) out.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUBRESOURCE_VERBS });
  if (v.status) out.push({ name: 'status', group: t.group, version: v.name, kind: t.kind, verbs: SUBRESOURCE_VERBS });
  for (const extra of t.extraSubresources ?? []) {
    if (extra === 'log') out.push({ name: 'log', group: '', version: 'v1', kind: 'Pod', verbs: ['get'] });
    else if (extra === 'eviction') out.push({ name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    else if (extra === 'binding') out.push({ name: 'binding', group: '', version: 'v1', kind: 'Binding', verbs: ['create'] });
    else if (extra === 'exec') out.push({ name: 'exec', group: '', version: 'v1', kind: 'PodExecOptions', verbs: ['create', 'get'] });
  }
  return out;
}

function typesIn(registry: ResourceRegistry, group: string, version: string): Array<{ t: ResourceType; v: ServedVersion }> {
  const out: Array<{ t: ResourceType; v: ServedVersion }> = [];
  for (const t of registry.all()) {
    if (t.group !== group) continue;
    const v = t.versions.find((x) => x.name === version && x.served);
    if (v) out.push({ t, v });
  }
  return out.sort((a, b) => (a.t.resource < b.t.resource ? -1 : 1));
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): object | undefined {
  const types = typesIn(registry, group, version);
  if (types.length === 0) return undefined;
  const resources: object[] = [];
  for (const { t, v } of types) {
    const r: Record<string, unknown> = { name: t.resource, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: t.verbs };
    if (t.shortNames.length) r.shortNames = t.shortNames;
    if (t.categories.length) r.categories = t.categories;
    resources.push(r);
    for (const s of subresourcesOf(t, v)) {
      const sub: Record<string, unknown> = { name: `${t.resource}/${s.name}`, singularName: '', namespaced: t.namespaced, kind: s.kind, verbs: s.verbs };
      if (s.group !== t.group || s.version !== v.name) {
        sub.group = s.group;
        sub.version = s.version;
      }
      resources.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources };
}

export function apiVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(group: string, versions: string[]): object {
  const vs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(registry: ResourceRegistry): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.group !== '')
      .map((g) => apiGroup(g.group, g.versions)),
  };
}

export function apiGroupDoc(registry: ResourceRegistry, group: string): object | undefined {
  const g = registry.groups().find((x) => x.group === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.group, g.versions) } : undefined;
}

/** apidiscovery.k8s.io APIGroupDiscoveryList for `/api` (core) or `/apis` (named groups). */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean, apiVersion: 'v2' | 'v2beta1'): object {
  const items = registry
    .groups()
    .filter((g) => (core ? g.group === '' : g.group !== ''))
    .map((g) => ({
      metadata: g.group ? { name: g.group, creationTimestamp: null } : { creationTimestamp: null },
      versions: g.versions.map((version) => ({
        version,
        resources: typesIn(registry, g.group, version).map(({ t, v }) => {
          const r: Record<string, unknown> = {
            resource: t.resource,
            responseKind: { group: t.group, version, kind: t.kind },
            scope: t.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: t.singular,
            verbs: t.verbs,
          };
          if (t.shortNames.length) r.shortNames = t.shortNames;
          if (t.categories.length) r.categories = t.categories;
          const subs = subresourcesOf(t, v);
          if (subs.length) {
            r.subresources = subs.map((s) => ({ subresource: s.name, responseKind: { group: s.group, version: s.version, kind: s.kind }, verbs: s.verbs }));
          }
          return r;
        }),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${apiVersion}`, metadata: {}, items };
}

/** Which aggregated discovery version the Accept header asks for, if any (first match wins). */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept || !accept.includes('as=APIGroupDiscoveryList')) return undefined;
  for (const part of accept.split(',')) {
    if (!part.includes('as=APIGroupDiscoveryList') || !part.includes('g=apidiscovery.k8s.io')) continue;
    if (/v=v2beta1/.test(part)) return 'v2beta1';
    if (/v=v2(;|$|\s)/.test(part)) return 'v2';
  }
  return undefined;
}
