// A Helm release Secret built exactly as Helm writes it (helm/helm, v3.19 and main alike):
// - pkg/storage/driver/secrets.go newSecretsObject: name `sh.helm.release.v1.<name>.v<version>` (makeKey),
//   type `helm.sh/release.v1`, labels name, owner=helm, status, version (plus the release's own labels),
//   data {"release": <encodeRelease>}.
// - pkg/storage/driver/util.go encodeRelease: json.Marshal(release), gzip at gzip.BestCompression (9),
//   base64.StdEncoding. In a Secret object sent to the API, data values are base64 once more.
// - pkg/release/v1/release.go, info.go, chart metadata: the JSON field names used below.
import { gzipSync } from 'node:zlib';

export interface HelmReleaseSpec {
  name: string;
  namespace: string;
  version: number;
  status: 'deployed' | 'superseded' | 'failed' | 'pending-install' | 'pending-upgrade' | 'pending-rollback' | 'uninstalled' | 'uninstalling' | 'unknown';
  manifest: string;
  chart?: { name: string; version: string; appVersion?: string };
  /** Store the JSON without gzip, as Helm 3 before compression did (decodeRelease still reads it). */
  uncompressed?: boolean;
}

/** encodeRelease: the string Helm stores in data["release"]. */
export function encodeRelease(r: HelmReleaseSpec): string {
  const json = JSON.stringify({
    name: r.name,
    info: { first_deployed: '2026-11-28T10:00:00Z', last_deployed: '2026-11-28T10:00:00Z', deleted: '', description: r.status === 'deployed' ? 'Upgrade complete' : `Release ${r.status}`, status: r.status },
    chart: { metadata: { name: r.chart?.name ?? r.name, version: r.chart?.version ?? '0.1.0', appVersion: r.chart?.appVersion ?? '1.0.0', apiVersion: 'v2' } },
    config: { image: { tag: 'secret-looking-value' } },
    manifest: r.manifest,
    version: r.version,
    namespace: r.namespace,
  });
  const bytes = r.uncompressed ? Buffer.from(json) : gzipSync(Buffer.from(json), { level: 9 });
  return bytes.toString('base64');
}

/** newSecretsObject, as the API object (data base64 once more). */
export function helmReleaseSecret(r: HelmReleaseSpec): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `sh.helm.release.v1.${r.name}.v${r.version}`, namespace: r.namespace, labels: { name: r.name, owner: 'helm', status: r.status, version: String(r.version) } },
    type: 'helm.sh/release.v1',
    data: { release: Buffer.from(encodeRelease(r)).toString('base64') },
  };
}
