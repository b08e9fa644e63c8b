// The documents of a `-f` file, one at a time. yaml's parseAllDocuments keeps every document's
// syntax tree alive until the last one is composed (a 10 MB manifest cost ~290 MB and 6 s); here
// the parser and composer run as a stream, so only the plain values survive. Limits: the file size
// (MAX_MANIFEST_BYTES) and aliases (a "billion laughs" alias bomb), each reported naming the file.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type * as YAML from 'yaml';
import { yamlErrorLine, yamlLib } from './yaml';

/** Far above any real manifest (an object is at most ~1.5 MiB in etcd); bounds what a mistaken path costs. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
/** Aliases resolved per document (yaml's default); beyond it the document is an alias bomb. */
export const MAX_ALIAS_COUNT = 100;

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
 * yaml builds a quoted scalar by concatenation, which V8 keeps as a tree of string pieces (a
 * 3,000-character annotation held ~90 KB). Reading a character makes V8 flatten each string in
 * place: a 10 MB manifest of such documents went from ~290 MB of heap to ~30 MB.
 */
function flattenStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    value.charCodeAt(0);
  } else if (Array.isArray(value)) {
    for (const item of value) flattenStrings(item);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) flattenStrings(item);
  }
  return value;
}

export interface ParsedDocument {
  /** The document's plain value (null for an empty document). */
  value: unknown;
  /** 1-based position in the file. */
  index: number;
}

/**
 * Each document of a multi-document YAML (or JSON) text as a plain value. Syntax errors and alias
 * bombs throw ManifestInputError naming `source` (and the line when known).
 */
export function* yamlDocuments(text: string, source: string): Generator<ParsedDocument> {
  const Y = yamlLib();
  const lines = new Y.LineCounter();
  const parser = new Y.Parser(lines.addNewLine);
  const composer = new Y.Composer();
  let index = 0;
  const convert = (doc: YAML.Document.Parsed): ParsedDocument => {
    index++;
    const err = doc.errors[0];
    if (err) {
      const line = lines.linePos(err.pos[0]).line;
      throw new ManifestInputError(`error parsing ${source} line ${line}: ${yamlErrorLine(err).message}`);
    }
    try {
      return { value: flattenStrings(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })), index };
    } catch (e) {
      // yaml: "Excessive alias count indicates a resource exhaustion attack".
      const what = /alias/i.test((e as Error).message) ? `too many aliases (more than ${MAX_ALIAS_COUNT} expansions: an alias bomb?)` : (e as Error).message;
      throw new ManifestInputError(`error parsing ${source} (document ${index}): ${what}`);
    }
  };
  for (const doc of composer.compose(parser.parse(text))) yield convert(doc);
  for (const doc of composer.end()) yield convert(doc);
}
