// `why --fix` when the workload changes between the read and the write (engine/why-fix.ts on
// kube/conflict.ts decideAndWrite): the conditional patch is refused (422, a `test` op failed), the workload
// is read again and the restore decided again on what is there now: nothing restored twice, nothing
// overwritten; a release that started meanwhile stops it with nothing written. Fixture:
// test/fixtures/why/deployment-recreate-leftover.yaml (a partition-style leftover).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CliError } from '../../../src/cli/exit';
import { restoreLeftovers } from '../../../src/engine/why-fix';
import { apiError } from '../../../src/kube/errors';
import type { JsonPatchOp } from '../../../src/kruise/containers';
import type { KubeObject } from '../../../src/kruise/types';

const leftover = parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'why', 'deployment-recreate-leftover.yaml'), 'utf8')) as KubeObject;
/** kube-apiserver's answer to a JSON patch whose `test` op failed (kube/conflict.ts isFailedPatchTest). */
const failedTest = () =>
  apiError(422, 'Unprocessable Entity', JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422, message: 'the server rejected our request due to an error in our request' }), { verb: 'patch', group: 'apps', resource: 'deployments', name: 'web', namespace: 'default' });
const noSleep = { sleep: async () => undefined };

function io(reads: Array<{ workload: KubeObject; rollout?: Record<string, unknown> }>, refuse: number) {
  const sent: Array<{ ops: JsonPatchOp[]; dryRun: boolean }> = [];
  return {
    sent,
    io: {
      read: async () => reads.shift()!,
      patch: async (ops: JsonPatchOp[], dryRun: boolean) => {
        sent.push({ ops, dryRun });
        if (sent.length <= refuse) throw failedTest();
        return {};
      },
    },
  };
}

test('why --fix: resumed by someone else between read and write, it is read again and only what is still left is restored', async () => {
  const resumed = structuredClone(leftover);
  (resumed.spec as Record<string, unknown>).paused = false;
  const { io: fake, sent } = io([{ workload: leftover }, { workload: resumed }], 1);
  const r = await restoreLeftovers(fake, 'deployment/web', noSleep);
  assert.equal(r.reads, 2);
  assert.deepEqual(sent.map((s) => s.dryRun), [true, true, false]);
  const [refused, , written] = sent.map((s) => s.ops);
  assert.ok(refused!.some((o) => o.op === 'test' && o.path === '/spec/paused' && o.value === true), 'the first write rested on paused: true');
  assert.ok(!written!.some((o) => o.path === '/spec/paused'), 'paused is not written again');
  assert.ok(written!.some((o) => o.op === 'replace' && o.path === '/spec/strategy/type' && o.value === 'RollingUpdate'));
  assert.doesNotMatch(r.restored!.reasons.join('; '), /paused/);
});

test('why --fix: a release that started between read and write stops it, nothing written; restored meanwhile is nothing to do', async () => {
  const live = { metadata: { name: 'web' }, status: { phase: 'Progressing' } };
  const started = io([{ workload: leftover }, { workload: leftover, rollout: live }], 1);
  await assert.rejects(restoreLeftovers(started.io, 'deployment/web', noSleep), (e: unknown) => e instanceof CliError && e.exitCode === 1 && e.message === 'deployment/web: a Kruise Rollout release is in progress (rollout/web); --fix refused');
  assert.deepEqual(started.sent.map((s) => s.dryRun), [true], 'only the refused dry run');
  const clean = structuredClone(leftover);
  clean.metadata.annotations = {};
  clean.metadata.labels = {};
  clean.spec = { ...(clean.spec as object), paused: false, strategy: { type: 'RollingUpdate' } };
  const done = io([{ workload: leftover }, { workload: clean }], 1);
  const r = await restoreLeftovers(done.io, 'deployment/web', noSleep);
  assert.equal(r.restored, undefined);
  assert.equal(done.sent.length, 1);
});
