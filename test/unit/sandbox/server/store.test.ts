// The in-memory store behind the API server: metadata bookkeeping, concurrency, finalizers,
// namespaces, admission hooks and the watch window.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../../src/sandbox/server/errors';
import { ResourceRegistry } from '../../../../src/sandbox/server/registry';
import { MemoryStore } from '../../../../src/sandbox/server/store';

const CM = { group: '', resource: 'configmaps' };
const DEPLOY = { group: 'apps', resource: 'deployments' };
const cm = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
const deploy = (name: string, replicas = 1) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' }, spec: { replicas, selector: { matchLabels: { app: name } } } });

function isApi(code: number, reason?: string) {
  return (e: unknown) => e instanceof ApiError && e.code === code && (reason === undefined || e.reason === reason);
}

describe('MemoryStore', () => {
  it('creates the system namespaces and refuses objects in a missing namespace', () => {
    const s = new MemoryStore(new ResourceRegistry());
    assert.deepEqual(s.list({ group: '', resource: 'namespaces' }).map((n) => n.metadata.name), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    assert.throws(() => s.create(CM, { ...cm('a'), metadata: { name: 'a', namespace: 'nope' } }), (e: unknown) => e instanceof ApiError && e.code === 404 && /namespaces "nope" not found/.test(e.message));
  });

  it('sets uid, creationTimestamp, generation 1 and a growing resourceVersion; honours generateName', () => {
    const s = new MemoryStore(new ResourceRegistry());
    const a = s.create(CM, cm('a'));
    const b = s.create(CM, { ...cm(''), metadata: { generateName: 'gen-', namespace: 'default' } });
    assert.match(a.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.match(a.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(a.metadata.generation, 1);
    assert.ok(Number(b.metadata.resourceVersion) > Number(a.metadata.resourceVersion));
    assert.match(b.metadata.name!, /^gen-[a-z0-9]{5}$/);
    assert.throws(() => s.create(CM, cm('a')), isApi(409, 'AlreadyExists'));
  });

  it('bumps generation on spec changes only and rejects stale resourceVersions', () => {
    const s = new MemoryStore(new ResourceRegistry());
    const d = s.create(DEPLOY, deploy('d'));
    const labelled = s.update(DEPLOY, { ...d, metadata: { ...d.metadata, labels: { x: 'y' } } });
    assert.equal(labelled.metadata.generation, 1);
    const scaled = s.update(DEPLOY, { ...labelled, spec: { ...(labelled.spec as object), replicas: 3 } });
    assert.equal(scaled.metadata.generation, 2);
    const withStatus = s.updateStatus(DEPLOY, { ...scaled, status: { replicas: 3 } });
    assert.equal(withStatus.metadata.generation, 2);
    assert.deepEqual(withStatus.status, { replicas: 3 });
    assert.throws(() => s.update(DEPLOY, { ...scaled, spec: { replicas: 5 } }), isApi(409, 'Conflict'));
    const ignored = s.update(DEPLOY, { ...withStatus, status: { replicas: 99 } });
    assert.deepEqual(ignored.status, { replicas: 3 }, 'update does not write status');
    assert.equal(ignored.metadata.resourceVersion, withStatus.metadata.resourceVersion, 'a no-op write changes nothing');
  });

  it('hands out copies', () => {
    const s = new MemoryStore(new ResourceRegistry());
    const a = s.create(CM, cm('a', { k: 'v' }));
    (a as unknown as { data: Record<string, string> }).data.k = 'changed';
    assert.deepEqual((s.get(CM, 'default', 'a') as { data?: unknown }).data, { k: 'v' });
  });

  it('keeps the resourceVersion of stored objects across status writes (no-op or not)', () => {
    const s = new MemoryStore(new ResourceRegistry());
    const d = s.create(DEPLOY, deploy('d'));
    const before = s.getRef(DEPLOY, 'default', 'd')!;
    s.updateStatus(DEPLOY, { ...d });
    assert.equal(s.get(DEPLOY, 'default', 'd')!.metadata.resourceVersion, d.metadata.resourceVersion, 'a no-op status write keeps the resourceVersion');
    const written = s.updateStatus(DEPLOY, { ...d, status: { replicas: 1 } });
    assert.ok(Number(written.metadata.resourceVersion) > Number(d.metadata.resourceVersion));
    assert.equal(before.metadata.resourceVersion, d.metadata.resourceVersion, 'the previous stored object (shared with watch backlogs) is not edited');
  });

  it('marks objects with finalizers for deletion and removes them with the last finalizer', () => {
    const s = new MemoryStore(new ResourceRegistry());
    const events: string[] = [];
    s.subscribe((e) => events.push(`${e.type}:${e.object.metadata.name}`));
    const a = s.create(CM, { ...cm('a'), metadata: { name: 'a', namespace: 'default', finalizers: ['example.com/keep'] } });
    s.delete(CM, 'default', 'a');
    const marked = s.get(CM, 'default', 'a')!;
    assert.ok(marked.metadata.deletionTimestamp);
    s.update(CM, { ...marked, metadata: { ...marked.metadata, finalizers: [] } });
    assert.equal(s.get(CM, 'default', 'a'), undefined);
    assert.deepEqual(events, ['ADDED:a', 'MODIFIED:a', 'DELETED:a']);
    void a;
  });

  it('orphans dependents on propagationPolicy=Orphan', () => {
    const s = new MemoryStore(new ResourceRegistry());
    const owner = s.create(DEPLOY, deploy('d'));
    s.create(CM, { ...cm('dep'), metadata: { name: 'dep', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: owner.metadata.uid!, controller: true }] } });
    s.delete(DEPLOY, 'default', 'd', { propagationPolicy: 'Orphan' });
    assert.equal(s.get(CM, 'default', 'dep')!.metadata.ownerReferences, undefined);
  });

  it('runs admission hooks on writes; a hook can mutate or reject', () => {
    const s = new MemoryStore(new ResourceRegistry());
    s.addAdmissionHooks([
      {
        gr: CM,
        operations: ['CREATE'],
        admit(_op, obj) {
          if (obj.metadata.name === 'bad') throw ApiError.invalid('', 'ConfigMap', 'bad', [{ field: 'metadata.name', message: 'Invalid value: "bad": not allowed' }]);
          return { ...obj, metadata: { ...obj.metadata, labels: { admitted: 'true' } } };
        },
      },
    ]);
    assert.equal(s.create(CM, cm('good')).metadata.labels?.admitted, 'true');
    assert.throws(() => s.create(CM, cm('bad')), (e: unknown) => e instanceof ApiError && e.message === 'ConfigMap "bad" is invalid: metadata.name: Invalid value: "bad": not allowed');
  });

  it('keeps a window of events and answers older resourceVersions with 410', () => {
    const s = new MemoryStore(new ResourceRegistry(), 3);
    const first = s.create(CM, cm('a'));
    for (const n of ['b', 'c', 'd', 'e']) s.create(CM, cm(n));
    assert.throws(() => s.eventsSince(Number(first.metadata.resourceVersion), CM), isApi(410, 'Expired'));
    const recent = s.eventsSince(s.currentResourceVersion() - 2, CM);
    assert.deepEqual(recent.map((e) => e.object.metadata.name), ['d', 'e']);
  });

  it('validates names like kube', () => {
    const s = new MemoryStore(new ResourceRegistry());
    assert.throws(() => s.create(CM, cm('Upper')), (e: unknown) => e instanceof ApiError && e.code === 422 && /metadata\.name: Invalid value: "Upper"/.test(e.message));
  });
});

describe('MemoryStore event order', () => {
  it('delivers events in resourceVersion order even when a listener writes', () => {
    const s = new MemoryStore(new ResourceRegistry());
    s.subscribe((e) => {
      // A controller reacting synchronously: its write must not overtake the event being delivered.
      if (e.type === 'ADDED' && e.object.metadata.name === 'trigger') s.create(CM, cm('reaction'));
    });
    const seen: number[] = [];
    s.subscribe((e) => seen.push(Number(e.object.metadata.resourceVersion)));
    s.create(CM, cm('trigger'));
    assert.equal(seen.length, 2);
    assert.ok(seen[0]! < seen[1]!, `in order: ${seen.join(',')}`);
  });
});

describe('MemoryStore no-op detection', () => {
  it('treats a write that only reorders keys as a no-op (no new resourceVersion, no generation bump)', () => {
    const s = new MemoryStore(new ResourceRegistry());
    const d = s.create(DEPLOY, deploy('d'));
    const spec = d.spec as { replicas: number; selector: unknown };
    const reordered = { kind: d.kind, metadata: d.metadata, apiVersion: d.apiVersion, spec: { selector: spec.selector, replicas: spec.replicas } };
    const events: string[] = [];
    s.subscribe((e) => events.push(e.type));
    const out = s.update(DEPLOY, reordered);
    assert.equal(out.metadata.resourceVersion, d.metadata.resourceVersion);
    assert.equal(out.metadata.generation, 1);
    assert.deepEqual(events, []);
  });
});

describe('MemoryStore graceful pod deletion', () => {
  const PODS = { group: '', resource: 'pods' };
  const pod = (name: string, nodeName?: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'x' }] } });

  it('marks a scheduled pod Terminating on a client delete when a kubelet runs; its second delete removes it', () => {
    const s = new MemoryStore(new ResourceRegistry());
    s.hasKubelet = true;
    s.create(PODS, pod('p', 'node-1'));
    s.delete(PODS, 'default', 'p', { fromApi: true });
    const marked = s.get(PODS, 'default', 'p')!;
    assert.ok(marked.metadata.deletionTimestamp);
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
    const updated = s.updateStatus(PODS, { ...marked, status: { phase: 'Running' } });
    assert.ok(s.get(PODS, 'default', 'p'), 'a status update during the grace period keeps it');
    void updated;
    s.delete(PODS, 'default', 'p');
    assert.equal(s.get(PODS, 'default', 'p'), undefined);
  });

  it('deletes at once without a kubelet, for unscheduled pods, with gracePeriodSeconds 0 and for controllers', () => {
    const s = new MemoryStore(new ResourceRegistry());
    s.create(PODS, pod('a', 'node-1'));
    s.delete(PODS, 'default', 'a', { fromApi: true });
    assert.equal(s.get(PODS, 'default', 'a'), undefined);
    s.hasKubelet = true;
    s.create(PODS, pod('b'));
    s.delete(PODS, 'default', 'b', { fromApi: true });
    assert.equal(s.get(PODS, 'default', 'b'), undefined);
    s.create(PODS, pod('c', 'node-1'));
    s.delete(PODS, 'default', 'c', { fromApi: true, gracePeriodSeconds: 0 });
    assert.equal(s.get(PODS, 'default', 'c'), undefined);
    s.create(PODS, pod('d', 'node-1'));
    s.delete(PODS, 'default', 'd');
    assert.equal(s.get(PODS, 'default', 'd'), undefined, "a controller's delete (scale-down) is immediate");
  });
});

