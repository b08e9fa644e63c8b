// kubectl's --overrides (src/lib/overrides.ts). Rows of k8s.io/kubectl v0.32.4 pkg/cmd/expose/expose_test.go
// TestExposeOverride (the Service `expose service baz --protocol=UDP --port=14 --name=foo --labels=svc=test`
// builds, then each override), plus RFC 7396 / RFC 6902 examples and the strategic directives.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OverrideError, applyOverrides } from '../../../src/lib/overrides';
import { jsonPatch, mergePatch } from '../../../src/lib/json-patch';
import { serviceListMerge, typedServiceFields } from '../../../src/kruise/builders/service';
import type { Service } from '../../../src/kruise/rules/service';

const base = (): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'foo', labels: { svc: 'test' } },
  spec: { ports: [{ protocol: 'UDP', port: 14, targetPort: 14 }], selector: { app: 'go' } },
});
const port1111 = { protocol: 'TCP', port: 1111, targetPort: 2222 };
const port14 = { protocol: 'UDP', port: 14, targetPort: 14 };

describe('expose_test.go TestExposeOverride', () => {
  test('expose with merge override type should replace the entire spec (ports list; the stray top-level "selector" is dropped)', () => {
    const out = typedServiceFields(applyOverrides(base(), '{"spec": {"ports": [{"protocol": "TCP", "port": 1111, "targetPort": 2222}]}, "selector": {"app": "go"}}', 'merge', serviceListMerge));
    assert.deepEqual(out, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [port1111], selector: { app: 'go' } } });
  });
  test('expose with strategic override type should add port before existing port', () => {
    const out = applyOverrides(base(), '{"spec": {"ports": [{"protocol": "TCP", "port": 1111, "targetPort": 2222}]}}', 'strategic', serviceListMerge);
    assert.deepEqual(out.spec?.ports, [port1111, port14]);
  });
  test('expose with json override type should add port before existing port', () => {
    const out = applyOverrides(base(), '[{"op": "add", "path": "/spec/ports/0", "value": {"port": 1111, "protocol": "TCP", "targetPort": 2222}}]', 'json', serviceListMerge);
    assert.deepEqual(out.spec?.ports, [{ port: 1111, protocol: 'TCP', targetPort: 2222 }, port14]);
  });
  test('expose with json override type should add port after existing port', () => {
    const out = applyOverrides(base(), '[{"op": "add", "path": "/spec/ports/1", "value": {"port": 1111, "protocol": "TCP", "targetPort": 2222}}]', 'json', serviceListMerge);
    assert.deepEqual(out.spec?.ports, [port14, { port: 1111, protocol: 'TCP', targetPort: 2222 }]);
  });
});

describe('strategic merge of a Service (ports keyed by port, as the struct tags say)', () => {
  test('a patch item with a known port merges into it; the others keep their relative order', () => {
    const svc = base();
    svc.spec!.ports = [{ name: 'a', port: 80, protocol: 'TCP', targetPort: 80 }, { name: 'b', port: 443, protocol: 'TCP', targetPort: 443 }];
    const out = applyOverrides(svc, '{"spec": {"ports": [{"port": 443, "targetPort": 8443}, {"port": 9000, "name": "c", "protocol": "TCP", "targetPort": 9000}]}}', 'strategic', serviceListMerge);
    assert.deepEqual(out.spec?.ports?.map((p) => `${p.name}:${p.port}->${p.targetPort}`), ['a:80->80', 'b:443->8443', 'c:9000->9000']);
  });
  test('$patch: delete removes an item, $patch: replace replaces the list; null removes a field; other lists are replaced', () => {
    const svc = base();
    svc.spec!.externalIPs = ['1.2.3.4'];
    const del = applyOverrides(svc, '{"spec": {"ports": [{"port": 14, "$patch": "delete"}], "externalIPs": ["5.6.7.8"], "selector": {"app": null, "tier": "x"}}}', 'strategic', serviceListMerge);
    assert.deepEqual(del.spec, { ports: [], selector: { tier: 'x' }, externalIPs: ['5.6.7.8'] });
    const repl = applyOverrides(svc, '{"spec": {"ports": [{"$patch": "replace"}, {"port": 1, "protocol": "TCP"}]}}', 'strategic', serviceListMerge);
    assert.deepEqual(repl.spec?.ports, [{ port: 1, protocol: 'TCP' }]);
    assert.throws(() => applyOverrides(svc, '{"spec": {"ports": [{"name": "nokey"}]}}', 'strategic', serviceListMerge), OverrideError);
  });
});

describe('RFC 7396 / RFC 6902', () => {
  test('merge patch: nested objects merge, null deletes, arrays and scalars replace', () => {
    assert.deepEqual(mergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } }), { a: 'z', c: { d: 'e' } });
    assert.deepEqual(mergePatch({ a: [1, 2] }, { a: [3] }), { a: [3] });
  });
  test('json patch: add/remove/replace/move/copy/test, "-" appends, errors name the path', () => {
    assert.deepEqual(jsonPatch({ a: [1] }, [{ op: 'add', path: '/a/-', value: 2 }]), { a: [1, 2] });
    assert.deepEqual(jsonPatch({ a: { b: 1 } }, [{ op: 'move', from: '/a/b', path: '/c' }]), { a: {}, c: 1 });
    assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'copy', from: '/a', path: '/b' }, { op: 'replace', path: '/a', value: 2 }, { op: 'remove', path: '/b' }]), { a: 2 });
    assert.deepEqual(jsonPatch({ 'a/b': 1 }, [{ op: 'test', path: '/a~1b', value: 1 }]), { 'a/b': 1 });
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]), /testing value at "\/a" failed/);
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]), /does not exist/);
    assert.throws(() => jsonPatch({ a: [] }, [{ op: 'add', path: '/a/5', value: 2 }]), /out of bounds/);
    assert.throws(() => jsonPatch({}, { op: 'add' }), /JSON array/);
    // Inherited properties are not members of the object (`"constructor" in {}` is true).
    assert.throws(() => jsonPatch({}, [{ op: 'replace', path: '/constructor', value: 1 }]), /path "\/constructor" does not exist/);
  });
  test('text that is not JSON is an error, not a crash', () => {
    assert.throws(() => applyOverrides(base(), '{spec', 'merge', serviceListMerge), /--overrides is not valid JSON/);
  });
});
