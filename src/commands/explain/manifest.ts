// Reads workload manifests for `explain partition -f` (YAML or JSON, multi-document, "-" = stdin).
// Loaded lazily: the yaml parser is only needed with -f (preloaded by lazy.ts). Values keep their YAML types, so a
// quoted "99" stays a string, exactly as the API server would see it.
import { ManifestInputError, readManifestText, yamlDocuments } from '../../lib/yaml-documents';
import { usageError } from '../../cli/exit';
import type { KubeObject } from '../../kruise/types';

export async function readManifest(file: string): Promise<KubeObject[]> {
  let text: string;
  try {
    text = readManifestText(file, file === '-' ? 'stdin' : file);
  } catch (e) {
    if (e instanceof ManifestInputError) throw usageError(e.message);
    throw usageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const objects: KubeObject[] = [];
  try {
    for (const { value } of yamlDocuments(text, file)) {
      if (value === null || value === undefined) continue;
      if (typeof value !== 'object' || Array.isArray(value)) throw usageError(`${file}: expected Kubernetes objects`);
      const obj = value as KubeObject;
      if (obj.kind === 'List' && Array.isArray(obj.items)) objects.push(...(obj.items as KubeObject[]));
      else objects.push({ ...obj, metadata: obj.metadata ?? {} });
    }
  } catch (e) {
    throw e instanceof ManifestInputError ? usageError(e.message) : e;
  }
  if (objects.length === 0) throw usageError(`${file}: no objects found`);
  return objects;
}
