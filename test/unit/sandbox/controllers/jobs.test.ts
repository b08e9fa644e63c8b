// The job kinds in the sandbox, on the real store (test/helpers/memory-store.ts): the kubelet finishing
// pods of restartPolicy Never/OnFailure (Always pods unchanged), the batch/v1 Job controller, the
// BroadcastJob controller (one pod per eligible node) and the AdvancedCronJob controller, with their
// admission hooks. Fixtures: test/fixtures/jobs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startOnStore, waitFor, type MemoryStore } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import { createGarbageCollector } from '../../../../src/sandbox/controllers/gc';
import { createJobController, JOBS } from '../../../../src/sandbox/controllers/job';
import { BROADCAST_JOBS, createBroadcastJobController } from '../../../../src/sandbox/controllers/broadcastjob';
import { ADVANCED_CRON_JOBS, createAdvancedCronJobController } from '../../../../src/sandbox/controllers/advancedcronjob';
import { NODES, PODS } from '../../../../src/sandbox/controllers/pods';
import { IMAGE_LIST_PULL_JOBS, createImagePullJobController } from '../../../../src/sandbox/controllers/imagepulljob';
import { ApiError } from '../../../../src/sandbox/server/errors';
import type { ContainerStatus, KubeObject, Pod } from '../../../../src/kruise/types';
import type { SimulationSettings } from '../../../../src/sandbox/store-api';

const fixture = (name: string) => parse(readFileSync(new URL(`../../../fixtures/jobs/${name}`, import.meta.url), 'utf8')) as KubeObject;

function start(opts: { nodes?: number; readyDelayMs?: number; kruise?: SimulationSettings['kruise'] } = {}) {
  const settings: SimulationSettings = { readyDelayMs: opts.readyDelayMs ?? 30, kruise: opts.kruise ?? 'v1.9', nodes: opts.nodes ?? 3, crashBackoff: 'fast' };
  return startOnStore([createNodesController(), createScheduler(), createKubelet(), createGarbageCollector(), createJobController(), createBroadcastJobController(), createAdvancedCronJobController()], settings);
}

const podsOf = (store: MemoryStore, label: string) => store.list(PODS, { namespace: 'default', labelSelector: label }) as Pod[];
const pod = (name: string, image: string, restartPolicy: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: 'node-1', restartPolicy, containers: [{ name: 'c', image }] },
});
const terminated = (cs: ContainerStatus | undefined) => cs?.state?.terminated as { exitCode?: number; reason?: string; finishedAt?: string } | undefined;

test('kubelet: a Never pod runs, then ends Succeeded (exit 0) or Failed (exit-N, crashloop); Always pods never end', async () => {
  const rt = start();
  try {
    for (const [name, image, policy] of [['ok', 'busybox:1.36', 'Never'], ['three', 'busybox:exit-3', 'Never'], ['crash', 'busybox:crashloop', 'Never'], ['always', 'busybox:exit-3', 'Always']]) rt.store.create(PODS, pod(name!, image!, policy!));
    const get = (n: string) => rt.store.get(PODS, 'default', n) as Pod;
    const ok = await waitFor('ok Succeeded', () => (get('ok').status?.phase === 'Succeeded' ? get('ok') : undefined));
    assert.deepEqual([terminated(ok.status?.containerStatuses?.[0])?.exitCode, terminated(ok.status?.containerStatuses?.[0])?.reason], [0, 'Completed']);
    assert.equal(ok.status?.containerStatuses?.[0]?.ready, false);
    assert.deepEqual(ok.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'PodCompleted');
    const three = await waitFor('exit-3 Failed', () => (get('three').status?.phase === 'Failed' ? get('three') : undefined));
    assert.deepEqual([terminated(three.status?.containerStatuses?.[0])?.exitCode, terminated(three.status?.containerStatuses?.[0])?.reason], [3, 'Error']);
    const crash = await waitFor('crashloop Failed', () => (get('crash').status?.phase === 'Failed' ? get('crash') : undefined));
    assert.equal(terminated(crash.status?.containerStatuses?.[0])?.exitCode, 1);
    assert.equal(crash.status?.containerStatuses?.[0]?.restartCount, 0, 'Never: no restart');
    // Always: the exit-N tag means nothing, the pod keeps running and ready
    const always = await waitFor('always ready', () => (get('always').status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? get('always') : undefined));
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(get('always').status?.phase, 'Running');
    assert.equal(get('always').status?.containerStatuses?.[0]?.restartCount, 0);
    assert.ok(always.status?.containerStatuses?.[0]?.state?.running);
  } finally {
    rt.stop();
  }
});

