// Helm releases as Helm 3 and 4 store them, pure: a release Secret (the default "secret" storage driver)
// decoded into the release's name, revision, status and rendered manifest, and the revision a gate
// follows. Facts from helm/helm (v3.19 and main, which writes the same format):
// - pkg/storage/driver/secrets.go newSecretsObject: Secret `sh.helm.release.v1.NAME.vN` of type
//   `helm.sh/release.v1`, labels owner=helm, name, status, version; the release in data["release"].
// - pkg/storage/driver/util.go encodeRelease/decodeRelease: JSON of the release, gzipped (BestCompression),
//   base64 (StdEncoding); a body without the gzip magic (1f 8b 08) is the JSON itself (releases stored
//   before compression). The API serves a Secret's data base64 again: two decodings.
// - pkg/release/v1/release.go and info.go: `name`, `namespace`, `version`, `manifest`, `info.status`,
//   `info.description`, `chart.metadata.{name,version,appVersion}`.
// - pkg/release/common/status.go: unknown, deployed, uninstalled, superseded, failed, uninstalling,
//   pending-install, pending-upgrade, pending-rollback.
import { gunzipSync } from 'node:zlib';

export const HELM_RELEASE_SECRET_TYPE = 'helm.sh/release.v1';
export const HELM_SECRET_PREFIX = 'sh.helm.release.v1.';

export interface HelmRelease {
  name: string;
  namespace: string;
  version: number;
  status: string;
  description?: string;
  chart?: { name?: string; version?: string; appVersion?: string };
  manifest: string;
}

export class HelmReleaseError extends Error {}

const GZIP_MAGIC = [0x1f, 0x8b, 0x08];

/** The release in a Secret's `data.release` as the API serves it (base64 of Helm's base64 of gzipped JSON). */
export function decodeHelmRelease(apiData: string, what: string): HelmRelease {
  let bytes: Buffer;
  try {
    bytes = Buffer.from(Buffer.from(apiData, 'base64').toString('latin1'), 'base64');
    if (bytes.length > 3 && GZIP_MAGIC.every((b, i) => bytes[i] === b)) bytes = gunzipSync(bytes);
  } catch (err) {
    throw new HelmReleaseError(`${what}: data.release is not a Helm release (${(err as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HelmReleaseError(`${what}: data.release is not a Helm release (not JSON after base64 and gzip)`);
  }
  const r = raw as { name?: unknown; namespace?: unknown; version?: unknown; manifest?: unknown; info?: { status?: unknown; description?: unknown }; chart?: { metadata?: { name?: unknown; version?: unknown; appVersion?: unknown } } };
  if (typeof r !== 'object' || r === null || typeof r.name !== 'string') throw new HelmReleaseError(`${what}: data.release has no release name`);
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const meta = r.chart?.metadata;
  return {
    name: r.name,
    namespace: str(r.namespace) ?? '',
    version: typeof r.version === 'number' ? r.version : 0,
    status: str(r.info?.status) ?? 'unknown',
    ...(str(r.info?.description) ? { description: str(r.info?.description) } : {}),
    ...(meta ? { chart: { name: str(meta.name), version: str(meta.version), appVersion: str(meta.appVersion) } } : {}),
    manifest: typeof r.manifest === 'string' ? r.manifest : '',
  };
}

/** A stored revision as its Secret's labels say (no data read). */
export interface HelmRevision {
  secret: string;
  version: number;
  status: string;
}

const GATED = new Set(['deployed', 'pending-install', 'pending-upgrade', 'pending-rollback']);

/**
 * The revision a gate follows: the newest one, when it is deployed or pending (being installed,
 * upgraded or rolled back: what the gate waits for). A newest revision that failed or was uninstalled
 * has nothing to wait for: an error naming it. Superseded revisions are history, never followed.
 */
export function revisionToGate(name: string, namespace: string, revisions: readonly HelmRevision[]): HelmRevision {
  const live = revisions.filter((r) => r.status !== 'superseded').sort((a, b) => b.version - a.version);
  const newest = live[0];
  if (!newest) {
    if (revisions.length > 0) throw new HelmReleaseError(`helm release "${name}" in namespace "${namespace}" has only superseded revisions (${revisions.map((r) => r.version).sort((a, b) => a - b).join(', ')}): nothing deployed to wait for`);
    throw new HelmReleaseError(`helm release "${name}" not found in namespace "${namespace}" (no Secret labelled owner=helm,name=${name})`);
  }
  if (GATED.has(newest.status)) return newest;
  throw new HelmReleaseError(`helm release "${name}" in namespace "${namespace}": its latest revision ${newest.version} is ${newest.status}, not deployed or pending: nothing to wait for`);
}
