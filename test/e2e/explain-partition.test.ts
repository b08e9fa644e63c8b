// explain partition, offline: the CLI as users run it (subprocess of bin/kubectl-kruise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAUNCHER, npmFormOnly, REPO_ROOT, runCli, testEnv } from '../helpers/cli';

const fixture = (p: string): string => join(REPO_ROOT, 'test', 'fixtures', p);
const json = (s: string): Record<string, unknown> => JSON.parse(s) as Record<string, unknown>;

test('8 replicas, partition 90%: 7 kept, expectedUpdatedReplicas 1 (contract JSON)', async () => {
  const r = await runCli(['explain', 'partition', '--replicas', '8', '--partition', '90%', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = json(r.stdout);
  // the contract's keys in its order, then `chain` (the arrow line of the text output)
  assert.deepEqual(Object.keys(out), ['kind', 'replicas', 'partition', 'partitionReplicas', 'expectedUpdatedReplicas', 'maxUnavailable', 'maxSurge', 'rules', 'warnings', 'chain']);
  assert.equal(out.expectedUpdatedReplicas, 1);
  assert.equal(out.partitionReplicas, 7);
  assert.equal(out.replicas, 8);
  assert.equal(out.partition, '90%');
  assert.equal(out.maxUnavailable, 2);
  assert.equal(out.maxSurge, 0);
  assert.ok((out.rules as string[]).some((x) => /at least one pod/.test(x)));
});

test('human output reads as the chain of rules', async () => {
  const r = await runCli(['explain', 'partition', '--replicas=8', '--partition=90%']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /8 replicas, partition 90% → 7\.2 → rounded up to 8 → a percentage below 100% updates at least one pod → 7 pods stay at the old revision → expectedUpdatedReplicas 1/,
  );
  assert.match(r.stdout, /maxUnavailable 2, maxSurge 0/);
});

test('--replicas absent means 1; --plan adds the batch table and a plan array', async () => {
  const one = json((await runCli(['explain', 'partition', '--partition', '50%', '-o', 'json'])).stdout);
  assert.equal(one.replicas, 1);
  assert.equal(one.partitionReplicas, 1);
  // The assumption is said (stderr, so -o json stays parseable), and counts of one read as such.
  const assumed = await runCli(['explain', 'partition', '--partition', '3']);
  assert.equal(assumed.code, 0, assumed.stderr);
  assert.equal(assumed.stderr, "note: --replicas not given: assuming 1 (Kruise's default for spec.replicas)\n");
  assert.match(assumed.stdout, /^CloneSet: 1 replica, partition 3 → replicas unset = 1 → clamped to replicas 1 → 1 pod stays at the old revision → expectedUpdatedReplicas 0$/m);
  assert.match(assumed.stdout, /- 3 is more than the 1 replica: clamped to 1$/m);
  assert.doesNotMatch(assumed.stdout, /\b1 (replicas|stay)\b/);
  const given = await runCli(['explain', 'partition', '--partition', '3', '--replicas', '1']);
  assert.equal(given.stderr, '');
  const r = await runCli(['explain', 'partition', '--replicas', '10', '--plan', '80%,50%,0', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const plan = json(r.stdout).plan as Array<Record<string, unknown>>;
  assert.deepEqual(plan.map((s) => [s.partition, s.updatedReplicas, s.updatedInStep]), [['80%', 2, 2], ['50%', 5, 3], [0, 10, 5]]);
  const text = await runCli(['explain', 'partition', '--replicas', '10', '--plan', '80%,50%,0']);
  assert.match(text.stdout, /STEP\s+PARTITION\s+KEPT-OLD\s+AT-NEW-REVISION\s+UPDATED-IN-STEP\s+MAX-UNAVAILABLE/);
});

test('a manifest with a quoted "99" exits 2 naming the object; unquoted 99 is an integer', async () => {
  const bad = await runCli(['explain', 'partition', '-f', fixture('bad-input/quoted-partition.yaml')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: invalid partition "99" in CloneSet "web".*not a percentage/);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  const dir = mkdtempSync(join(tmpdir(), 'kk-explain-'));
  const file = join(dir, 'cs.yaml');
  writeFileSync(file, readFileSync(fixture('bad-input/quoted-partition.yaml'), 'utf8').replace('partition: "99"', 'partition: 99'));
  const ok = await runCli(['explain', 'partition', '-f', file, '-o', 'json']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(json(ok.stdout).partitionReplicas, 8);
  assert.equal(json(ok.stdout).partition, 99);
});

test('manifests of each kind use their own rules', async () => {
  const asts = json((await runCli(['explain', 'partition', '-f', fixture('workloads/asts-v1beta1.yaml'), '-o', 'json'])).stdout);
  assert.deepEqual([asts.kind, asts.partitionReplicas, asts.expectedUpdatedReplicas, asts.maxUnavailable], ['asts', 2, 3, 2]);
  const ads = json((await runCli(['explain', 'partition', '-f', fixture('workloads/ads-v1beta1.yaml'), '-o', 'json'])).stdout);
  assert.deepEqual([ads.kind, ads.replicas, ads.partitionReplicas, ads.maxSurge], ['ads', 5, 2, 1]);
  const sts = json((await runCli(['explain', 'partition', '-f', fixture('workloads/statefulset.yaml'), '-o', 'json'])).stdout);
  assert.deepEqual([sts.kind, sts.partitionReplicas, sts.expectedUpdatedReplicas], ['statefulset', 3, 2]);
  const beta = json((await runCli(['explain', 'partition', '-f', fixture('workloads/cloneset-v1beta1.yaml'), '-o', 'json'])).stdout);
  assert.deepEqual([beta.kind, beta.partitionReplicas, beta.maxUnavailable, beta.maxSurge], ['cloneset', 7, 1, 1]);
  const asFlag = json((await runCli(['explain', 'partition', '--kind', 'asts', '--replicas', '5', '--partition', '2', '-o', 'json'])).stdout);
  assert.equal(asFlag.expectedUpdatedReplicas, 3);
  // Kruise master's calculateStatus counts rollingUpdate.partition under OnDelete too (cloneset_status.go).
  const onDelete = json((await runCli(['explain', 'partition', '-f', fixture('workloads/cloneset-v1beta1-ondelete-partition.yaml'), '-o', 'json'])).stdout);
  assert.deepEqual([onDelete.partitionReplicas, onDelete.expectedUpdatedReplicas], [2, 3]);
  // An Advanced DaemonSet partition Kruise's webhook refuses ("12.5%") is an input error, as for the CloneSet's "99".
  const decimal = await runCli(['explain', 'partition', '--kind', 'ads', '--replicas', '8', '--partition', '12.5%']);
  assert.equal(decimal.code, 2, decimal.stdout);
  assert.match(decimal.stderr, /^error: invalid partition "12\.5%": a valid percent string must be a numeric string followed by an ending '%'/);
});

test('a multi-object file explains each workload with a partition and skips the others', async () => {
  const r = await runCli(['explain', 'partition', '-f', fixture('set/two-workloads.yaml'), '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as unknown;
  const list = Array.isArray(out) ? out : [out];
  assert.equal(list.length, 1);
  assert.equal((list[0] as Record<string, unknown>).kind, 'cloneset');
  assert.match(r.stderr, /skipped Deployment "back": no partition/);
});

test('invalid values exit 2 with one line and nothing else', async () => {
  for (const args of [
    ['--partition', '99x', '--replicas', '8', '--kind', 'ads'],
    ['--partition', '150%', '--replicas', '8', '--kind', 'ads'],
    ['--partition', '90#'],
    ['--partition', '%'],
    ['--partition', '#%'],
    ['--partition', '-1'],
    ['--replicas', 'eight'],
    ['--kind', 'deployment'],
    ['--max-unavailable', '0', '--max-surge', '0', '--replicas', '4'],
    ['--kind', 'asts', '--partition', '50%'],
    ['--plan', '50%,,0'],
    ['-o', 'wide'], // -o takes json, yaml and kyaml
    ['-f', fixture('workloads/deployment.yaml')],
  ]) {
    const r = await runCli(['explain', 'partition', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^error: /, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
  const s99 = await runCli(['explain', 'partition', '--partition', '99%', '--replicas', '8', '-o', 'json']);
  assert.equal(json(s99.stdout).expectedUpdatedReplicas, 1);
});

test('controller-parser surprises are warned about', async () => {
  const r = await runCli(['explain', 'partition', '--replicas', '8', '--partition', '50%', '--max-unavailable', '12.5%', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = json(r.stdout);
  assert.equal(out.maxUnavailable, 0);
  assert.ok((out.warnings as string[]).some((w) => /read as 0 by the controller/.test(w)));
});

test('the offline form never loads the Kubernetes client or the network stack', { skip: npmFormOnly('a --require hook records what Node loads; the executable has one file and no --require') }, () => {
  // A preloaded script records, at exit, the files the process required and the built-ins it loaded.
  const dir = mkdtempSync(join(tmpdir(), 'kk-explain-hook-'));
  const log = join(dir, 'loaded.txt');
  writeFileSync(
    join(dir, 'record.cjs'),
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, [...Object.keys(require.cache), ...process.moduleLoadList].join('\\n')));\n`,
  );
  const r = spawnSync(process.execPath, ['--require', join(dir, 'record.cjs'), LAUNCHER, 'explain', 'partition', '--replicas', '8', '--partition', '90%', '-o', 'json'], {
    env: testEnv(undefined, { KUBECONFIG: '/nonexistent/kubeconfig' }),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(json(r.stdout).maxUnavailable !== undefined, true);
  const loaded = readFileSync(log, 'utf8').split('\n');
  assert.ok(loaded.some((l) => l.endsWith('bin/kubectl-kruise')), 'the recorder saw the launcher (it works)');
  assert.deepEqual(loaded.filter((l) => /vendor\/|sandbox\.cjs|^NativeModule (http|https|net|tls|tty)$/.test(l)), []);
});
