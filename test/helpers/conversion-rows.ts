// The rows of Kruise's conversion tests, ported to test/fixtures/conversion/*.yaml (one file per kind),
// read for the unit test of src/kruise/conversion and the sandbox round trips through real kubectl.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/kruise/types';
import { REPO_ROOT } from './cli';

export type Direction = 'to-v1beta1' | 'to-v1alpha1' | 'round-trip';

export interface ConversionRow {
  group: string;
  kind: string;
  /** Upstream file and test function, e.g. "apis/apps/v1alpha1/conversion_test.go TestCloneSet_ConvertTo". */
  source: string;
  test: string;
  name: string;
  direction: Direction;
  /** The object each version holds (a ConvertTo row: input v1alpha1, expected v1beta1; ConvertFrom the other way). */
  v1alpha1?: KubeObject;
  v1beta1?: KubeObject;
  /** Round trips: the v1alpha1 object read back, when it is not the original. */
  back?: KubeObject;
  /** The conversion must fail with this message (a regular expression). */
  error?: string;
}

interface RowFile {
  group: string;
  kind: string;
  source: string;
  rows: Array<Omit<ConversionRow, 'group' | 'kind' | 'source' | 'direction'> & { source?: string }>;
}

export const CONVERSION_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'conversion');

function withType(obj: unknown, group: string, version: string, kind: string): KubeObject | undefined {
  if (obj === undefined) return undefined;
  return { apiVersion: `${group}/${version}`, kind, ...(structuredClone(obj) as KubeObject) };
}

function directionOf(test: string): Direction {
  if (/RoundTrip/.test(test)) return 'round-trip';
  if (/ConvertFrom|FromV1beta1/.test(test)) return 'to-v1alpha1';
  return 'to-v1beta1';
}

/** Every ported row, each object with its apiVersion and kind, fresh copies on every call. */
export function conversionRows(): ConversionRow[] {
  const out: ConversionRow[] = [];
  for (const file of readdirSync(CONVERSION_FIXTURES).filter((f) => f.endsWith('.yaml')).sort()) {
    const doc = parse(readFileSync(join(CONVERSION_FIXTURES, file), 'utf8'), { maxAliasCount: -1, merge: true }) as RowFile;
    for (const row of doc.rows) {
      out.push({
        group: doc.group,
        kind: doc.kind,
        source: row.source ?? doc.source,
        test: row.test,
        name: row.name,
        direction: directionOf(row.test),
        v1alpha1: withType(row.v1alpha1, doc.group, 'v1alpha1', doc.kind),
        v1beta1: withType(row.v1beta1, doc.group, 'v1beta1', doc.kind),
        back: withType(row.back, doc.group, 'v1alpha1', doc.kind),
        ...(row.error ? { error: row.error } : {}),
      });
    }
  }
  return out;
}