test('kubelet: an OnFailure container exiting non-zero restarts after a back-off (CrashLoopBackOff); exit 0 ends the pod', async () => {
  const rt = start();
  try {
    rt.store.create(PODS, pod('retry', 'busybox:exit-2', 'OnFailure'));
    rt.store.create(PODS, pod('fine', 'busybox:1.36', 'OnFailure'));
    const get = (n: string) => rt.store.get(PODS, 'default', n) as Pod;
    const retried = await waitFor('restarted twice', () => ((get('retry').status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 ? get('retry') : undefined));
    assert.notEqual(retried.status?.phase, 'Failed');
    assert.equal((retried.status?.containerStatuses?.[0]?.lastState as { terminated?: { exitCode?: number } } | undefined)?.terminated?.exitCode, 2);
    await waitFor('fine Succeeded', () => get('fine').status?.phase === 'Succeeded');
  } finally {
    rt.stop();
  }
});

test('Job: 3 completions 2 at a time, pods tracked by the job-tracking finalizer, SuccessCriteriaMet then Complete', async () => {
  const rt = start();
  try {
    let maxActive = 0;
    rt.store.subscribe((ev) => {
      if (ev.gr.resource === 'jobs') maxActive = Math.max(maxActive, (ev.object.status as { active?: number } | undefined)?.active ?? 0);
    });
    const created = rt.store.create(JOBS, fixture('job-report.yaml'));
    const spec = created.spec as { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } }; backoffLimit: number };
    assert.deepEqual(spec.selector.matchLabels, { 'batch.kubernetes.io/controller-uid': created.metadata.uid });
    assert.equal(spec.template.metadata.labels['job-name'], 'report');
    assert.equal(spec.backoffLimit, 6);
    const done = await waitFor('complete', () => {
      const j = rt.store.get(JOBS, 'default', 'report')!;
      return (j.status as { completionTime?: string } | undefined)?.completionTime ? j : undefined;
    });
    const status = done.status as { succeeded?: number; failed?: number; active?: number; conditions: Array<{ type: string; reason: string }>; uncountedTerminatedPods: object };
    assert.deepEqual([status.succeeded, status.failed, status.active], [3, undefined, undefined]);
    assert.deepEqual(status.conditions.map((c) => [c.type, c.reason]), [['SuccessCriteriaMet', 'CompletionsReached'], ['Complete', 'CompletionsReached']]);
    assert.deepEqual(status.uncountedTerminatedPods, {});
    assert.equal(maxActive, 2, 'parallelism 2');
    const pods = podsOf(rt.store, 'job-name=report');
    assert.equal(pods.length, 3);
    assert.ok(pods.every((p) => p.status?.phase === 'Succeeded' && !(p.metadata.finalizers ?? []).length), 'every pod released');
    assert.ok(pods.every((p) => p.metadata.ownerReferences?.[0]?.kind === 'Job' && p.metadata.ownerReferences[0].controller));
  } finally {
    rt.stop();
  }
});

test('Job: failures beyond backoffLimit → FailureTarget then Failed (BackoffLimitExceeded); the API refuses restartPolicy Always', async () => {
  const rt = start();
  try {
    const job = fixture('job-report.yaml');
    job.metadata.name = 'flaky';
    const spec = job.spec as { backoffLimit?: number; completions: number; parallelism: number; template: { spec: { restartPolicy: string; containers: Array<{ image: string }> } } };
    // one pod at a time: each failure is seen before the next pod starts
    spec.completions = 1;
    spec.parallelism = 1;
    spec.backoffLimit = 1;
    spec.template.spec.restartPolicy = 'Never';
    spec.template.spec.containers[0]!.image = 'python:exit-4';
    rt.store.create(JOBS, job);
    const failed = await waitFor('failed', () => {
      const s = rt.store.get(JOBS, 'default', 'flaky')?.status as { failed?: number; conditions?: Array<{ type: string; reason: string; message: string }> } | undefined;
      return s?.conditions?.some((c) => c.type === 'Failed') ? s : undefined;
    }, 8000);
    assert.equal(failed.failed, 2);
    assert.deepEqual(failed.conditions?.map((c) => [c.type, c.reason]), [['FailureTarget', 'BackoffLimitExceeded'], ['Failed', 'BackoffLimitExceeded']]);
    assert.equal(failed.conditions?.[1]?.message, 'Job has reached the specified backoff limit');
    const bad = fixture('job-report.yaml');
    bad.metadata.name = 'always';
    (bad.spec as { template: { spec: { restartPolicy?: string } } }).template.spec.restartPolicy = undefined;
    assert.throws(() => rt.store.create(JOBS, bad), (e: unknown) => e instanceof ApiError && e.code === 422 && /spec\.template\.spec\.restartPolicy: Required value: valid values: "OnFailure", "Never"/.test(e.message));
  } finally {
    rt.stop();
  }
});