describe('MemoryStore and CRD schemas', () => {
  it('prunes and defaults a custom resource after admission and on controller status writes, like kube-apiserver', () => {
    const registry = new ResourceRegistry();
    registry.installCrd({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } } }, frozen: { type: 'boolean' } } },
                  status: { type: 'object', properties: { phase: { type: 'string' } } },
                },
              },
            },
          },
        ],
      },
    });
    const s = new MemoryStore(registry);
    const WIDGETS = { group: 'example.com', resource: 'widgets' };
    // A webhook that fills what only the server may set (as Kruise's CRR webhook copies the pod's ports).
    s.addAdmissionHooks([{ gr: WIDGETS, operations: ['CREATE'], admit: (_op, obj) => ({ ...obj, spec: { ...(obj.spec as object), ports: [{ port: 80 }], webhookOnly: true } }) }]);
    const created = s.create(WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { frozen: true } });
    assert.deepEqual(created.spec, { frozen: true, ports: [{ port: 80, protocol: 'TCP' }] }, 'defaulted and pruned after the webhook');
    const withStatus = s.updateStatus(WIDGETS, { ...created, status: { phase: 'Done', notInThisRelease: 3 } });
    assert.deepEqual(withStatus.status, { phase: 'Done' }, 'a controller cannot store a status field the CRD lacks');
  });
});
