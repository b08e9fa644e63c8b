// Fixtures of test/fixtures/budgets (Kruise's own test objects as YAML) and copies to vary per row.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

export const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'budgets');

export function loadBudgetFixture(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(join(FIXTURES, file), 'utf8')).map((d) => d.toJSON() as KubeObject);
}

/** A deep copy of the fixture's object of `kind` (the first, or the one named). */
export function fixtureObject<T extends KubeObject = KubeObject>(file: string, kind: string, name?: string): T {
  const obj = loadBudgetFixture(file).find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!obj) throw new Error(`${file}: no ${kind}${name ? ` ${name}` : ''}`);
  return structuredClone(obj) as T;
}

export function podCopy(file: string, name: string, edit?: (p: Pod) => void): Pod {
  const pod = fixtureObject<Pod>(file, 'Pod');
  pod.metadata.name = name;
  edit?.(pod);
  return pod;
}

/** metav1.Time as written in status maps: to the second. */
export function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
