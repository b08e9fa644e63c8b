// Discovery of apps.kruise.io and rollouts.kruise.io: which versions of each kind the server serves and
// which one to use. One request (aggregated discovery) when the server supports
// it, else the classic APIGroupList + one resource list per version. Cached per
// server on disk; any cache problem (read-only or missing home) means "no cache".
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KRUISE_GROUP, ROLLOUT_GROUP, compareVersionPriority } from './aliases';

export const DISCOVERY_TTL_MS = 10 * 60 * 1000;
// 2: rollouts.kruise.io is discovered too (a format-1 cache never holds it).
// 3: policy.kruise.io too (PodUnavailableBudget, for `get all`).
const CACHE_FORMAT = 3;

export const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** OpenKruise's policy group (PodUnavailableBudget). */
export const KRUISE_POLICY_GROUP = 'policy.kruise.io';

/** Groups whose resources are kept (others come from the built-in table). */
export const DISCOVERED_GROUPS = [KRUISE_GROUP, ROLLOUT_GROUP, KRUISE_POLICY_GROUP];

export interface DiscoveredResource {
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  verbs?: string[];
  subresources?: string[];
}

export interface DiscoveredGroup {
  /** Served versions, most preferred first. */
  versions: string[];
  preferredVersion?: string;
  /** Resources per version. */
  resources: Record<string, DiscoveredResource[]>;
}

export interface DiscoveryData {
  format: number;
  fetchedAt: number;
  server: string;
  groups: Record<string, DiscoveredGroup>;
}

/** Fetches a JSON document (GET) from the server; throws KubeApiError on non-2xx. */
export type DiscoveryFetch = (path: string, accept?: string) => Promise<unknown>;

// ---- parsing (pure) ----

interface AggregatedResource {
  resource?: string;
  responseKind?: { kind?: string };
  scope?: string;
  shortNames?: string[];
  verbs?: string[];
  subresources?: Array<{ subresource?: string }>;
}
interface AggregatedGroup {
  metadata?: { name?: string };
  versions?: Array<{ version?: string; resources?: AggregatedResource[] }>;
}

export function isAggregatedList(doc: unknown): boolean {
  const kind = (doc as { kind?: string } | null)?.kind;
  return kind === 'APIGroupDiscoveryList';
}

/** Reads an APIGroupDiscoveryList (v2 or v2beta1) keeping the wanted groups. */
export function parseAggregated(doc: unknown, wanted: readonly string[] = DISCOVERED_GROUPS): Record<string, DiscoveredGroup> {
  const groups: Record<string, DiscoveredGroup> = {};
  for (const g of ((doc as { items?: AggregatedGroup[] }).items ?? [])) {
    const name = g.metadata?.name ?? '';
    if (!wanted.includes(name)) continue;
    const group: DiscoveredGroup = { versions: [], resources: {} };
    for (const v of g.versions ?? []) {
      if (!v.version) continue;
      group.versions.push(v.version);
      group.resources[v.version] = (v.resources ?? []).map((r) => ({
        resource: r.resource ?? '',
        kind: r.responseKind?.kind ?? '',
        namespaced: r.scope !== 'Cluster',
        shortNames: r.shortNames,
        verbs: r.verbs,
        subresources: (r.subresources ?? []).map((s) => s.subresource ?? '').filter(Boolean),
      }));
    }
    // Aggregated discovery lists versions in preference order; the first is preferred.
    group.preferredVersion = group.versions[0];
    groups[name] = group;
  }
  return groups;
}

interface LegacyGroup {
  name?: string;
  versions?: Array<{ version?: string }>;
  preferredVersion?: { version?: string };
}

/** Reads an APIResourceList (GET /apis/<group>/<version>). */
export function parseResourceList(doc: unknown): DiscoveredResource[] {
  const list = (doc as { resources?: Array<{ name?: string; kind?: string; namespaced?: boolean; shortNames?: string[]; verbs?: string[] }> }).resources ?? [];
  const top = new Map<string, DiscoveredResource>();
  for (const r of list) {
    const name = r.name ?? '';
    const slash = name.indexOf('/');
    if (slash === -1) {
      top.set(name, { resource: name, kind: r.kind ?? '', namespaced: r.namespaced !== false, shortNames: r.shortNames, verbs: r.verbs, subresources: [] });
    }
  }
  for (const r of list) {
    const name = r.name ?? '';
    const slash = name.indexOf('/');
    if (slash !== -1) top.get(name.slice(0, slash))?.subresources?.push(name.slice(slash + 1));
  }
  return [...top.values()];
}

