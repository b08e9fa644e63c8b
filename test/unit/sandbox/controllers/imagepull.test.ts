// ImagePullJob / ImageListPullJob controller and webhook, plus the pure rules, on the in-memory store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { createStore, type MemoryStore, startOnStore, waitFor } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import { createGarbageCollector } from '../../../../src/sandbox/controllers/gc';
import {
  IMAGE_LIST_PULL_JOBS,
  IMAGE_PULL_JOBS,
  createImagePullJobController,
  imageListPullJobAdmission,
  imagePullJobAdmission,
} from '../../../../src/sandbox/controllers/imagepulljob';
import { PODS } from '../../../../src/sandbox/controllers/pods';
import { ApiError } from '../../../../src/sandbox/server/errors';
import { parseImageReference, pullRunningMessage, validateImagePullJobSpec } from '../../../../src/kruise/rules/imagepull';
import type { ImagePullJobStatus } from '../../../../src/kruise/rules/imagepull';
import type { Controller, SimulationSettings } from '../../../../src/sandbox/store-api';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

const fixture = (name: string) => parse(readFileSync(new URL(`../../../fixtures/sandbox-controllers/${name}`, import.meta.url), 'utf8')) as KubeObject;

function start(readyDelayMs = 40, nodes = 3) {
  const s: SimulationSettings = { readyDelayMs, kruise: 'v1.9', nodes };
  const cs: Controller[] = [createNodesController(), createScheduler(), createKubelet(), createGarbageCollector(), createImagePullJobController()];
  return startOnStore(cs, s);
}

const jobStatus = (store: MemoryStore, name: string) => (store.get(IMAGE_PULL_JOBS, 'default', name)?.status ?? {}) as ImagePullJobStatus;

test('image references: normalized docker grammar', () => {
  assert.equal(parseImageReference('nginx').ok, true);
  assert.equal(parseImageReference('registry.example.com:5000/team/app:v1.2.3').ok, true);
  assert.equal(parseImageReference('nginx@sha256:' + 'a'.repeat(64)).ok, true);
  const upper = parseImageReference('Nginx:1.25');
  assert.equal(upper.ok, false);
  assert.match(upper.ok ? '' : upper.reason, /lowercase/);
  assert.equal(parseImageReference('a'.repeat(64)).ok, false);
  assert.equal(parseImageReference('nginx:').ok, false);
  assert.equal(parseImageReference('nginx::1').ok, false);
  assert.equal(pullRunningMessage({ desired: 3, succeeded: 1, failed: 0 }), 'job is running, progress 33.3%');
  assert.deepEqual(validateImagePullJobSpec({ image: 'nginx', completionPolicy: { type: 'Never', ttlSecondsAfterFinished: 10 } }).map((p) => p.field), ['spec.completionPolicy']);
  assert.deepEqual(validateImagePullJobSpec({ image: 'nginx', completionPolicy: { activeDeadlineSeconds: 100 }, pullPolicy: { timeoutSeconds: 300 } }).map((p) => p.field), [
    'spec.completionPolicy.activeDeadlineSeconds',
  ]);
});

test('ImagePullJob over 3 nodes with parallelism 1 progresses one node at a time and completes', async () => {
  const rt = start(40);
  try {
    const seen: ImagePullJobStatus[] = [];
    rt.store.subscribe((ev) => {
      if (ev.gr.resource === 'imagepulljobs' && ev.object.status) seen.push(ev.object.status as ImagePullJobStatus);
    });
    rt.store.create(IMAGE_PULL_JOBS, fixture('imagepulljob-nginx.yaml'));
    const st = await waitFor('completed', () => {
      const s = jobStatus(rt.store, 'pull-nginx');
      return s.completionTime ? s : undefined;
    });
    assert.equal(st.desired, 3);
    assert.equal(st.succeeded, 3);
    assert.equal(st.failed, 0);
    assert.equal(st.active, 0);
    assert.equal(st.message, 'job has completed');
    assert.ok(st.startTime);
    assert.ok(seen.every((s) => (s.active ?? 0) <= 1), 'never more than one pull at once');
    const progress = seen.map((s) => s.message);
    for (const m of ['job is running, progress 0.0%', 'job is running, progress 33.3%', 'job is running, progress 66.7%']) assert.ok(progress.includes(m), `${m} in ${progress.join(' | ')}`);
  } finally {
    rt.stop();
  }
});

