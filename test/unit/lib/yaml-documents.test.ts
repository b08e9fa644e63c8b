// -f files are read within a size limit and parsed one document at a time (issue #14 items 6
// and 7): each limit is reported naming the file, syntax errors with their line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aliasExpansion, ManifestInputError, readManifestText, yamlDocuments } from '../../../src/lib/yaml-documents';
import { REPO_ROOT } from '../../helpers/cli';

const dir = mkdtempSync(join(tmpdir(), 'kk-yaml-docs-'));

test('a file above the limit is refused from its size, naming it, before reading it', () => {
  const file = join(dir, 'big.yaml');
  writeFileSync(file, 'x'.repeat(3 * 1024 * 1024));
  assert.throws(() => readManifestText(file, file, 2 * 1024 * 1024), (e: Error) => e instanceof ManifestInputError && e.message === `${file} is too large: 3 MiB (the limit is 2 MiB)`);
  assert.equal(readManifestText(file, file, 4 * 1024 * 1024).length, 3 * 1024 * 1024);
});

test('documents come one at a time with their position; empty documents are null', () => {
  const docs = [...yamlDocuments('a: 1\n---\n---\n{"b": [2]}\n', 'x.yaml')];
  assert.deepEqual(docs, [
    { value: { a: 1 }, index: 1 },
    { value: null, index: 2 },
    { value: { b: [2] }, index: 3 },
  ]);
  // Values keep their YAML types: a quoted "99" is a string (what the API server sees).
  assert.deepEqual([...yamlDocuments('partition: "99"\nreplicas: 99\n', 'x.yaml')][0]!.value, { partition: '99', replicas: 99 });
});

test('a syntax error names the file and the line; no document of a file with one is handed out', () => {
  const seen: unknown[] = [];
  assert.throws(
    () => {
      for (const d of yamlDocuments('a: 1\n---\nb: [1, 2\nc: 3\n', 'web.yaml')) seen.push(d.value);
    },
    (e: Error) => e instanceof ManifestInputError && e.message === 'error parsing web.yaml line 4: missed comma between flow collection entries',
  );
  assert.deepEqual(seen, []);
});

test('YAML 1.2 core schema, as the API server receives JSON: timestamps and "yes" stay strings, 0o14 is octal, duplicate keys refused', () => {
  const [doc] = [...yamlDocuments('t: 2024-01-01T00:00:00Z\ny: yes\no: 0o14\nn: ~\nf: 1.5\n', 'x.yaml')];
  assert.deepEqual(doc!.value, { t: '2024-01-01T00:00:00Z', y: 'yes', o: 12, n: null, f: 1.5 });
  assert.throws(() => [...yamlDocuments('a: 1\na: 2\n', 'dup.yaml')], /^ManifestInputError: error parsing dup\.yaml line 2: duplicated mapping key$/);
});

test('an alias bomb (test/fixtures/bad/alias-bomb.yaml) is refused naming the file, not expanded', () => {
  const file = join(REPO_ROOT, 'test/fixtures/bad/alias-bomb.yaml');
  const text = readManifestText(file, 'alias-bomb.yaml');
  const before = process.memoryUsage().heapUsed;
  assert.throws(() => [...yamlDocuments(text, 'alias-bomb.yaml')], /^ManifestInputError: error parsing alias-bomb\.yaml \(document 1\): too many aliases/);
  assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024, 'the aliases were not expanded');
  // A few aliases (anchors reused in a real manifest) are fine, each a copy of its own.
  const v = [...yamlDocuments('x: &l {app: web}\ny: *l\n', 'ok.yaml')][0]!.value as Record<string, Record<string, string>>;
  assert.deepEqual(v, { x: { app: 'web' }, y: { app: 'web' } });
  v.y!.app = 'api';
  assert.equal(v.x!.app, 'web', 'changing the alias leaves its anchor alone');
  // An anchor of nested mappings reused 50 times adds 50 × 3 mappings: far from a bomb.
  const reuse = `base: &b {metadata: {labels: {app: web}}, spec: {replicas: 1}}\nitems:\n${'  - *b\n'.repeat(50)}`;
  assert.equal(([...yamlDocuments(reuse, 'reuse.yaml')][0]!.value as { items: unknown[] }).items.length, 50);
});

test('aliasExpansion counts what aliases add when written out in full, each object once', () => {
  assert.equal(aliasExpansion({ a: { b: 1 } }), 0);
  const shared = { app: 'web' };
  assert.equal(aliasExpansion({ x: shared, y: shared, z: shared }), 2);
  // a billion laughs of 9 levels of 9: 9^9 copies, counted in 10 steps
  let level: unknown = ['lol'];
  for (let i = 0; i < 9; i++) level = Array.from({ length: 9 }, () => level);
  assert.ok(aliasExpansion(level) > 300_000_000);
});

test('quoted strings are kept flat: 600 documents with a 3,000-character annotation retain a few MB, not ~60', async () => {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const doc = (i: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-${i}\n  annotations:\n    note: "${'x'.repeat(3000)}"\n`;
  const text = Array.from({ length: 600 }, (_, i) => doc(i)).join('---\n');
  gc();
  const before = process.memoryUsage().heapUsed;
  const values = [...yamlDocuments(text, 'many.yaml')].map((d) => d.value);
  gc();
  const retained = process.memoryUsage().heapUsed - before;
  assert.equal(values.length, 600);
  // Flat: 600 × 3 KB ≈ 2 MB of text; as trees of string pieces it was ≈ 55 MB.
  assert.ok(retained < 16 * 1024 * 1024, `retained ${Math.round(retained / 1048576)} MB`);
});