test('BroadcastJob: one pod per node (4 nodes), pinned by node affinity; completes; a tainted node is left out', async () => {
  const rt = start({ nodes: 4 });
  try {
    const tainted = rt.store.get(NODES, undefined, 'node-4')!;
    rt.store.update(NODES, { ...tainted, spec: { ...(tainted.spec as object), taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } });
    const created = rt.store.create(BROADCAST_JOBS, fixture('broadcastjob-warm.yaml'));
    assert.deepEqual((created.spec as { failurePolicy: unknown; parallelism: number }).failurePolicy, { type: 'FailFast' }, 'the webhook defaults');
    const done = await waitFor('completed', () => {
      const j = rt.store.get(BROADCAST_JOBS, 'default', 'warm-cache')!;
      return (j.status as { phase?: string } | undefined)?.phase === 'completed' ? j : undefined;
    });
    const s = done.status as { desired: number; succeeded: number; failed: number; active: number; conditions: Array<{ type: string; message: string }> };
    assert.deepEqual([s.desired, s.succeeded, s.failed, s.active], [3, 3, 0, 0]);
    assert.equal(s.conditions.at(-1)?.message, 'Job completed, 3 pods succeeded, 0 pods failed');
    const pods = podsOf(rt.store, 'app=warm-cache');
    assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2', 'node-3']);
    assert.ok(pods.every((p) => p.metadata.labels?.['broadcastjob-controller-uid'] === created.metadata.uid));
    // the tolerating twin runs on all four
    const tolerant = fixture('broadcastjob-warm.yaml');
    tolerant.metadata.name = 'warm-all';
    (tolerant.spec as { template: { metadata: { labels: Record<string, string> }; spec: { tolerations?: unknown[] } } }).template.spec.tolerations = [{ key: 'dedicated', operator: 'Exists' }];
    (tolerant.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { app: 'warm-all' };
    rt.store.create(BROADCAST_JOBS, tolerant);
    await waitFor('4 pods', () => podsOf(rt.store, 'app=warm-all').length === 4);
  } finally {
    rt.stop();
  }
});

test('BroadcastJob: FailFast on a failed pod; parallelism 1 runs one node at a time; TTL removes a finished job and its pods', async () => {
  const rt = start({ nodes: 3 });
  try {
    rt.store.create(BROADCAST_JOBS, fixture('broadcastjob-fail.yaml'));
    const failed = await waitFor('failed', () => {
      const s = rt.store.get(BROADCAST_JOBS, 'default', 'migrate-disks')?.status as { phase?: string; conditions?: Array<{ message: string }> } | undefined;
      return s?.phase === 'failed' ? s : undefined;
    });
    assert.equal(failed.conditions?.at(-1)?.message, 'failure policy is FailurePolicyTypeFailFast and failed pod is found');

    let maxActive = 0;
    rt.store.subscribe((ev) => {
      if (ev.gr.resource === 'broadcastjobs' && ev.object.metadata.name === 'one-by-one') maxActive = Math.max(maxActive, (ev.object.status as { active?: number } | undefined)?.active ?? 0);
    });
    const serial = fixture('broadcastjob-warm.yaml');
    serial.metadata.name = 'one-by-one';
    Object.assign(serial.spec as object, { parallelism: 1, completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 0 } });
    (serial.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = { app: 'one-by-one' };
    rt.store.create(BROADCAST_JOBS, serial);
    await waitFor('deleted by its TTL', () => !rt.store.get(BROADCAST_JOBS, 'default', 'one-by-one'), 8000);
    assert.equal(maxActive, 1);
    await waitFor('its pods collected', () => podsOf(rt.store, 'app=one-by-one').length === 0);

    const bad = fixture('broadcastjob-warm.yaml');
    bad.metadata.name = 'bad';
    (bad.spec as { template: { spec: { restartPolicy?: string } } }).template.spec.restartPolicy = 'Always';
    assert.throws(() => rt.store.create(BROADCAST_JOBS, bad), (e: unknown) => e instanceof ApiError && e.code === 422 && /spec\.template\.spec\.restartPolicy: Invalid value: "Always": pod restartPolicy can only be Never or OnFailure/.test(e.message));
  } finally {
    rt.stop();
  }
});

test('AdvancedCronJob @every 1s: Jobs named <name>-<unix seconds>, owned by it, history limit 2, status type and lastScheduleTime', async () => {
  const rt = start();
  try {
    const acj = rt.store.create(ADVANCED_CRON_JOBS, fixture('advancedcronjob-job.yaml'));
    assert.deepEqual([(acj.spec as { failedJobsHistoryLimit: number }).failedJobsHistoryLimit, (acj.spec as { paused: boolean }).paused], [1, false], 'the webhook defaults');
    const jobs = await waitFor('3 runs', () => {
      const list = rt.store.list(JOBS, { namespace: 'default', labelSelector: 'app=tick' });
      return list.length >= 3 ? list : undefined;
    }, 10_000);
    for (const j of jobs) {
      const at = j.metadata.annotations?.['apps.kruise.io/scheduled-at'] ?? '';
      assert.equal(j.metadata.name, `tick-${Date.parse(at) / 1000}`);
      assert.deepEqual(j.metadata.ownerReferences?.map((r) => [r.apiVersion, r.kind, r.name, r.controller]), [['apps.kruise.io/v1beta1', 'AdvancedCronJob', 'tick', true]]);
    }
    const status = rt.store.get(ADVANCED_CRON_JOBS, 'default', 'tick')!.status as { type: string; lastScheduleTime: string };
    assert.equal(status.type, 'Job');
    assert.ok(status.lastScheduleTime);
    // successfulJobsHistoryLimit 2: the oldest finished runs go (one newer may be running at any moment)
    await waitFor('history trimmed', () => {
      const done = rt.store.list(JOBS, { namespace: 'default', labelSelector: 'app=tick' }).filter((j) => (j.status as { completionTime?: string } | undefined)?.completionTime);
      return jobs.length >= 3 && done.length <= 2 && !rt.store.get(JOBS, 'default', jobs[0]!.metadata.name ?? '');
    }, 10_000);
    // paused: no more runs
    const cur = rt.store.get(ADVANCED_CRON_JOBS, 'default', 'tick')!;
    rt.store.update(ADVANCED_CRON_JOBS, { ...cur, spec: { ...(cur.spec as object), paused: true } });
    const count = rt.store.list(JOBS, { namespace: 'default' }).length;
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(rt.store.list(JOBS, { namespace: 'default' }).length <= count, 'no run while paused');
    // the update rules: the template cannot change
    const again = rt.store.get(ADVANCED_CRON_JOBS, 'default', 'tick')!;
    const spec = structuredClone(again.spec) as { template: { jobTemplate: { spec: { template: { spec: { containers: Array<{ image: string }> } } } } } };
    spec.template.jobTemplate.spec.template.spec.containers[0]!.image = 'busybox:1.37';
    assert.throws(() => rt.store.update(ADVANCED_CRON_JOBS, { ...again, spec }), (e: unknown) => e instanceof ApiError && e.code === 422 && /spec: Forbidden: updates to advancedcronjob spec for fields other than/.test(e.message));
  } finally {
    rt.stop();
  }
});

test('AdvancedCronJob: a Job it controls shows in status.active at once on v1.3, but on v1.9 only at its next reconcile (watchJob looks for a BroadcastJob owner)', async () => {
  for (const kruise of ['v1.3', 'v1.9'] as const) {
    const rt = start({ kruise, readyDelayMs: 400 });
    try {
      const acj = fixture('advancedcronjob-job.yaml');
      (acj.spec as { schedule: string }).schedule = '0 0 1 1 *';
      // a run that lasts (slow: 5x the ready delay, twice) so it is still active when looked at
      (acj.spec as { template: { jobTemplate: { spec: { template: { spec: { containers: Array<{ image: string }> } } } } } }).template.jobTemplate.spec.template.spec.containers[0]!.image = 'busybox:slow';
      const created = rt.store.create(ADVANCED_CRON_JOBS, acj);
      await waitFor('typed', () => (rt.store.get(ADVANCED_CRON_JOBS, 'default', 'tick')?.status as { type?: string } | undefined)?.type === 'Job');
      const owner = { apiVersion: created.apiVersion ?? '', kind: 'AdvancedCronJob', name: 'tick', uid: created.metadata.uid ?? '', controller: true };
      rt.store.create(JOBS, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'manual', namespace: 'default', ownerReferences: [owner] }, spec: structuredClone((created.spec as { template: { jobTemplate: { spec: object } } }).template.jobTemplate.spec) });
      const active = () => ((rt.store.get(ADVANCED_CRON_JOBS, 'default', 'tick')?.status as { active?: Array<{ name: string }> } | undefined)?.active ?? []).map((a) => a.name);
      if (kruise === 'v1.3') {
        await waitFor('active on v1.3', () => active().includes('manual'));
      } else {
        await new Promise((r) => setTimeout(r, 300));
        assert.deepEqual(active(), [], 'v1.9 did not look');
        const cur = rt.store.get(ADVANCED_CRON_JOBS, 'default', 'tick')!;
        rt.store.update(ADVANCED_CRON_JOBS, { ...cur, metadata: { ...cur.metadata, labels: { touched: 'yes' } } });
        await waitFor('active after a change of the AdvancedCronJob', () => active().includes('manual'));
      }
    } finally {
      rt.stop();
    }
  }
});

