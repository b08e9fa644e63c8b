// The release a Helm release Secret holds, read with the least of the Secrets: one list of the
// release's Secrets by Helm's labels, kept to their names and labels as the list is read (no other
// release data stays in memory), then one GET of the revision to gate. Secret data is never printed:
// request logs hide Secret bodies (redact.ts), and errors name the Secret, never its content.
import type { KubeClient, KubeObject, ResourceType } from './client';
import { isForbidden, isNotFound } from './errors';
import { failure } from '../cli/exit';
import { decodeHelmRelease, HelmReleaseError, revisionToGate, type HelmRelease, type HelmRevision } from '../helm/release';

const SECRETS: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };

export async function readHelmRelease(client: KubeClient, name: string, namespace: string, signal?: AbortSignal): Promise<HelmRelease> {
  try {
    const list = await client.list(SECRETS, namespace, {
      labelSelector: `owner=helm,name=${name}`,
      signal,
      mapItem: (s) => ({ metadata: { name: s.metadata.name, labels: s.metadata.labels } }) as KubeObject,
    });
    const revisions: HelmRevision[] = list.items.map((s) => ({ secret: s.metadata.name ?? '', version: Number(s.metadata.labels?.version ?? 0), status: s.metadata.labels?.status ?? 'unknown' }));
    const pick = revisionToGate(name, namespace, revisions);
    const secret = await client.get(SECRETS, pick.secret, namespace, { signal });
    const data = (secret as { data?: Record<string, string> }).data?.release;
    if (!data) throw new HelmReleaseError(`secret "${pick.secret}" in namespace "${namespace}" holds no data.release: not a Helm release`);
    const release = decodeHelmRelease(data, `secret "${pick.secret}" in namespace "${namespace}"`);
    return { ...release, namespace: release.namespace || namespace };
  } catch (err) {
    if (err instanceof HelmReleaseError) throw failure(err.message);
    if (isForbidden(err)) throw failure(`cannot read helm release "${name}": ${(err as Error).message}`, 'hint: --helm-release reads the release\'s Secrets (list and get secrets in its namespace), as helm status does');
    if (isNotFound(err)) throw failure(`helm release "${name}": ${(err as Error).message}`);
    throw err;
  }
}
