// -f files are read within a size limit and parsed one document at a time (issue #14 items 6
// and 7): each limit is reported naming the file, syntax errors with their line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManifestInputError, readManifestText, yamlDocuments } from '../../../src/lib/yaml-documents';
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

test('a syntax error names the file and the line; a bad document stops at that document', () => {
  const seen: unknown[] = [];
  assert.throws(
    () => {
      for (const d of yamlDocuments('a: 1\n---\nb: [1, 2\nc: 3\n', 'web.yaml')) seen.push(d.value);
    },
    (e: Error) => e instanceof ManifestInputError && /^error parsing web\.yaml line \d+: /.test(e.message) && !/:$/.test(e.message) && !e.message.includes(' at line '),
  );
  assert.deepEqual(seen, [{ a: 1 }]);
});

test('an alias bomb (test/fixtures/bad/alias-bomb.yaml) is refused naming the file, not expanded', () => {
  const file = join(REPO_ROOT, 'test/fixtures/bad/alias-bomb.yaml');
  const text = readManifestText(file, 'alias-bomb.yaml');
  const before = process.memoryUsage().heapUsed;
  assert.throws(() => [...yamlDocuments(text, 'alias-bomb.yaml')], /^ManifestInputError: error parsing alias-bomb\.yaml \(document 1\): too many aliases/);
  assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024, 'the aliases were not expanded');
  // A few aliases (anchors reused in a real manifest) are fine.
  assert.deepEqual([...yamlDocuments('x: &l {app: web}\ny: *l\n', 'ok.yaml')][0]!.value, { x: { app: 'web' }, y: { app: 'web' } });
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
