// `rollout status --helm-release NAME`: the objects of the release's revision to gate (src/kube/helm-releases.ts),
// as if its rendered manifest were given with -f; objects without a namespace are in the release's.
import type { KubeClient } from '../../kube/client';
import { readHelmRelease } from '../../kube/helm-releases';
import { usageError } from '../../cli/exit';
import { ManifestInputError, yamlDocuments } from '../../lib/yaml-documents';
import { validateName } from '../../kube/targets';
import type { KubeObject } from '../../kube/client';
import type { TargetRefs } from './targets';

export async function helmReleaseTargets(client: KubeClient, name: string, signal: AbortSignal): Promise<{ refs: TargetRefs; subject: string }> {
  validateName(name, 'helm release name');
  const release = await readHelmRelease(client, name, client.namespace, signal);
  const source = `helm release ${release.name} (revision ${release.version}, ${release.status})`;
  const specs: TargetRefs['specs'] = [];
  try {
    for (const { value } of yamlDocuments(release.manifest, source)) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      const object = value as KubeObject;
      if (typeof object.kind !== 'string' || typeof object.metadata?.name !== 'string') continue;
      specs.push({ kind: 'object', object: { ...object, metadata: { ...object.metadata, namespace: object.metadata.namespace ?? release.namespace } }, source });
    }
  } catch (err) {
    throw err instanceof ManifestInputError ? usageError(err.message) : err;
  }
  return { refs: { specs }, subject: source };
}
