// -o kyaml (KEP-5295): what it prints parses as YAML and equals the object, under both YAML versions
// kubectl's readers use; strings are always quoted, keys only where a reader could misread them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { kyamlDocument } from '../../../src/printers/kyaml';

const fixture = parseAllDocuments(readFileSync(join(import.meta.dirname, '../../fixtures/release/v1/shop.yaml'), 'utf8')).map((d) => d.toJS());

test('every object of a real manifest round-trips through KYAML (YAML 1.1 and 1.2 readers)', () => {
  for (const obj of fixture) {
    const text = kyamlDocument(obj);
    assert.ok(text.startsWith('---\n{\n'), text.slice(0, 20));
    assert.deepEqual(parse(text, { version: '1.2' }), obj);
    assert.deepEqual(parse(text, { version: '1.1' }), obj);
  }
});

test('the traps KYAML exists for: strings that look like booleans, numbers or null stay strings; keys like "no" are quoted; odd characters survive', () => {
  const tricky = {
    metadata: { labels: { on: 'yes', no: 'off', 'app.kubernetes.io/name': 'web', '1a': 'b', 'has space': 'c' }, annotations: { note: 'line1\nline2\t"q"', ls: 'a\u2028b\u0085c', empty: '' } },
    spec: { replicas: 3, paused: false, version: '1.10', nothing: null, list: ['true', 1, ['x'], {}, []], containers: [{ name: 'app', ports: [{ containerPort: 80 }] }, { name: 'side' }] },
  };
  const text = kyamlDocument(tricky);
  for (const version of ['1.1', '1.2'] as const) assert.deepEqual(parse(text, { version }), tricky, version);
  assert.match(text, /\n {6}"on": "yes",\n {6}"no": "off",\n {6}app\.kubernetes\.io\/name: "web",\n {6}"1a": "b",/);
  assert.match(text, /\n {4}version: "1\.10",\n/);
  // A list of maps is cuddled, as in the Kubernetes documentation's example.
  assert.match(text, /containers: \[\{\n {6}name: "app",\n[\s\S]*?\n {4}\}, \{\n {6}name: "side",\n {4}\}\],/);
  assert.equal(kyamlDocument([]), '---\n[]\n');
  assert.equal(kyamlDocument({}), '---\n{}\n');
});
