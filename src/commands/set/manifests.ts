// Reads the objects of `-f FILE` (YAML or JSON, multi-document, `List` kinds, a
// folder's *.yaml/*.yml/*.json, `-` for stdin). No cluster code: --local relies on it.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ManifestInputError, readManifestText, yamlDocuments } from '../../lib/yaml-documents';
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

/** The files of one -f argument (a folder's *.yaml/*.yml/*.json, in order). */
function sourcesOf(path: string): Array<{ path: string; source: string }> {
  if (path === '-') return [{ path, source: 'stdin' }];
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
      .map((f) => ({ path: join(path, f), source: join(path, f) }));
  }
  return [{ path, source: path }];
}

function readText(path: string, source: string): string {
  try {
    return readManifestText(path, source);
  } catch (e) {
    if (e instanceof ManifestInputError) throw usageError(e.message);
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
    for (const { path: file, source } of sourcesOf(path)) {
      try {
        for (const doc of yamlDocuments(readText(file, source), source)) collect(doc.value, source, out);
      } catch (e) {
        throw e instanceof ManifestInputError ? usageError(e.message) : e;
      }
    }
  }
  if (out.length === 0) throw usageError(`no objects passed to ${verb} (the files hold no Kubernetes object)`);
  return out;
}
