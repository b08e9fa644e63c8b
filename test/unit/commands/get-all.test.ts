// `get all` (src/commands/get/all.ts) against a scripted KubeClient: which kinds are listed (served ones
// only), how many lists run at once (concurrent, at most GET_ALL_CONCURRENCY), tables printed in the fixed
// kind order whatever order the lists finish in, a kind whose list says 404 skipped, other errors surfaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { CommandContext } from '../../../src/cli/context';
import { defaultGlobals } from '../../../src/cli/globals';
import type { KubeClient, KubeTable, ResourceType } from '../../../src/kube/client';
import { KubeApiError } from '../../../src/kube/errors';
import { run } from '../../../src/commands/get/all';
import { GET_ALL_CONCURRENCY, GET_ALL_KINDS } from '../../../src/commands/get/all-kinds';

const KIND: Record<string, string> = { clonesets: 'CloneSet', statefulsets: 'StatefulSet', daemonsets: 'DaemonSet', sidecarsets: 'SidecarSet', uniteddeployments: 'UnitedDeployment', broadcastjobs: 'BroadcastJob', advancedcronjobs: 'AdvancedCronJob', imagepulljobs: 'ImagePullJob', containerrecreaterequests: 'ContainerRecreateRequest', persistentpodstates: 'PersistentPodState', workloadspreads: 'WorkloadSpread', podunavailablebudgets: 'PodUnavailableBudget', rollouts: 'Rollout' };

interface Script {
  served: (resource: string) => boolean;
  /** ms before the list of this resource answers (finishing out of order). */
  delay?: (resource: string) => number;
  fail?: (resource: string) => Error | undefined;
}

function fakeClient(s: Script): { client: KubeClient; listed: Array<{ resource: string; namespace?: string }>; maxInFlight: () => number } {
  const listed: Array<{ resource: string; namespace?: string }> = [];
  let inFlight = 0;
  let max = 0;
  const client = {
    namespace: 'shop',
    async discovered(group: string, resource: string): Promise<ResourceType | undefined> {
      if (!s.served(resource)) return undefined;
      return { group, version: 'v1alpha1', resource, kind: KIND[resource]!, namespaced: resource !== 'sidecarsets' };
    },
    async listTable(rt: ResourceType, namespace: string | undefined): Promise<KubeTable> {
      listed.push({ resource: rt.resource, namespace });
      inFlight++;
      max = Math.max(max, inFlight);
      try {
        await new Promise((r) => setTimeout(r, s.delay?.(rt.resource) ?? 5));
        const err = s.fail?.(rt.resource);
        if (err) throw err;
        return { columnDefinitions: [{ name: 'Name', type: 'string', format: 'name' }, { name: 'Age', type: 'date' }], rows: [{ cells: [`${rt.resource}-1`, '1s'], object: { metadata: { name: `${rt.resource}-1`, namespace: 'shop' } } }] };
      } finally {
        inFlight--;
      }
    },
    close() {},
  } as unknown as KubeClient;
  return { client, listed, maxInFlight: () => max };
}

function fakeContext(client: KubeClient): { ctx: CommandContext; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        append(String(chunk));
        cb();
      },
    });
  const ctx: CommandContext = {
    globals: defaultGlobals(),
    term: { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), decorate: false, env: {} },
    programName: 'kubectl-kruise',
    signal: new AbortController().signal,
    setInterruptSummary: () => {},
    kube: async () => client,
  };
  return { ctx, out: () => out, err: () => err };
}

test('every served kind listed once, several at a time but never more than the limit; output in kind order', async () => {
  // The first kinds answer last: the output must still follow GET_ALL_KINDS.
  const f = fakeClient({ served: () => true, delay: (r) => (r === 'clonesets' ? 60 : r === 'statefulsets' ? 40 : 5) });
  const { ctx, out } = fakeContext(f.client);
  assert.equal(await run(ctx, ['all'], { output: 'name' }), 0);
  assert.equal(f.listed.length, GET_ALL_KINDS.length);
  assert.ok(f.maxInFlight() > 1, 'lists run concurrently');
  assert.ok(f.maxInFlight() <= GET_ALL_CONCURRENCY, `at most ${GET_ALL_CONCURRENCY} at once, saw ${f.maxInFlight()}`);
  assert.deepEqual(
    out().trim().split('\n'),
    GET_ALL_KINDS.map((k) => `${KIND[k.resource]!.toLowerCase()}.${k.group}/${k.resource}-1`),
  );
  // -n (the context's namespace) for namespaced kinds; a cluster-scoped kind is listed across the cluster.
  assert.deepEqual(f.listed.find((l) => l.resource === 'clonesets'), { resource: 'clonesets', namespace: 'shop' });
});

test('-A lists every namespace; kinds the cluster does not serve are never asked for', async () => {
  const f = fakeClient({ served: (r) => ['clonesets', 'sidecarsets', 'rollouts'].includes(r) });
  const { ctx, out } = fakeContext(f.client);
  assert.equal(await run(ctx, ['all'], { allNamespaces: true }), 0);
  assert.deepEqual(f.listed.map((l) => l.resource).sort(), ['clonesets', 'rollouts', 'sidecarsets']);
  assert.ok(f.listed.every((l) => l.namespace === undefined));
  assert.match(out(), /^NAMESPACE +NAME +AGE\nshop +cloneset\.apps\.kruise\.io\/clonesets-1 +1s\n\nNAME +AGE\nsidecarset\.apps\.kruise\.io\/sidecarsets-1 +1s\n\nNAMESPACE/);
});

test('a list answering 404 (CRD gone since discovery was cached) is skipped; any other error fails the command after the other kinds are printed', async () => {
  const notFound = new KubeApiError('the server could not find the requested resource', 404, 'NotFound', undefined);
  const gone = fakeClient({ served: () => true, fail: (r) => (r === 'broadcastjobs' ? notFound : undefined) });
  const a = fakeContext(gone.client);
  assert.equal(await run(a.ctx, ['all'], { output: 'name' }), 0);
  assert.doesNotMatch(a.out(), /broadcastjob/);
  assert.equal(a.out().trim().split('\n').length, GET_ALL_KINDS.length - 1);

  const forbidden = new KubeApiError('rollouts.rollouts.kruise.io is forbidden: User "viewer" cannot list resource "rollouts"', 403, 'Forbidden', undefined);
  const denied = fakeClient({ served: () => true, fail: (r) => (r === 'rollouts' ? forbidden : undefined) });
  const b = fakeContext(denied.client);
  await assert.rejects(run(b.ctx, ['all'], { output: 'name' }), (e: Error) => e === forbidden);
  assert.equal(b.out().trim().split('\n').length, GET_ALL_KINDS.length - 1, 'the kinds that could be listed are printed, as kubectl get a,b does');
  assert.doesNotMatch(b.out(), /rollout/);
});

test('nothing served: "No resources found" and a hint that no OpenKruise kind is served, exit 0', async () => {
  const f = fakeClient({ served: () => false });
  const { ctx, out, err } = fakeContext(f.client);
  assert.equal(await run(ctx, ['all'], {}), 0);
  assert.equal(out(), '');
  assert.equal(err(), 'No resources found in shop namespace.\nhint: no OpenKruise kind (apps.kruise.io, policy.kruise.io, rollouts.kruise.io) is served by this cluster\n');
  assert.deepEqual(f.listed, []);
});
