// The job kinds end to end, on sandboxes serving the real Kruise CRDs of v1.9.0, v1.3.0 and master
// (schema validation on) with 4 nodes: a BroadcastJob runs one pod per node and `kubectl kruise rollout
// status broadcastjob/X` exits 0 once it completes (1 for one whose pods fail under FailFast); an
// AdvancedCronJob on `@every 1s` (robfig's descriptor, which Kruise's parser accepts) creates Jobs and
// BroadcastJobs; `create job|broadcastjob NAME --from advancedcronjob/X` makes a run owned by it that
// completes. Every object we create and every object the sandbox controllers write is read back in each
// served version and checked against that release's CRD schema (test/unit/kruise/builders/crd-schema.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { kubectlKruise, summary } from './rollout-helpers';
import { crdSchema, CRDS_ROOT, servedVersions, validate } from '../unit/kruise/builders/crd-schema';

const FIX = (n: string) => join(REPO_ROOT, 'test', 'fixtures', 'jobs', n);
const RELEASES = [
  { dir: 'v1.9.0', kruise: 'v1.9' },
  { dir: 'v1.3.0', kruise: 'v1.3' },
  { dir: 'master', kruise: 'master' },
];

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }> };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

async function ok(sb: Sandbox, args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, sb.kubeconfig, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const getJson = async <T = Obj>(sb: Sandbox, args: string[]): Promise<T> => JSON.parse(await ok(sb, ['get', ...args, '-o', 'json'])) as T;

/** What the cluster holds of the job kinds, for a failure message. */
async function dump(sb: Sandbox): Promise<string> {
  const r = await kubectl(['get', 'advancedcronjobs.apps.kruise.io,broadcastjobs.apps.kruise.io,jobs,pods', '-o', 'wide'], sb.kubeconfig);
  return `${r.stdout}${r.stderr}\nsandbox output:\n${sb.output().slice(-2000)}`;
}

/** waitUntil, failing with the cluster's state. */
async function eventually<T>(sb: Sandbox, what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  try {
    return await waitUntil(what, check, timeoutMs);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${await dump(sb)}`);
  }
}

/** Reads the object back in every version the release serves and checks it (status included) against that version's schema. */
async function assertValidInEveryVersion(sb: Sandbox, release: string, plural: string, name: string): Promise<void> {
  const versions = servedVersions(release, plural);
  assert.ok(versions.length > 0, `${plural} in ${release}`);
  for (const v of versions) {
    const r = await sb.api('GET', `/apis/apps.kruise.io/${v}/namespaces/default/${plural}/${name}`);
    assert.equal(r.status, 200, r.text);
    const errors = validate(crdSchema(release, plural, v)!, r.body);
    assert.deepEqual(errors, [], `${plural}/${name} as ${v} against the ${release} schema`);
  }
}

const ACJ_BROADCAST = (name: string) => `apiVersion: apps.kruise.io/v1alpha1
kind: AdvancedCronJob
metadata:
  name: ${name}
  namespace: default
spec:
  schedule: "@every 2s"
  concurrencyPolicy: Forbid
  # room for the manual run too: it counts toward the history limits, as in Kruise
  successfulJobsHistoryLimit: 5
  template:
    broadcastJobTemplate:
      spec:
        template:
          spec:
            containers:
            - name: clean
              image: busybox:1.36
            restartPolicy: OnFailure
        failurePolicy: {type: Continue, restartLimit: 2}
`;

for (const rel of RELEASES) {
  describe(`job kinds on the ${rel.dir} CRDs, 4 nodes`, { skip: !existsSync(join(CRDS_ROOT, rel.dir)) && 'no ../shared/kruise-crds' }, () => {
    let sb: Sandbox;
    before(async () => {
      sb = await startSandbox({ kruise: rel.kruise, crds: join(CRDS_ROOT, rel.dir), nodes: 4, readyDelay: 200 });
    });
    after(async () => {
      await sb?.stop();
    });

    it('a BroadcastJob runs one pod per node; kubectl kruise rollout status exits 0 once it completes', async () => {
      await ok(sb, ['apply', '-f', FIX('broadcastjob-warm.yaml')]);
      const r = await kubectlKruise(sb, ['rollout', 'status', 'broadcastjob/warm-cache', '--timeout=60s']);
      assert.equal(r.code, 0, summary(r));
      assert.equal(r.stdout.trim().split('\n').at(-1), 'broadcastjob "warm-cache" completed: 4 of 4 pods succeeded');
      const pods = (await getJson<{ items: Array<{ spec: { nodeName: string }; status: { phase: string }; metadata: Obj['metadata'] }> }>(sb, ['pods', '-l', 'app=warm-cache'])).items;
      assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2', 'node-3', 'node-4'], 'one pod per node');
      assert.ok(pods.every((p) => p.status.phase === 'Succeeded'));
      const job = await getJson(sb, ['broadcastjobs.apps.kruise.io', 'warm-cache']);
      assert.ok(pods.every((p) => p.metadata.ownerReferences?.[0]?.kind === 'BroadcastJob' && p.metadata.ownerReferences[0].uid === job.metadata.uid && p.metadata.ownerReferences[0].controller));
      assert.deepEqual([job.status?.phase, job.status?.desired, job.status?.succeeded], ['completed', 4, 4]);
      await assertValidInEveryVersion(sb, rel.dir, 'broadcastjobs', 'warm-cache');
    });

    it('a BroadcastJob whose pods fail under FailFast: rollout status exits 1 naming the failed pod; -o json ends Failed', async () => {
      await ok(sb, ['apply', '-f', FIX('broadcastjob-fail.yaml')]);
      const r = await runCli(['rollout', 'status', 'bcj/migrate-disks', '-o', 'json', '--timeout=60s'], { kubeconfig: sb.kubeconfig });
      assert.equal(r.code, 1, summary(r));
      const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { state: string; phase: string; failed: number; failedPod?: { name: string; reason: string } };
      assert.deepEqual([last.state, last.phase], ['Failed', 'failed']);
      assert.equal(last.failedPod?.reason, 'exit code 1');
      assert.match(r.stderr, /^error: broadcastjob "migrate-disks" failed: failure policy is FailurePolicyTypeFailFast and failed pod is found \(.*\); pod "migrate-disks-[a-z0-9]+" on node "node-\d": container "migrate" exited with code 1 \(Error\)\n$/);
      await assertValidInEveryVersion(sb, rel.dir, 'broadcastjobs', 'migrate-disks');
    });

    it('AdvancedCronJobs create Jobs and BroadcastJobs; create job|broadcastjob --from advancedcronjob makes runs owned by them that complete', async () => {
      await ok(sb, ['apply', '-f', FIX('advancedcronjob-job.yaml')]);
      await ok(sb, ['apply', '-f', '-'], ACJ_BROADCAST('clean'));
      const acj = await getJson(sb, ['advancedcronjobs.apps.kruise.io', 'tick']);
      const runs = await eventually(sb, '2 Jobs of the cron job', async () => {
        const items = (await getJson<{ items: Obj[] }>(sb, ['jobs', '-l', 'app=tick'])).items;
        return items.length >= 2 ? items : undefined;
      }, 20_000);
      for (const j of runs) {
        assert.equal(j.metadata.name, `tick-${Date.parse(j.metadata.annotations?.['apps.kruise.io/scheduled-at'] ?? '') / 1000}`);
        assert.deepEqual(j.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]), [['AdvancedCronJob', 'tick', acj.metadata.uid, true]]);
      }
      const child = await eventually(sb, 'a BroadcastJob of the cron job', async () => (await getJson<{ items: Obj[] }>(sb, ['broadcastjobs.apps.kruise.io'])).items.find((j) => j.metadata.ownerReferences?.[0]?.name === 'clean'), 20_000);
      assert.match(child.metadata.name, /^clean-\d{10}$/);
      // stop the schedules before the manual runs (less churn on a shared machine); a manual run counts toward the
      // history limits as in Kruise, so leave room for it
      for (const n of ['tick', 'clean']) await ok(sb, ['patch', 'advancedcronjobs.apps.kruise.io', n, '--type', 'merge', '-p', '{"spec":{"paused":true,"successfulJobsHistoryLimit":10}}']);
      await assertValidInEveryVersion(sb, rel.dir, 'advancedcronjobs', 'tick');
      await assertValidInEveryVersion(sb, rel.dir, 'advancedcronjobs', 'clean');
      await assertValidInEveryVersion(sb, rel.dir, 'broadcastjobs', child.metadata.name);
      const tick = await getJson(sb, ['advancedcronjobs.apps.kruise.io', 'tick']);
      assert.equal(tick.status?.type, 'Job');
      assert.ok(tick.status?.lastScheduleTime);

      const made = await kubectlKruise(sb, ['create', 'job', 'j1', '--from', 'advancedcronjob/tick']);
      assert.equal(made.code, 0, summary(made));
      assert.equal(made.stdout, 'job.batch/j1 created\n');
      const done = await kubectl(['wait', '--for=condition=complete', 'job/j1', '--timeout=30s'], sb.kubeconfig);
      assert.equal(done.code, 0, `${done.stderr}\n${await dump(sb)}`);
      const j1 = await getJson(sb, ['job', 'j1']);
      assert.deepEqual(j1.metadata.ownerReferences, [{ apiVersion: tick.apiVersion, kind: 'AdvancedCronJob', name: 'tick', uid: tick.metadata.uid, controller: true }]);
      assert.equal(j1.metadata.annotations?.['cronjob.kubernetes.io/instantiate'], 'manual');
      assert.equal(j1.metadata.labels?.app, 'tick', "the template's labels");

      const b = await kubectlKruise(sb, ['create', 'broadcastjob', 'b1', '--from', 'acj/clean']);
      assert.equal(b.code, 0, summary(b));
      assert.equal(b.stdout, 'broadcastjob.apps.kruise.io/b1 created\n');
      const waited = await kubectlKruise(sb, ['rollout', 'status', 'bcj/b1', '--timeout=60s']);
      assert.equal(waited.code, 0, `${summary(waited)}\n${await dump(sb)}`);
      const b1 = await getJson(sb, ['broadcastjobs.apps.kruise.io', 'b1']);
      assert.equal(b1.metadata.ownerReferences?.[0]?.uid, (await getJson(sb, ['advancedcronjobs.apps.kruise.io', 'clean'])).metadata.uid);
      assert.equal(b1.status?.succeeded, 4);
      await assertValidInEveryVersion(sb, rel.dir, 'broadcastjobs', 'b1');
    });
  });
}

describe('create job|broadcastjob and rollout status broadcastjob: input errors, dry runs, cronjob, requests (v1.9.0 CRDs)', { skip: !existsSync(join(CRDS_ROOT, 'v1.9.0')) && 'no ../shared/kruise-crds' }, () => {
  let sb: Sandbox;
  const cli = (args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig });
  const writes = () => sb.audit().filter((e) => e.method === 'POST' || e.method === 'PUT' || e.method === 'PATCH' || e.method === 'DELETE');
  before(async () => {
    sb = await startSandbox({ kruise: 'v1.9', crds: join(CRDS_ROOT, 'v1.9.0'), nodes: 2, readyDelay: 200 });
    await ok(sb, ['apply', '-f', FIX('advancedcronjob-broadcast.yaml')]);
    await ok(sb, ['apply', '-f', '-'], ACJ_BROADCAST('idle').replace('"@every 2s"', '"0 0 1 1 *"'));
    await ok(sb, ['create', 'cronjob', 'report', '--image=busybox:1.36', '--schedule=0 * * * *', '--', 'date']);
    // a job template without restartPolicy: Kruise's webhook defaults it to Always, which the Job API refuses
    await ok(sb, ['apply', '-f', FIX('advancedcronjob-job.yaml')]);
    await ok(sb, ['patch', 'advancedcronjobs.apps.kruise.io', 'tick', '--type', 'merge', '-p', '{"spec":{"paused":true}}']);
    await ok(sb, ['apply', '-f', '-'], `apiVersion: apps.kruise.io/v1beta1
kind: AdvancedCronJob
metadata: {name: always, namespace: default}
spec:
  schedule: "0 0 1 1 *"
  template:
    jobTemplate:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox:1.36}]
`);
    // the discovery cache is warm for the counts below
    assert.equal((await cli(['create', 'job', 'warmup', '--from', 'acj/nightly-clean', '--dry-run=client'])).code, 2);
  });
  after(async () => {
    await sb?.stop();
  });

  it('one GET and one POST per run; the Job from a CronJob is owned by it (batch/v1) and completes', async () => {
    sb.clearAudit();
    const r = await cli(['create', 'broadcastjob', 'now', '--from', 'advancedcronjob/idle']);
    assert.equal(r.code, 0, summary(r));
    assert.deepEqual(sb.audit().map((e) => `${e.method} ${e.path}`), ['GET /apis/apps.kruise.io/v1beta1/namespaces/default/advancedcronjobs/idle', 'POST /apis/apps.kruise.io/v1beta1/namespaces/default/broadcastjobs']);
    const fromCron = await cli(['create', 'job', 'report-now', '--from', 'cronjob/report']);
    assert.equal(fromCron.code, 0, summary(fromCron));
    const job = await getJson(sb, ['job', 'report-now']);
    const cron = await getJson(sb, ['cronjob', 'report']);
    assert.deepEqual(job.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'report', uid: cron.metadata.uid, controller: true }]);
    assert.equal((await kubectl(['wait', '--for=condition=complete', 'job/report-now', '--timeout=30s'], sb.kubeconfig)).code, 0);
  });

  it('the wrong template kind, a refused template, a bad --from or name: exit 2, one line, nothing written', async () => {
    sb.clearAudit();
    const wrong = await cli(['create', 'job', 'j2', '--from', 'acj/nightly-clean']);
    assert.equal(wrong.code, 2, summary(wrong));
    assert.equal(wrong.stderr, 'error: advancedcronjob "nightly-clean" holds a broadcastJobTemplate, not a jobTemplate: it runs BroadcastJobs; nothing was created\nhint: kubectl kruise create broadcastjob j2 --from acj/nightly-clean\n');
    assert.deepEqual(writes(), []);
    sb.clearAudit();
    for (const [args, message] of [
      [['create', 'job', 'j3', '--from', 'deployment/web'], /^error: --from must name advancedcronjob\/NAME \(acj\) or cronjob\/NAME \(cj\), not "deployment\/web"\n$/],
      [['create', 'broadcastjob', 'b3', '--from', 'cronjob/report'], /^error: --from must name advancedcronjob\/NAME \(acj\), not "cronjob\/report"\n$/],
      [['create', 'broadcastjob', 'b.3', '--from', 'acj/idle'], /^error: invalid name "b\.3": BroadcastJob name must consist of alphanumeric characters or '-'/],
      [['create', 'job', 'j4'], /^error: either --image or --from must be specified\n$/],
      [['create', 'job', 'j5', '--from', 'acj/idle', '--', 'date'], /^error: cannot specify --from and command\n$/],
      [['create', 'job', 'x'.repeat(64), '--image', 'busybox'], /must be no more than 63 characters/],
    ] as const) {
      const r = await cli([...args]);
      assert.equal(r.code, 2, summary(r));
      assert.match(r.stderr, message);
    }
    assert.deepEqual(sb.audit(), [], 'caught before any request');
    const refused = await cli(['create', 'job', 'j6', '--from', 'acj/always']);
    assert.equal(refused.code, 2, summary(refused));
    assert.equal(refused.stderr, 'error: the jobTemplate of advancedcronjob "always" cannot make a Job: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"; nothing was created\n');
    assert.deepEqual(writes(), []);
    const exists = await cli(['create', 'job', 'report-now', '--from', 'cronjob/report']);
    assert.equal(exists.code, 1, summary(exists));
    assert.equal(exists.stderr, 'error: jobs.batch "report-now" already exists\n');
  });

  it('--dry-run=client sends only the GET; --dry-run=server stores nothing; -o yaml prints the run', async () => {
    sb.clearAudit();
    const client = await cli(['create', 'broadcastjob', 'dry', '--from', 'acj/idle', '--dry-run=client', '-o', 'yaml']);
    assert.equal(client.code, 0, summary(client));
    assert.match(client.stdout, /^apiVersion: apps\.kruise\.io\/v1beta1\nkind: BroadcastJob\n/);
    assert.match(client.stdout, /cronjob\.kubernetes\.io\/instantiate: manual/);
    assert.deepEqual(writes(), []);
    const server = await cli(['create', 'broadcastjob', 'dry', '--from', 'acj/idle', '--dry-run=server']);
    assert.equal(server.stdout, 'broadcastjob.apps.kruise.io/dry created (server dry run)\n');
    assert.ok(writes().every((e) => /dryRun=All/.test(e.query)));
    assert.equal((await sb.api('GET', '/apis/apps.kruise.io/v1beta1/namespaces/default/broadcastjobs/dry')).status, 404);
  });

  it('rollout status broadcastjob: --watch=false exits 4 while it runs, --timeout exits 3; a finished one costs 1 request', async () => {
    const slow = await cli(['create', 'broadcastjob', 'slow', '--image', 'busybox:slow']);
    assert.equal(slow.code, 0, summary(slow));
    const once = await cli(['rollout', 'status', 'bcj/slow', '--watch=false']);
    assert.equal(once.code, 4, summary(once));
    assert.match(once.stdout, /^Waiting for broadcastjob "slow" to complete: 0 of 2 pods succeeded, 2 active\.\.\.\n$/);
    const timeout = await cli(['rollout', 'status', 'bcj/slow', '--timeout=500ms']);
    assert.equal(timeout.code, 3, summary(timeout));
    assert.match(timeout.stderr, /^error: timed out waiting for broadcastjob "slow" to complete: /);
    sb.clearAudit();
    const full = await cli(['rollout', 'status', 'bcj/slow', '-o', 'json', '--timeout=60s']);
    assert.equal(full.code, 0, summary(full));
    const lines = full.stdout.trim().split('\n').map((l) => JSON.parse(l) as { state: string; succeeded: number; desired: number });
    assert.deepEqual(lines.at(-1), { kind: 'BroadcastJob', apiVersion: 'apps.kruise.io/v1beta1', namespace: 'default', name: 'slow', state: 'Complete', desired: 2, active: 0, succeeded: 2, failed: 0, phase: 'completed', message: 'broadcastjob "slow" completed: 2 of 2 pods succeeded' });
    assert.ok(lines.slice(0, -1).every((l) => l.state === 'Progressing'));
    // watched, never polled: one list and one watch of the job, the same of its pods
    const requests = sb.audit().map((e) => `${e.verb} ${e.path.replace(/^\/api(s\/[^/]+)?\/v\w+\/namespaces\/default\//, '')}`);
    assert.deepEqual([...requests].sort(), ['list broadcastjobs', 'list pods', 'watch broadcastjobs', 'watch pods'], requests.join(', '));
    sb.clearAudit();
    const again = await cli(['rollout', 'status', 'broadcastjob/slow']);
    assert.equal(again.code, 0, summary(again));
    assert.equal(again.stdout, 'broadcastjob "slow" completed: 2 of 2 pods succeeded\n');
    assert.deepEqual(sb.audit().map((e) => e.verb), ['list'], 'a finished job costs one list');
  });

  it('completion: the verbs, the cron jobs after --from, broadcastjob/ for rollout status', async () => {
    const complete = async (...words: string[]): Promise<string[]> => {
      const r = await cli(['__complete', ...words]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim().split('\n');
    };
    assert.deepEqual(await complete('create', ''), ['pps', 'job', 'broadcastjob', ':4']);
    assert.deepEqual(await complete('create', 'job', 'x', '--from', ''), ['advancedcronjob/', 'cronjob/', ':6']);
    assert.deepEqual(await complete('create', 'broadcastjob', 'x', '--from', ''), ['advancedcronjob/', ':6']);
    assert.ok((await complete('create', 'job', 'x', '--from', 'advancedcronjob/')).includes('advancedcronjob/always'));
    assert.ok((await complete('rollout', 'status', 'b')).includes('broadcastjob/'));
    assert.ok((await complete('rollout', 'status', 'broadcastjob/')).includes('broadcastjob/slow'));
  });
});
