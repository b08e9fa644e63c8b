// The Kruise objects of every YAML fixture of the repository (lists unpacked), for the tests that
// judge generated health checks (Lua, CEL) against our gate.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/kruise/types';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures');

function walk(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : /\.ya?ml$/.test(n) ? [p] : [];
  });
}

export function fixtureObjects(kind: string, group: string): Array<{ where: string; obj: KubeObject }> {
  const out: Array<{ where: string; obj: KubeObject }> = [];
  for (const file of walk(FIXTURES)) {
    let docs;
    try {
      docs = parseAllDocuments(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    if (!Array.isArray(docs)) continue;
    docs.forEach((doc, i) => {
      let value: unknown;
      try {
        value = doc.toJS();
      } catch {
        return;
      }
      const items = (value as { kind?: string; items?: unknown[] } | null)?.kind === 'List' ? ((value as { items: unknown[] }).items ?? []) : [value];
      for (const o of items) {
        const obj = o as KubeObject | null;
        if (obj?.kind === kind && typeof obj.apiVersion === 'string' && obj.apiVersion.startsWith(`${group}/`) && obj.metadata) {
          out.push({ where: `${relative(FIXTURES, file)}#${i}`, obj });
        }
      }
    });
  }
  return out;
}

