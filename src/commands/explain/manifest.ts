// Reads workload manifests for `explain partition -f` (YAML or JSON, multi-document, "-" = stdin).
// Loaded lazily: the yaml parser is only needed with -f (preloaded by lazy.ts). Values keep their YAML types, so a
// quoted "99" stays a string, exactly as the API server would see it.
import { readFile } from 'node:fs/promises';
import { yamlLib } from '../../lib/yaml';
import { usageError } from '../../cli/exit';
import type { KubeObject } from '../../kruise/types';

export async function readManifest(file: string): Promise<KubeObject[]> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (e) {
    throw usageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const objects: KubeObject[] = [];
  for (const doc of yamlLib().parseAllDocuments(text)) {
    if (doc.errors.length) throw usageError(`${file}: ${doc.errors[0]!.message.split('\n')[0]}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw usageError(`${file}: expected Kubernetes objects`);
    const obj = value as KubeObject;
    if (obj.kind === 'List' && Array.isArray(obj.items)) objects.push(...(obj.items as KubeObject[]));
    else objects.push({ ...obj, metadata: obj.metadata ?? {} });
  }
  if (objects.length === 0) throw usageError(`${file}: no objects found`);
  return objects;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