test('a fail-pull image ends with every node in failedNodes (sorted) after backoffLimit retries', async () => {
  const rt = start(10, 3);
  try {
    const job = fixture('imagepulljob-nginx.yaml');
    (job.spec as Record<string, unknown>).image = 'nginx:fail-pull';
    (job.spec as Record<string, unknown>).parallelism = 3;
    (job.spec as { selector: unknown }).selector = { matchLabels: { 'kubernetes.io/os': 'linux' } };
    rt.store.create(IMAGE_PULL_JOBS, job);
    const t0 = Date.now();
    const st = await waitFor('completed', () => {
      const s = jobStatus(rt.store, 'pull-nginx');
      return s.completionTime ? s : undefined;
    });
    assert.ok(Date.now() - t0 >= 30, 'three attempts of 10ms each');
    assert.equal(st.failed, 3);
    assert.equal(st.succeeded, 0);
    assert.deepEqual(st.failedNodes, ['node-1', 'node-2', 'node-3']);
    assert.equal(st.message, 'job has completed');
  } finally {
    rt.stop();
  }
});

test('a pull slower than pullPolicy.timeoutSeconds fails on every node; one within it succeeds', async () => {
  const rt = start(300, 2); // a `slow` tag takes 5 x 300ms = 1.5s, over a 1s timeout
  try {
    for (const [name, image] of [['pull-slow', 'nginx:slow'], ['pull-quick', 'nginx:1.27']] as const) {
      const job = fixture('imagepulljob-nginx.yaml');
      job.metadata.name = name;
      Object.assign(job.spec as Record<string, unknown>, { image, parallelism: 2, selector: { matchLabels: { 'kubernetes.io/os': 'linux' } }, pullPolicy: { timeoutSeconds: 1, backoffLimit: 0 } });
      rt.store.create(IMAGE_PULL_JOBS, job);
    }
    const done = (name: string) => waitFor(`${name} completed`, () => {
      const s = jobStatus(rt.store, name);
      return s.completionTime ? s : undefined;
    });
    const [slow, quick] = await Promise.all([done('pull-slow'), done('pull-quick')]);
    assert.deepEqual([slow.succeeded, slow.failed, slow.failedNodes], [0, 2, ['node-1', 'node-2']]);
    assert.deepEqual([quick.succeeded, quick.failed], [2, 0]);
  } finally {
    rt.stop();
  }
});