/** Fetches discovery for the wanted groups: aggregated in one request, else the classic way. */
export async function fetchDiscovery(fetch: DiscoveryFetch, server: string, wanted: readonly string[] = DISCOVERED_GROUPS, now = Date.now()): Promise<DiscoveryData> {
  const doc = await fetch('/apis', AGGREGATED_ACCEPT);
  let groups: Record<string, DiscoveredGroup>;
  if (isAggregatedList(doc)) {
    groups = parseAggregated(doc, wanted);
  } else {
    groups = {};
    const legacy = ((doc as { groups?: LegacyGroup[] }).groups ?? []).filter((g) => wanted.includes(g.name ?? ''));
    for (const g of legacy) {
      const versions = (g.versions ?? []).map((v) => v.version ?? '').filter(Boolean);
      const lists = await Promise.all(versions.map((v) => fetch(`/apis/${g.name}/${v}`)));
      const group: DiscoveredGroup = { versions, preferredVersion: g.preferredVersion?.version ?? versions[0], resources: {} };
      versions.forEach((v, i) => (group.resources[v] = parseResourceList(lists[i])));
      groups[g.name!] = group;
    }
  }
  return { format: CACHE_FORMAT, fetchedAt: now, server, groups };
}

/** A served resource of a discovered group with the version to use for it. */
export interface ServedResource extends DiscoveredResource {
  group: string;
  /** Highest-priority version that serves this resource. */
  preferredVersion: string;
  /** Every version serving it, most preferred first. */
  versions: string[];
}

/** Finds a resource (plural) of a group, with its served versions (v1beta1 before v1alpha1). */
export function servedResource(data: DiscoveryData, group: string, resource: string): ServedResource | undefined {
  const g = data.groups[group];
  if (!g) return undefined;
  const versions = Object.keys(g.resources)
    .filter((v) => g.resources[v]!.some((r) => r.resource === resource))
    .sort(compareVersionPriority);
  if (versions.length === 0) return undefined;
  const preferredVersion = versions[0]!;
  const entry = g.resources[preferredVersion]!.find((r) => r.resource === resource)!;
  return { ...entry, group, preferredVersion, versions };
}

// ---- disk cache ----

/** --cache-dir, else $KUBECACHEDIR, else ~/.kube/cache; undefined when there is no home. */
export function cacheRoot(flag: string | undefined, env: { KUBECACHEDIR?: string; HOME?: string }): string | undefined {
  if (flag) return flag;
  if (env.KUBECACHEDIR) return env.KUBECACHEDIR;
  let home = env.HOME;
  if (!home) {
    try {
      home = homedir();
    } catch {
      home = undefined;
    }
  }
  return home ? join(home, '.kube', 'cache') : undefined;
}

/** <root>/kruise-discovery/<host_port>.json; the name is safe for any server URL. */
export function cacheFile(root: string, server: string): string {
  const url = new URL(server);
  const key = `${url.hostname}_${url.port || (url.protocol === 'https:' ? '443' : '80')}${url.pathname.replace(/\/+$/, '')}`.replace(/[^A-Za-z0-9.-]/g, '_');
  return join(root, 'kruise-discovery', `${key}.json`);
}

export function readCache(file: string, server: string, now = Date.now(), ttlMs = DISCOVERY_TTL_MS): DiscoveryData | undefined {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as DiscoveryData;
    if (data.format !== CACHE_FORMAT || data.server !== server || typeof data.fetchedAt !== 'number') return undefined;
    if (now - data.fetchedAt > ttlMs || data.fetchedAt > now + 60_000) return undefined;
    return data;
  } catch {
    return undefined;
  }
}

/** Writes atomically (temp file + rename); failures are ignored: the cache is an optimisation. */
export function writeCache(file: string, data: DiscoveryData): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o750 });
    writeFileSync(tmp, JSON.stringify(data), { mode: 0o640 });
    renameSync(tmp, file);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      /* nothing written */
    }
  }
}

export function dropCache(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* absent or read-only */
  }
}

/** Discovery with the disk cache in front; `refresh()` bypasses the cache (stale types). */
export class Discovery {
  private data?: DiscoveryData;
  private pending?: Promise<DiscoveryData>;
  private fresh = false;

  constructor(
    private readonly fetch: DiscoveryFetch,
    private readonly server: string,
    private readonly file: string | undefined,
  ) {}

  async get(): Promise<DiscoveryData> {
    if (this.data) return this.data;
    if (this.file) {
      const cached = readCache(this.file, this.server);
      if (cached) return (this.data = cached);
    }
    return this.refresh();
  }

  /** Re-fetches unless this process already fetched fresh data. */
  async refresh(): Promise<DiscoveryData> {
    if (this.fresh && this.data) return this.data;
    this.pending ??= fetchDiscovery(this.fetch, this.server).then(
      (data) => {
        this.data = data;
        this.fresh = true;
        this.pending = undefined;
        if (this.file) writeCache(this.file, data);
        return data;
      },
      (err) => {
        this.pending = undefined;
        throw err;
      },
    );
    return this.pending;
  }

  /** Whether the data in hand came from the server during this process. */
  get isFresh(): boolean {
    return this.fresh;
  }

  invalidate(): void {
    if (this.file && !this.fresh) dropCache(this.file);
  }
}
