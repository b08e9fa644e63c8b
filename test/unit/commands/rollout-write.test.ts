// writeRollout (src/commands/rollout/rollout-write.ts) against a scripted KubeClient that applies JSON patches
// as kube-apiserver does (a failed `test` is a bare 422): the approval is conditional on the step, its state and
// the revision read; when the server refuses it (the controller or another approval moved the release on between
// our read and our write) it reads again and writes again only while the step decided on still waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient, KubeObject, ResourceType } from '../../../src/kube/client';
import { CliError } from '../../../src/cli/exit';
import { KubeApiError } from '../../../src/kube/errors';
import { approvePatch } from '../../../src/kruise/rollout/patches';
import { reasonDetail, writeRollout } from '../../../src/commands/rollout/rollout-write';
import { workloadRefText, workloadTypeOf } from '../../../src/commands/rollout/kruise-rollout';
import { loadKind } from '../kruise/rollout/helpers';
import { jsonPatch, JsonPatchError } from '../../../src/lib/json-patch';

/** kube-apiserver's whole answer to a JSON patch whose `test` fails (kube/conflict.ts). */
const REJECTED = 'the server rejected our request due to an error in our request';

const ROLLOUTS: ResourceType = { group: 'rollouts.kruise.io', version: 'v1beta1', resource: 'rollouts', kind: 'Rollout', namespaced: true };

function fake(stored: KubeObject, onPatch: (n: number, body: any) => void) {
  const calls: string[] = [];
  let current = structuredClone(stored);
  let patches = 0;
  const client = {
    namespace: 'shop',
    async get(_rt: ResourceType, name: string) {
      calls.push(`get ${name}`);
      return structuredClone(current);
    },
    async patch(_rt: ResourceType, name: string, type: string, body: any, _ns?: string, opts?: { subresource?: string }) {
      calls.push(`patch ${name}/${opts?.subresource ?? ''} ${type}`);
      onPatch(++patches, body);
      try {
        current = jsonPatch(current, body) as KubeObject;
      } catch (err) {
        if (!(err instanceof JsonPatchError)) throw err;
        throw new KubeApiError(REJECTED, 422, 'Invalid', { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: REJECTED, reason: 'Invalid', code: 422, details: {} } as any);
      }
      return current;
    },
    set(o: KubeObject) {
      current = o;
    },
  };
  return { client: client as unknown as KubeClient & { set(o: KubeObject): void }, calls };
}

const target = { rt: ROLLOUTS, name: 'demo', namespace: 'shop' };
const opts = {
  verb: 'approve',
  dryRun: 'none' as const,
  decide: approvePatch,
  nothing: (_r: KubeObject, reason: string) => `rollout/demo: nothing to approve (${reasonDetail(reason)})`,
  permission: () => 'the "patch" verb on "rollouts/status"',
};

test('approve: one status JSON patch, conditional on the step read', async () => {
  const { client, calls } = fake(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), () => undefined);
  const done = await writeRollout(client, target, opts);
  assert.equal(done.description, 'rollout "demo" approved at step 1/3');
  assert.deepEqual(calls, ['get demo', 'patch demo/status json']);
});

test('approve: 409 because the controller moved to the next step → read again and refuse (the step decided on is gone), no second PATCH', async () => {
  const paused = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout') as any;
  const { client, calls } = fake(paused, (n) => {
    if (n === 1) {
      const moved = structuredClone(paused);
      moved.metadata.resourceVersion = '4712';
      moved.status.canaryStatus.currentStepIndex = 2;
      moved.status.canaryStatus.currentStepState = 'StepUpgrade';
      client.set(moved);
    }
  });
  await assert.rejects(writeRollout(client, target, opts), (e: unknown) => e instanceof CliError && e.exitCode === 1 && e.message === 'rollout "demo": step 1 was already approved; the release is at step 2/3 StepUpgrade');
  assert.deepEqual(calls, ['get demo', 'patch demo/status json', 'get demo']);
});

