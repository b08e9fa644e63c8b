// What the kubelet logs and records while it runs pods (kubelet-runtime.ts on the real store): a
// crash loop, a restart written by a ContainerRecreateRequest, an in-place image change, a failed
// pull, and the pod's deletion taking its logs and events with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startOnStore, waitFor } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import { CRRS, createCrrController } from '../../../../src/sandbox/controllers/crr';
import { EVENTS } from '../../../../src/sandbox/controllers/event-recorder';
import { PODS } from '../../../../src/sandbox/controllers/pods';
import type { KubeObject, Pod } from '../../../../src/kruise/types';
import type { PodLogSource } from '../../../../src/sandbox/store-api';

const fixture = <T = KubeObject>(name: string) => parse(readFileSync(new URL(`../../../fixtures/sandbox-controllers/${name}`, import.meta.url), 'utf8')) as T;
type Ev = KubeObject & { reason: string; message: string; count?: number; involvedObject: { name: string; fieldPath?: string } };

function start() {
  const kubelet = createKubelet();
  const rt = startOnStore([createNodesController(), createScheduler(), kubelet, createCrrController()], { readyDelayMs: 20, kruise: 'v1.9', nodes: 2, crashBackoff: 'fast' });
  const logs = kubelet.podLogs as PodLogSource;
  const pod = (name: string) => rt.store.get(PODS, 'default', name) as Pod | undefined;
  const status = (name: string, c: string) => pod(name)?.status?.containerStatuses?.find((s) => s.name === c);
  const read = (name: string, c: string, id: string | undefined) => (logs.lines(pod(name)!.metadata.uid!, c, id ?? '') ?? []).map((l) => l.text);
  const events = (name: string) => (rt.store.list(EVENTS, { namespace: 'default' }) as Ev[]).filter((e) => e.involvedObject.name === name);
  return { ...rt, pod, status, read, events };
}

test('a crash loop: each run logs its error and exit code, the previous run stays readable, BackOff counts up', async () => {
  const rt = start();
  try {
    rt.store.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'crash', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'busybox:crashloop' }] } });
    // Three runs ended: the first restarted at once, the next two after a back-off each (kubelet-backoff.ts).
    await waitFor('three crashes', () => (rt.status('crash', 'app')?.restartCount ?? 0) >= 3 && rt.status('crash', 'app')?.state?.running);
    const last = rt.status('crash', 'app')!.lastState!.terminated as { containerID: string };
    assert.deepEqual(rt.read('crash', 'app', last.containerID).slice(-2), ['[sandbox] error: busybox:crashloop crashed (image tag :crashloop)', '[sandbox] exit code 1']);
    assert.match(rt.read('crash', 'app', rt.status('crash', 'app')!.containerID)[0]!, /^\[sandbox\] starting busybox:crashloop \(container app, restart [34]\)$/);
    const backOff = rt.events('crash').filter((e) => e.reason === 'BackOff');
    assert.equal(backOff.length, 1);
    assert.ok((backOff[0]!.count ?? 0) >= 2);
    // IfNotPresent: pulled at the first start, present at the next ones.
    const pulls = rt.events('crash').filter((e) => e.reason === 'Pulling' || e.reason === 'Pulled').map((e) => `${e.reason} x${e.count}: ${e.message.replace(/ in .*/, '')}`);
    assert.deepEqual(pulls.sort(), ['Pulled x1: Successfully pulled image "busybox:crashloop"', `Pulled x${rt.status('crash', 'app')!.restartCount}: Container image "busybox:crashloop" already present on machine`, 'Pulling x1: Pulling image "busybox:crashloop"']);
    rt.store.delete(PODS, 'default', 'crash');
    await waitFor('events gone with the pod', () => rt.events('crash').length === 0);
  } finally {
    rt.stop();
  }
});

test('a ContainerRecreateRequest restart ends the instance with 137; an in-place image change with Killing and 0', async () => {
  const rt = start();
  try {
    rt.store.create(PODS, fixture<Pod>('pod-web-0.yaml'));
    await waitFor('ready', () => rt.status('web-0', 'app')?.ready);
    const first = rt.status('web-0', 'app')!.containerID;
    rt.store.create(CRRS, fixture('crr-web.yaml'));
    await waitFor('restarted and ready', () => rt.status('web-0', 'app')!.containerID !== first && rt.status('web-0', 'app')!.ready);
    assert.deepEqual(rt.read('web-0', 'app', first), ['[sandbox] starting registry.example.com/shop/web:2.4.1 (container app, restart 0)', '[sandbox] ready', '[sandbox] received SIGTERM, shutting down', '[sandbox] exit code 137']);
    assert.deepEqual(rt.read('web-0', 'log-agent', rt.status('web-0', 'log-agent')!.containerID), ['[sandbox] starting fluent/fluent-bit:3.0.4 (container log-agent, restart 0)', '[sandbox] ready'], 'the other container ran on');
    const second = rt.status('web-0', 'app')!.containerID;
    const p = rt.pod('web-0')!;
    rt.store.update(PODS, { ...p, spec: { ...p.spec, containers: p.spec.containers.map((c) => (c.name === 'app' ? { ...c, image: 'registry.example.com/shop/web:2.5.0' } : c)) } });
    await waitFor('updated in place', () => rt.status('web-0', 'app')!.containerID !== second);
    assert.deepEqual(rt.read('web-0', 'app', second).slice(-2), ['[sandbox] received SIGTERM, shutting down', '[sandbox] exit code 0']);
    const killing = rt.events('web-0').find((e) => e.reason === 'Killing')!;
    assert.equal(killing.message, 'Container app definition changed, will be restarted');
    assert.equal(killing.involvedObject.fieldPath, 'spec.containers{app}');
    assert.ok(rt.events('web-0').some((e) => e.reason === 'Pulling' && e.message === 'Pulling image "registry.example.com/shop/web:2.5.0"'));
  } finally {
    rt.stop();
  }
});

test('a failed pull: Pulling, Failed with the runtime error, Error: ErrImagePull, then BackOff and Error: ImagePullBackOff', async () => {
  const rt = start();
  try {
    rt.store.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pull', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx:fail-pull' }] } });
    await waitFor('back-off', () => rt.status('pull', 'app')?.state?.waiting?.reason === 'ImagePullBackOff');
    const seen = rt.events('pull').filter((e) => e.reason !== 'Scheduled').map((e) => `${e.reason}: ${e.message}`);
    assert.deepEqual(seen, [
      'Pulling: Pulling image "nginx:fail-pull"',
      'Failed: Failed to pull image "nginx:fail-pull": failed to pull and unpack image "docker.io/library/nginx:fail-pull": failed to resolve reference "docker.io/library/nginx:fail-pull": docker.io/library/nginx:fail-pull: not found',
      'Failed: Error: ErrImagePull',
      'BackOff: Back-off pulling image "nginx:fail-pull"',
      'Failed: Error: ImagePullBackOff',
    ]);
  } finally {
    rt.stop();
  }
});
