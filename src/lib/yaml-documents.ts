// The documents of a `-f` file. Read by js-yaml, which builds plain values straight from the text
// (no syntax tree: yaml's parseAllDocuments kept every document's tree alive, a 10 MB manifest cost
// ~290 MB and 6 s). Limits: the file size (MAX_MANIFEST_BYTES) and aliases (a "billion laughs"
// alias bomb), each reported naming the file.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { manifestReader } from './yaml';

/** Far above any real manifest (an object is at most ~1.5 MiB in etcd); bounds what a mistaken path costs. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
/**
 * Mappings and sequences that aliases may add to a document when it is written out in full;
 * beyond it the document is an alias bomb. Real manifests reuse an anchor a few dozen times.
 */
export const MAX_ALIAS_EXPANSION = 10_000;

/** Invalid input in a file: the caller turns it into its usage error (exit 2). */
export class ManifestInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestInputError';
  }
}

export function mebibytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

/** The text of a file or of stdin ("-"), refused past `limit` bytes without reading the rest. */
export function readManifestText(path: string, source: string, limit = MAX_MANIFEST_BYTES): string {
  const fd = path === '-' ? 0 : openSync(path, 'r');
  try {
    if (path !== '-') {
      const size = fstatSync(fd).size;
      if (size > limit) throw new ManifestInputError(`${source} is too large: ${mebibytes(size)} (the limit is ${mebibytes(limit)})`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        // stdin as a non-blocking pipe: no data yet; wait a little (synchronously) and read again.
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
          continue;
        }
        if ((e as NodeJS.ErrnoException).code === 'EOF') break;
        throw e;
      }
      if (n === 0) break;
      total += n;
      if (total > limit) throw new ManifestInputError(`${source} is too large: more than ${mebibytes(limit)} (the limit)`);
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    if (path !== '-') closeSync(fd);
  }
}

/**
 * A quoted scalar is built by concatenation, which V8 keeps as a tree of string pieces (a
 * 3,000-character annotation held ~90 KB). Reading a character makes V8 flatten each string in
 * place: a 10 MB manifest of such documents went from ~290 MB of heap to ~30 MB. An alias is the
 * same object as its anchor: each is visited once.
 */
function flattenStrings(value: unknown, seen = new Set<object>()): unknown {
  if (typeof value === 'string') {
    value.charCodeAt(0);
  } else if (value !== null && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const item of Array.isArray(value) ? value : Object.values(value)) flattenStrings(item, seen);
  }
  return value;
}

/**
 * How many mappings and sequences an alias-resolved value adds when written out in full (a
 * request body, -o yaml): the reader shares an anchor's object among its aliases, so an alias
 * bomb ("billion laughs") costs nothing until something walks it. Counted once per distinct
 * object; Infinity for a cycle.
 */
export function aliasExpansion(value: unknown): number {
  const expanded = new Map<object, number>();
  const open = new Set<object>();
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 0;
    const known = expanded.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) return Infinity;
    open.add(v);
    let n = 1;
    for (const item of Array.isArray(v) ? v : Object.values(v)) n += size(item);
    open.delete(v);
    expanded.set(v, n);
    return n;
  };
  return size(value) - expanded.size;
}

export interface ParsedDocument {
  /** The document's plain value (null for an empty document). */
  value: unknown;
  /** 1-based position in the file. */
  index: number;
}

/**
 * Each document of a multi-document YAML (or JSON) text as a plain value, read as YAML 1.2's core
 * schema (timestamps stay strings, as the API server receives them). Syntax errors and alias bombs
 * throw ManifestInputError naming `source` (and the line when known).
 */
export function* yamlDocuments(text: string, source: string): Generator<ParsedDocument> {
  const J = manifestReader();
  let docs: unknown[];
  try {
    docs = J.loadAll(text, undefined, { schema: J.CORE_SCHEMA });
  } catch (e) {
    if (!(e instanceof J.YAMLException)) throw e;
    const line = e.mark ? ` line ${e.mark.line + 1}` : '';
    throw new ManifestInputError(`error parsing ${source}${line}: ${e.reason}`);
  }
  for (let i = 0; i < docs.length; i++) {
    const value = docs[i];
    const expansion = aliasExpansion(value);
    if (expansion > MAX_ALIAS_EXPANSION) {
      throw new ManifestInputError(`error parsing ${source} (document ${i + 1}): too many aliases (they expand to more than ${MAX_ALIAS_EXPANSION} mappings and sequences: an alias bomb?)`);
    }
    docs[i] = undefined;
    // An alias is its anchor's very object: written out in full (bounded above), so that a change
    // to one place (set image --local) does not change the other, as with any YAML reader that copies.
    yield { value: flattenStrings(expansion > 0 ? JSON.parse(JSON.stringify(value)) : value), index: i + 1 };
  }
}
