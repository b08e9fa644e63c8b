// Reads the objects of `-f FILE` (YAML or JSON, multi-document, `List` kinds, a
// folder's *.yaml/*.yml/*.json, `-` for stdin). No cluster code: --local relies on it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { yamlLib } from '../../lib/yaml';
import { usageError } from '../../cli/exit';
import type { KubeObject } from '../../kruise/types';

export interface ManifestObject {
  object: KubeObject;
  /** Where it came from, for messages ("web.yaml"). */
  source: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readSource(path: string): Array<{ text: string; source: string }> {
  if (path === '-') return [{ text: readFileSync(0, 'utf8'), source: 'stdin' }];
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw usageError(`the path "${path}" does not exist`);
  }
  if (stat.isDirectory()) {
    return readdirSync(path)
      .filter((f) => /\.(ya?ml|json)$/i.test(f))
      .sort()
      .map((f) => ({ text: readFileSync(join(path, f), 'utf8'), source: join(path, f) }));
  }
  try {
    return [{ text: readFileSync(path, 'utf8'), source: path }];
  } catch (e) {
    throw usageError(`cannot read "${path}": ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function collect(value: unknown, source: string, out: ManifestObject[]): void {
  if (value === null || value === undefined) return;
  if (!isRecord(value)) throw usageError(`error parsing ${source}: a document is not an object`);
  if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
    for (const item of value.items) collect(item, source, out);
    return;
  }
  const meta = value.metadata;
  if (typeof value.kind !== 'string' || typeof value.apiVersion !== 'string' || !isRecord(meta) || typeof meta.name !== 'string' || meta.name === '') {
    throw usageError(`error parsing ${source}: every object needs apiVersion, kind and metadata.name`);
  }
  out.push({ object: value as KubeObject, source });
}

/** Every object of the given files; malformed YAML/JSON or no object at all is invalid input (exit 2). */
export function readManifests(paths: readonly string[], verb: string): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const path of paths) {
    for (const { text, source } of readSource(path)) {
      for (const doc of yamlLib().parseAllDocuments(text)) {
        if (doc.errors.length > 0) {
          const first = doc.errors[0]!;
          throw usageError(`error parsing ${source}: ${first.message.split('\n')[0]}`);
        }
        collect(doc.toJS(), source, out);
      }
    }
  }
  if (out.length === 0) throw usageError(`no objects passed to ${verb} (the files hold no Kubernetes object)`);
  return out;
}