test('AdvancedCronJob with a broadcastJobTemplate: typed BroadcastJob, timeZone validated, nothing before its first run', async () => {
  const rt = start();
  try {
    rt.store.create(ADVANCED_CRON_JOBS, fixture('advancedcronjob-broadcast.yaml'));
    await waitFor('typed', () => (rt.store.get(ADVANCED_CRON_JOBS, 'default', 'nightly-clean')?.status as { type?: string } | undefined)?.type === 'BroadcastJob');
    assert.equal(rt.store.list(BROADCAST_JOBS).length, 0);
    const bad = fixture('advancedcronjob-broadcast.yaml');
    bad.metadata.name = 'bad-zone';
    (bad.spec as { timeZone: string }).timeZone = 'Mars/Olympus';
    assert.throws(() => rt.store.create(ADVANCED_CRON_JOBS, bad), (e: unknown) => e instanceof ApiError && e.code === 422 && /spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/.test(e.message));
  } finally {
    rt.stop();
  }
});

test('AdvancedCronJob with an imageListPullJobTemplate (v1beta1, v1.9): Replace by default, ImageListPullJob runs that complete', async () => {
  const settings: SimulationSettings = { readyDelayMs: 20, kruise: 'v1.9', nodes: 2 };
  const rt = startOnStore([createNodesController(), createScheduler(), createKubelet(), createGarbageCollector(), createImagePullJobController(), createAdvancedCronJobController()], settings);
  try {
    const created = rt.store.create(ADVANCED_CRON_JOBS, {
      apiVersion: 'apps.kruise.io/v1beta1',
      kind: 'AdvancedCronJob',
      metadata: { name: 'prepull', namespace: 'default' },
      spec: { schedule: '@every 1s', template: { imageListPullJobTemplate: { spec: { images: ['busybox:1.36', 'nginx:1.27'] } } } },
    });
    assert.equal((created.spec as { concurrencyPolicy: string }).concurrencyPolicy, 'Replace');
    const run = await waitFor('a finished run', () => rt.store.list(IMAGE_LIST_PULL_JOBS, { namespace: 'default' }).find((j) => (j.status as { completionTime?: string } | undefined)?.completionTime), 8000);
    assert.match(run.metadata.name ?? '', /^prepull-\d{10}$/);
    assert.equal(run.metadata.ownerReferences?.[0]?.kind, 'AdvancedCronJob');
    assert.equal((rt.store.get(ADVANCED_CRON_JOBS, 'default', 'prepull')?.status as { type?: string } | undefined)?.type, 'ImageListPullJob');
  } finally {
    rt.stop();
  }
});