test('podSelector targets only the nodes of matching pods; Never keeps the job open; TTL deletes a finished job', async () => {
  const rt = start(10, 3);
  try {
    rt.store.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-a', namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }], nodeName: 'node-2' } } as Pod);
    const job = fixture('imagepulljob-nginx.yaml');
    const spec = job.spec as Record<string, unknown>;
    delete spec.selector;
    spec.podSelector = { matchLabels: { app: 'web' } };
    spec.completionPolicy = { type: 'Never' };
    rt.store.create(IMAGE_PULL_JOBS, job);
    const st = await waitFor('pulled', () => {
      const s = jobStatus(rt.store, 'pull-nginx');
      return s.succeeded === 1 ? s : undefined;
    });
    assert.equal(st.desired, 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(jobStatus(rt.store, 'pull-nginx').completionTime, undefined, 'Never does not complete');
    assert.equal(jobStatus(rt.store, 'pull-nginx').message, 'job is running, progress 100.0%');

    const ttl = fixture('imagepulljob-nginx.yaml');
    ttl.metadata.name = 'short-lived';
    (ttl.spec as { completionPolicy: Record<string, unknown> }).completionPolicy = { type: 'Always', ttlSecondsAfterFinished: 0 };
    (ttl.spec as Record<string, unknown>).parallelism = 3;
    rt.store.create(IMAGE_PULL_JOBS, ttl);
    await waitFor('deleted after ttl', () => rt.store.get(IMAGE_PULL_JOBS, 'default', 'short-lived') === undefined, 3000);
  } finally {
    rt.stop();
  }
});

test('the webhook rejects bad images, selector + podSelector, and Never with a TTL (422 with field paths)', () => {
  const store = createStore();
  const bad = (mut: (s: Record<string, unknown>) => void, field: string) => {
    const job = fixture('imagepulljob-nginx.yaml');
    mut(job.spec as Record<string, unknown>);
    assert.throws(
      () => imagePullJobAdmission.admit('CREATE', job, undefined, store),
      (e: unknown) => e instanceof ApiError && e.code === 422 && e.message.includes(field),
    );
  };
  bad((s) => (s.image = 'NGINX:1.25'), 'spec.image');
  bad((s) => (s.image = 'f'.repeat(64)), 'spec.image');
  bad((s) => (s.podSelector = { matchLabels: { app: 'x' } }), 'spec.podSelector');
  bad((s) => (s.completionPolicy = { type: 'Never', ttlSecondsAfterFinished: 5 }), 'spec.completionPolicy');
  const list = fixture('imagelistpulljob-base.yaml');
  (list.spec as { images: string[] }).images = ['nginx:1.26', 'nginx:1.26'];
  assert.throws(() => imageListPullJobAdmission.admit('CREATE', list, undefined, store), (e: unknown) => e instanceof ApiError && e.message.includes('spec.images[1]'));
  assert.equal(imagePullJobAdmission.admit('CREATE', fixture('imagepulljob-nginx.yaml'), undefined, store) !== undefined, true);
});

test('ImageListPullJob owns one ImagePullJob per image and aggregates them', async () => {
  const rt = start(10, 2);
  try {
    rt.store.create(IMAGE_LIST_PULL_JOBS, fixture('imagelistpulljob-base.yaml'));
    const st = await waitFor('list completed', () => {
      const s = rt.store.get(IMAGE_LIST_PULL_JOBS, 'default', 'base-images')?.status as Record<string, unknown> | undefined;
      return s?.completionTime ? s : undefined;
    });
    assert.equal(st.desired, 2);
    assert.equal(st.completed, 2);
    assert.equal(st.succeeded, 1);
    assert.equal(st.active, 0);
    const failed = st.failedImageStatuses as Array<{ imagePullJob: string; name: string }>;
    assert.equal(failed.length, 1);
    assert.equal(failed[0].name, 'busybox:fail-pull');
    const jobs = rt.store.list(IMAGE_PULL_JOBS);
    assert.equal(jobs.length, 2);
    assert.ok(jobs.every((j) => j.metadata.ownerReferences?.[0]?.kind === 'ImageListPullJob'));
    assert.ok(jobs.some((j) => j.metadata.name === failed[0].imagePullJob));
    rt.store.delete(IMAGE_LIST_PULL_JOBS, 'default', 'base-images');
    await waitFor('jobs collected', () => rt.store.list(IMAGE_PULL_JOBS).length === 0);
  } finally {
    rt.stop();
  }
});

test('ImageListPullJob with ttlSecondsAfterFinished 0: children removed on finishing are not re-created, and the list completes', async () => {
  const rt = start(10, 2);
  try {
    const created: string[] = [];
    rt.store.subscribe((ev) => {
      if (ev.gr.resource === 'imagepulljobs' && ev.type === 'ADDED') created.push(ev.object.metadata.name ?? '');
    });
    const list = fixture('imagelistpulljob-base.yaml');
    (list.spec as Record<string, unknown>).completionPolicy = { type: 'Always', ttlSecondsAfterFinished: 0 };
    rt.store.create(IMAGE_LIST_PULL_JOBS, list);
    const st = await waitFor('list completed (or gone by its own TTL)', () => {
      const l = rt.store.get(IMAGE_LIST_PULL_JOBS, 'default', 'base-images');
      return !l || (l.status as Record<string, unknown> | undefined)?.completionTime ? (l?.status ?? 'gone') : undefined;
    });
    if (st !== 'gone') assert.equal((st as Record<string, unknown>).completed, 2);
    assert.equal(created.length, 2, `one child per image, never re-created: ${created.join(', ')}`);
    await waitFor('list removed by its TTL', () => (rt.store.get(IMAGE_LIST_PULL_JOBS, 'default', 'base-images') ? undefined : true));
    assert.equal(created.length, 2);
  } finally {
    rt.stop();
  }
});

test('at completionPolicy.activeDeadlineSeconds a node still pulling and the nodes never asked count as failed (imagepulljob_controller.go calculateStatus; row "job timeout with active deadline seconds")', async () => {
  const rt = start(100, 12);
  try {
    const job = fixture('imagepulljob-nginx.yaml');
    const spec = job.spec as Record<string, unknown>;
    // A pull that keeps failing and retrying (backoffLimit 1000) never finishes on its own.
    spec.image = 'registry.example.com/shop/web:fail-pull';
    spec.parallelism = 2;
    delete spec.selector;
    spec.pullPolicy = { backoffLimit: 1000, timeoutSeconds: 1 };
    spec.completionPolicy = { type: 'Always', activeDeadlineSeconds: 2 };
    rt.store.create(IMAGE_PULL_JOBS, job);
    await waitFor('pulling', () => jobStatus(rt.store, 'pull-nginx').active === 2);
    const st = await waitFor('deadline', () => {
      const s = jobStatus(rt.store, 'pull-nginx');
      return s.completionTime ? s : undefined;
    }, 5000);
    assert.ok(Date.parse(st.completionTime!) >= Date.parse(st.startTime!) + 2000, 'completed at the deadline');
    assert.equal(st.message, 'job exceeds activeDeadlineSeconds');
    assert.deepEqual([st.desired, st.active, st.succeeded, st.failed], [12, 0, 0, 12]);
    // The two pulling first (Kruise asks nodes in byte order of their names: node-1, node-10),
    // then the never-asked ones, sorted.
    assert.deepEqual(st.failedNodes, ['node-1', 'node-10', 'node-11', 'node-12', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6', 'node-7', 'node-8', 'node-9']);
  } finally {
    rt.stop();
  }
});

test('parallelism 0 is accepted and asks no node to pull: 0.0% until the deadline fails every node (imagepulljob_create_update_handler.go validate; imagepulljob_controller.go syncNodeImages)', async () => {
  const rt = start(20);
  try {
    const job = fixture('imagepulljob-nginx.yaml');
    const spec = job.spec as Record<string, unknown>;
    spec.parallelism = 0;
    spec.pullPolicy = { timeoutSeconds: 1 };
    spec.completionPolicy = { type: 'Always', activeDeadlineSeconds: 1 };
    rt.store.create(IMAGE_PULL_JOBS, job);
    const running = await waitFor('status', () => {
      const s = jobStatus(rt.store, 'pull-nginx');
      return s.desired ? s : undefined;
    });
    assert.equal(running.message, 'job is running, progress 0.0%');
    assert.equal(running.active, 0);
    const st = await waitFor('deadline', () => {
      const s = jobStatus(rt.store, 'pull-nginx');
      return s.completionTime ? s : undefined;
    }, 4000);
    assert.deepEqual([st.succeeded, st.failed, st.failedNodes, st.message], [0, 3, ['node-1', 'node-2', 'node-3'], 'job exceeds activeDeadlineSeconds']);
  } finally {
    rt.stop();
  }
});