// Issue #26: two approvals at once. The loser's 409 re-read finds the NEXT step waiting for approval: re-deciding on
// it (as before) promoted step 2 without anyone having seen it. Now it refuses, naming where the release is.
test('approve: 409, and the next step already waits for approval → exit 1 saying so, step 2 not approved', async () => {
  const paused = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout') as any;
  const { client, calls } = fake(paused, (n) => {
    if (n === 1) {
      const next = structuredClone(paused);
      next.metadata.resourceVersion = '4720';
      next.status.canaryStatus.currentStepIndex = 2;
      next.status.canaryStatus.currentStepState = 'StepPaused';
      client.set(next);
    }
  });
  await assert.rejects(writeRollout(client, target, opts), (e: unknown) => e instanceof CliError && e.exitCode === 1 && e.message === 'rollout "demo": step 1 was already approved; the release is at step 2/3 StepPaused: run approve again to promote step 2');
  assert.deepEqual(calls, ['get demo', 'patch demo/status json', 'get demo']);
});

test('approve: an unrelated status write between our read and our write does not refuse it (no resourceVersion guard): one write', async () => {
  const paused = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout') as any;
  const { client, calls } = fake(paused, (n) => {
    if (n === 1) {
      const touched = structuredClone(paused);
      touched.metadata.resourceVersion = '4713';
      touched.status.canaryStatus.lastUpdateTime = '2026-11-25T01:00:05Z';
      client.set(touched);
    }
  });
  const done = await writeRollout(client, target, opts);
  assert.equal(done.description, 'rollout "demo" approved at step 1/3');
  assert.deepEqual(calls, ['get demo', 'patch demo/status json']);
});

test('approve: a 409 (say, a webhook or a stale cache) with the same step still waiting → read again, the approval goes again, once', async () => {
  const paused = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout') as any;
  let refused = false;
  const { client, calls } = fake(paused, (n) => {
    if (n === 1 && !refused) {
      refused = true;
      throw new KubeApiError('Operation cannot be fulfilled on rollouts.rollouts.kruise.io "demo": the object has been modified', 409, 'Conflict', undefined);
    }
  });
  const done = await writeRollout(client, target, opts);
  assert.equal(done.description, 'rollout "demo" approved at step 1/3');
  assert.deepEqual(calls, ['get demo', 'patch demo/status json', 'get demo', 'patch demo/status json']);
});

test('approve: a new release (another revision) stopped at the same step between our read and our write → refused, exit 1, not approved', async () => {
  const paused = loadKind('v1beta1-canary-manual-step.yaml', 'Rollout') as any;
  const { client, calls } = fake(paused, (n) => {
    if (n === 1) {
      const next = structuredClone(paused);
      next.status.canaryStatus.canaryRevision = 'demo-5c8f9d7b6';
      client.set(next);
    }
  });
  await assert.rejects(writeRollout(client, target, opts), (e: unknown) => e instanceof CliError && e.exitCode === 1 && /a new release \(revision demo-5c8f9d7b6\) replaced the one read/.test(e.message));
  assert.deepEqual(calls, ['get demo', 'patch demo/status json', 'get demo']);
});

test('a 403 names the permission the write needs', async () => {
  const { client } = fake(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), () => {
    throw new KubeApiError('viewer cannot patch rollouts/status.rollouts.kruise.io in namespace shop', 403, 'Forbidden', undefined);
  });
  await assert.rejects(writeRollout(client, target, opts), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.message, 'rollout/demo: not approved: viewer cannot patch rollouts/status.rollouts.kruise.io in namespace shop');
    assert.equal(e.hint, 'hint: this needs the "patch" verb on "rollouts/status" (group rollouts.kruise.io) in namespace "shop"');
    return true;
  });
});

test('workload references: how the user types them, and the resource type a Rollout points at (its own apiVersion)', () => {
  assert.equal(workloadRefText({ group: 'apps.kruise.io', kind: 'StatefulSet' }, 'db'), 'asts/db');
  assert.equal(workloadRefText({ group: 'apps', kind: 'StatefulSet' }, 'db'), 'statefulset/db');
  assert.equal(workloadRefText({ group: 'apps.kruise.io', kind: 'CloneSet' }, 'web'), 'cloneset/web');
  const rt = workloadTypeOf(loadKind('v1alpha1-canary-manual-step.yaml', 'Rollout'));
  assert.deepEqual(rt && [rt.group, rt.version, rt.resource], ['apps.kruise.io', 'v1alpha1', 'clonesets']);
  assert.equal(reasonDetail('rollout "demo" is not waiting for approval (phase Initial)'), 'phase Initial');
});
