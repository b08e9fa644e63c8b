// JSON patch (RFC 6902), merge patch (RFC 7386) and strategic merge patch as the API server applies them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../../src/sandbox/server/errors';
import { applyJsonPatch } from '../../../../src/sandbox/server/patch/json-patch';
import { mergePatch } from '../../../../src/lib/json-patch';
import { applyStrategicMergePatch } from '../../../../src/sandbox/server/patch/strategic-merge';

const podSpec = () => ({
  spec: {
    containers: [
      { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, name: 'http' }], volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] },
      { name: 'sidecar', image: 'side:1' },
    ],
    tolerations: [{ key: 'a', operator: 'Exists' }],
    volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }],
  },
  metadata: { finalizers: ['x'] },
});

describe('JSON patch', () => {
  it('applies add/replace/remove/move/copy/test in order on a copy', () => {
    const doc = { a: { b: [1, 2, 3] }, c: 'x' };
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/c', value: 'x' },
      { op: 'add', path: '/a/b/-', value: 4 },
      { op: 'add', path: '/a/b/0', value: 0 },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'remove', path: '/a/b/1' },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/a/e~1f' },
    ]);
    assert.deepEqual(out, { a: { b: [0, 2, 3, 4], 'e/f': 'y' }, c: 'y' });
    assert.deepEqual(doc, { a: { b: [1, 2, 3] }, c: 'x' }, 'input untouched');
  });

  it('fails on a failed test, a missing path or an out-of-range index', () => {
    // Exactly kube-apiserver's answer: generic message, Invalid, no causes.
    const notApplied = (e: unknown) =>
      e instanceof ApiError && e.code === 422 && e.reason === 'Invalid' && e.message === 'the server rejected our request due to an error in our request' && !e.toStatus().details?.causes;
    assert.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]), notApplied);
    assert.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/b', value: 1 }]), notApplied);
    assert.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b/c', value: 1 }]), notApplied);
    assert.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]), notApplied);
    assert.throws(() => applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/5', value: 2 }]), ApiError);
    assert.throws(() => applyJsonPatch({ a: 1 }, { op: 'add' }), (e: unknown) => e instanceof ApiError && e.code === 400);
    // A `from` that is not a string does not apply (it was a 500: the pointer parser got a number).
    assert.throws(() => applyJsonPatch({ a: 1 }, [{ op: 'move', from: 5, path: '/b' }]), notApplied);
    // Inherited properties are not members of the document.
    assert.throws(() => applyJsonPatch({}, [{ op: 'replace', path: '/constructor', value: 1 }]), notApplied);
  });

  it('answers a malformed patch with a 400 naming the problem', () => {
    const badRequest = (message: string) => (e: unknown) => e instanceof ApiError && e.code === 400 && e.message === message;
    const rejected = 'the server rejected our request due to an error in our request';
    assert.throws(() => applyJsonPatch({}, { op: 'add' }), badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch'));
    assert.throws(() => applyJsonPatch({}, [{ op: 'add', value: 1 }]), badRequest(`${rejected}: invalid JSON patch operation`));
    assert.throws(() => applyJsonPatch({}, [{ op: 'add', path: 'a', value: 1 }]), badRequest(`${rejected}: invalid JSON pointer "a"`));
    assert.throws(() => applyJsonPatch({}, [{ op: 'bogus', path: '/a' }]), badRequest(`${rejected}: Unexpected kind: bogus`));
  });

  it('compares objects deeply in test', () => {
    assert.deepEqual(applyJsonPatch({ a: { x: [1, { y: 2 }] } }, [{ op: 'test', path: '/a', value: { x: [1, { y: 2 }] } }]), { a: { x: [1, { y: 2 }] } });
  });
});

describe('merge patch', () => {
  it('merges objects, replaces lists and deletes with null', () => {
    assert.deepEqual(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2], d: 1 }, { a: { b: 9 }, l: [3], d: null, e: { f: 1 } }), { a: { b: 9, c: 2 }, l: [3], e: { f: 1 } });
  });
});

describe('strategic merge patch', () => {
  it('merges containers and env by name, ports by containerPort, keeps the rest', () => {
    const out = applyStrategicMergePatch(podSpec(), { spec: { containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }], ports: [{ containerPort: 80, protocol: 'TCP' }] }] } }) as ReturnType<typeof podSpec>;
    const [app, sidecar] = out.spec.containers;
    assert.equal(app!.image, 'app:2');
    assert.deepEqual(app!.env, [{ name: 'A', value: '1' }, { name: 'B', value: '3' }, { name: 'C', value: '4' }]);
    assert.deepEqual(app!.ports, [{ containerPort: 80, name: 'http', protocol: 'TCP' }]);
    assert.equal(sidecar!.image, 'side:1');
  });

  it('replaces lists without a merge key (tolerations) and merges finalizers as a set', () => {
    const out = applyStrategicMergePatch(podSpec(), { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] }, metadata: { finalizers: ['x', 'y'] } }) as ReturnType<typeof podSpec>;
    assert.deepEqual(out.spec.tolerations, [{ key: 'b', operator: 'Exists' }]);
    assert.deepEqual(out.metadata.finalizers, ['x', 'y']);
  });

  it('honours $patch delete/replace, $retainKeys and $deleteFromPrimitiveList, ignores $setElementOrder', () => {
    const out = applyStrategicMergePatch(podSpec(), {
      spec: {
        $setElementOrder$containers: [],
        '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
        containers: [{ name: 'sidecar', $patch: 'delete' }],
        volumes: [{ $patch: 'replace' }, { name: 'data', emptyDir: {} }],
      },
      metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] },
    }) as Record<string, any>;
    assert.deepEqual(out.spec.containers.map((c: { name: string }) => c.name), ['app']);
    assert.deepEqual(out.spec.volumes, [{ name: 'data', emptyDir: {} }]);
    assert.equal(out.metadata.finalizers, undefined);
    const replaced = applyStrategicMergePatch({ a: { x: 1, y: 2 } }, { a: { $patch: 'replace', z: 3 } });
    assert.deepEqual(replaced, { a: { z: 3 } });
    const retained = applyStrategicMergePatch({ s: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }, { s: { $retainKeys: ['type'], type: 'Recreate' } });
    assert.deepEqual(retained, { s: { type: 'Recreate' } });
  });
});
