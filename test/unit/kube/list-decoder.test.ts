import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListDecoder, scanValue } from '../../../src/kube/list-decoder';
import { BodyDecodeError } from '../../../src/kube/http';
import type { KubeObject } from '../../../src/kube/client';

const pod = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] }, ...extra });

/** The list decoded from `text` cut into chunks at `cuts` (byte offsets). */
function decode(text: string, cuts: number[] = [], mapItem: (o: KubeObject) => KubeObject | undefined = (o) => o) {
  const bytes = Buffer.from(text, 'utf8');
  const d = new ListDecoder(mapItem);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    d.write(bytes.subarray(at, cut));
    at = cut;
  }
  return d.end();
}

// Strings that make a scanner stumble: escaped quotes and backslashes, brackets and braces in
// text, multi-byte UTF-8 (cut in the middle by some chunkings), a key named like the array.
const tricky = {
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'tok"en\\', items: ['not', 'these'] },
  items: [
    pod('a', { metadata: { name: 'a', annotations: { note: 'say "hi" \\ } ] { [ ,', 'x\\': '\\"' } } }),
    pod('b', { status: { message: 'Größe → 5 😀', n: [1, 2.5e3, -0, true, false, null, [[], {}]] } }),
    pod('c'),
  ],
};

test('a list cut anywhere decodes as JSON.parse reads it whole', () => {
  const text = JSON.stringify(tricky);
  const whole = JSON.parse(text) as unknown;
  for (let cut = 0; cut <= Buffer.byteLength(text); cut++) assert.deepEqual(decode(text, [cut]), whole, `cut at ${cut}`);
  // Every byte a chunk of its own.
  const bytes = Buffer.byteLength(text);
  assert.deepEqual(decode(text, Array.from({ length: bytes }, (_, i) => i)), whole);
  // Whitespace between the tokens, and the items before the metadata.
  const spaced = ` {\n "items" : [ ${JSON.stringify(pod('a'))} ,\n\t${JSON.stringify(pod('b'))} ] , "kind":"PodList","metadata":{"resourceVersion":"7"} }\n`;
  for (let cut = 0; cut <= spaced.length; cut += 7) assert.deepEqual(decode(spaced, [cut]), JSON.parse(spaced));
});

test('items that are not objects, an empty list, a list without items, items spelt with an escape', () => {
  assert.deepEqual(decode('{"items":["s\\"1",12,-3.5e2,true,null,[1,[2]]],"x":1}', [], (o) => o ?? ({ metadata: { name: 'null' } } as KubeObject)), {
    items: ['s"1', 12, -350, true, { metadata: { name: 'null' } }, [1, [2]]],
    x: 1,
  });
  assert.deepEqual(decode('{"kind":"PodList","items":[],"metadata":{}}'), { kind: 'PodList', items: [], metadata: {} });
  assert.deepEqual(decode('{"kind":"Status","metadata":{}}'), { kind: 'Status', metadata: {}, items: [] });
  assert.deepEqual(decode('{"kind":"PodList","items":null}'), { kind: 'PodList', items: [] });
  // Found by JSON.parse with the envelope instead of by the scan: mapped all the same.
  assert.deepEqual(decode('{"it\\u0065ms":[{"metadata":{"name":"a"}}]}', [], (o) => ({ metadata: { name: `mapped ${o.metadata.name}` } })), { items: [{ metadata: { name: 'mapped a' } }] });
});

test('each item is mapped as soon as its last byte arrives, and left out when mapItem says undefined', () => {
  const text = JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '9' }, items: [pod('a'), pod('b'), pod('c')] });
  const seen: string[] = [];
  const d = new ListDecoder((o) => {
    seen.push(o.metadata.name!);
    return o.metadata.name === 'b' ? undefined : { metadata: { name: o.metadata.name } };
  });
  const bytes = Buffer.from(text);
  const endOfA = text.indexOf(JSON.stringify(pod('a'))) + JSON.stringify(pod('a')).length;
  d.write(bytes.subarray(0, endOfA - 1));
  assert.deepEqual(seen, [], 'not before its closing brace');
  d.write(bytes.subarray(endOfA - 1, endOfA));
  assert.deepEqual(seen, ['a'], 'while the rest of the page has not arrived');
  d.write(bytes.subarray(endOfA));
  assert.deepEqual(d.end(), { kind: 'PodList', metadata: { resourceVersion: '9' }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'c' } }] });
  assert.deepEqual(seen, ['a', 'b', 'c']);
});

test('a body that is not a list is a BodyDecodeError naming its start', () => {
  for (const bad of ['<html><body>proxy error</body></html>', '{"items":[{"a":1},{"b":]}', '{"items":[{"a":1}', '{"kind":"PodList"', '[1,2]', '']) {
    assert.throws(() => decode(bad, [3]), (err: unknown) => err instanceof BodyDecodeError && err.start === bad.slice(0, 40) && err.bytes === Buffer.byteLength(bad), bad);
  }
});

test('scanValue: the end of one JSON value, or -1 with the scan carried to the next chunk', () => {
  const st = { depth: 0, inString: false, escaped: false };
  assert.equal(scanValue(Buffer.from('{"a":"}\\""},'), 0, st), 11);
  assert.equal(scanValue(Buffer.from('12.5]'), 0, { depth: 0, inString: false, escaped: false }), 4);
  assert.equal(scanValue(Buffer.from('{"a":"x\\'), 0, st), -1);
  assert.deepEqual(st, { depth: 1, inString: true, escaped: true });
  assert.equal(scanValue(Buffer.from('"","b":[{}]}'), 0, st), 12);
});
