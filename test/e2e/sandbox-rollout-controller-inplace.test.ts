// Issue #15: a CloneSet updated in place (InPlaceIfPossible) under a Kruise Rollout showed
// "2 of 2 canary pods ready" at step 1 before its canary pods had even gone unready. Two sandbox
// departures from upstream made it: the in-place update relabelled pods whose Ready condition still said
// True (Kruise turns Ready False in the write that turns InPlaceUpdateReady False:
// pkg/util/inplaceupdate/inplace_update.go updateCondition + pkg/util/pods.go SetPodReadyCondition),
// and the BatchRelease counted Ready pods when the CloneSet said 0 (upstream only the StatefulSet and
// DaemonSet controls do: rollouts v0.6.2 partitionstyle/*/control.go BuildController, so an Advanced
// StatefulSet's batch read those stale pods too). For a CloneSet and an Advanced StatefulSet updated in
// place, this test watches the Rollout, the BatchRelease and the pods through the API during step 1 and
// checks every ready count shown against the pods truly updated and ready at that moment (ordered by
// resourceVersion). On the old code the stale window is a race: each run caught it on one kind or both.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const SHARED = resolve(REPO_ROOT, '..', 'shared');
const KRUISE_CRDS = join(SHARED, 'kruise-crds', 'v1.9.0');
const ROLLOUT_CRDS = join(SHARED, 'kruise-rollout-crds', 'v0.6.2');
const haveCrds = existsSync(KRUISE_CRDS) && existsSync(ROLLOUT_CRDS);

const RO_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts';
const BR_PATH = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/batchreleases';
const POD_PATH = '/api/v1/namespaces/default/pods';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise', 'sandbox-rollout-inplace.yaml');

interface Kind {
  name: string;
  resource: string;
  path: string;
  app: string;
  rollout: string;
  image: string;
}

const KINDS: Kind[] = [
  { name: 'CloneSet (InPlaceIfPossible)', resource: 'cloneset/web', path: '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web', app: 'web', rollout: 'rollout-web', image: 'nginx:1.25.5' },
  { name: 'Advanced StatefulSet (podUpdatePolicy InPlaceIfPossible)', resource: 'statefulsets.apps.kruise.io/db', path: '/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets/db', app: 'db', rollout: 'rollout-db', image: 'redis:7.2' },
];

interface Obj {
  kind: string;
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status?: any;
}
interface Seen {
  type: string;
  rv: number;
  obj: Obj;
}

/** Every event of a watch through the API, until `stop()`; `started` once the server answered. */
function watchAll(url: string): { events: Seen[]; started: Promise<void>; stop: () => Promise<void> } {
  const events: Seen[] = [];
  const ctl = new AbortController();
  let answered: () => void = () => undefined;
  const started = new Promise<void>((r) => (answered = r));
  const done = (async () => {
    // identity: a gzip-encoded watch would arrive in compressed blocks, not event by event
    const res = await fetch(`${url}?watch=1`, { signal: ctl.signal, headers: { accept: 'application/json', 'accept-encoding': 'identity' } });
    answered();
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        const ev = JSON.parse(line) as { type: string; object: Obj };
        events.push({ type: ev.type, rv: Number(ev.object.metadata.resourceVersion), obj: ev.object });
      }
    }
  })().catch((e: unknown) => {
    if (!ctl.signal.aborted) process.stderr.write(`watch ${url}: ${String(e)}\n`);
  });
  return {
    events,
    started,
    stop: async () => {
      ctl.abort();
      await done;
    },
  };
}

const cond = (o: Obj, type: string) => (o.status?.conditions as Array<{ type: string; status: string }> | undefined)?.find((c) => c.type === type)?.status;
/** Kruise's IsPodUpdateReady (cloneset core): Ready and, with the in-place gate, InPlaceUpdateReady True. */
const trulyUpdatedReady = (p: Obj, updateRevision: string) =>
  !p.metadata.deletionTimestamp && p.metadata.labels?.['controller-revision-hash'] === updateRevision && cond(p, 'Ready') === 'True' && cond(p, 'InPlaceUpdateReady') !== 'False';

describe('sandbox Kruise Rollout: workloads updated in place never show more canary pods ready than truly are (issue #15)', { skip: !haveCrds && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;

  before(async () => {
    sb = await startSandbox({ readyDelay: '300ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS] });
    const res = await kubectl(['apply', '-f', FIXTURE], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
    for (const k of KINDS) await waitUntil(`${k.rollout} Healthy`, async () => (await sb.api('GET', `${RO_PATH}/${k.rollout}`)).body.status?.phase === 'Healthy', 30_000);
  });
  after(async () => {
    await sb.stop();
  });

  for (const k of KINDS) {
    it(`${k.name}, step 1 of 8 replicas (25%): every canaryReadyReplicas / updatedReadyReplicas the Rollout and BatchRelease show is ≤ the pods updated in place and ready at that resourceVersion; the batch turns Ready only with 2 (batchrelease_status.go refreshStatus, inplace_update.go updateCondition)`, async () => {
      const watches = [watchAll(`${sb.url}${RO_PATH}`), watchAll(`${sb.url}${BR_PATH}`), watchAll(`${sb.url}${POD_PATH}`)];
      // the server has answered every watch (its listing of what exists comes first) before anything changes
      await Promise.all(watches.map((w) => w.started));
      const res = await kubectl(['patch', k.resource, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: k.image }])], sb.kubeconfig);
      assert.equal(res.code, 0, res.stderr);
      const paused = await waitUntil(
        `${k.rollout} step 1 StepPaused`,
        async () => {
          const ro = (await sb.api('GET', `${RO_PATH}/${k.rollout}`)).body;
          return ro.status?.currentStepIndex === 1 && ro.status?.canaryStatus?.currentStepState === 'StepPaused' ? ro : undefined;
        },
        30_000,
      );
      for (const w of watches) await w.stop();
      const updateRevision = (await sb.api('GET', k.path)).body.status.updateRevision as string;
      const canaryRevision = paused.status.canaryStatus.canaryRevision as string;
      assert.equal(paused.status.canaryStatus.canaryReadyReplicas, 2);
      const inPlace = watches[2]!.events.filter((e) => e.obj.metadata.labels?.app === k.app && e.obj.metadata.labels?.['controller-revision-hash'] === updateRevision);
      assert.ok(inPlace.length > 0 && inPlace.every((e) => e.type === 'MODIFIED'), 'the canary pods were updated in place, not recreated');

      // replay everything in resourceVersion order, keeping the latest version of each pod
      const all = watches.flatMap((w) => w.events).sort((a, b) => a.rv - b.rv);
      const pods = new Map<string, Obj>();
      const shown: string[] = [];
      const tooEarly: string[] = [];
      let readyVerdicts = 0;
      for (const ev of all) {
        if (ev.obj.kind === 'Pod') {
          if (ev.obj.metadata.labels?.app !== k.app) continue;
          if (ev.type === 'DELETED') pods.delete(ev.obj.metadata.name);
          else pods.set(ev.obj.metadata.name, ev.obj);
          continue;
        }
        if (ev.obj.metadata.name !== k.rollout) continue;
        const truly = [...pods.values()].filter((p) => trulyUpdatedReady(p, updateRevision)).length;
        if (ev.obj.kind === 'Rollout') {
          const cs = ev.obj.status?.canaryStatus;
          if (!cs || cs.canaryRevision !== canaryRevision || ev.obj.status.currentStepIndex !== 1) continue;
          shown.push(`rv ${ev.rv} ${cs.currentStepState} ${cs.canaryReadyReplicas}/${cs.canaryReplicas} (truly ${truly})`);
          if (cs.canaryReadyReplicas > truly) tooEarly.push(`Rollout ${shown[shown.length - 1]}`);
        } else if (ev.obj.kind === 'BatchRelease') {
          const st = ev.obj.status;
          if (st?.updateRevision !== updateRevision || !st.canaryStatus) continue;
          const n = st.canaryStatus.updatedReadyReplicas ?? 0;
          if (n > truly) tooEarly.push(`BatchRelease rv ${ev.rv} ${st.canaryStatus.batchState} updatedReadyReplicas ${n} (truly ${truly})`);
          if (st.canaryStatus.batchState === 'Ready') {
            readyVerdicts++;
            if (truly < 2) tooEarly.push(`BatchRelease rv ${ev.rv} batchState Ready with ${truly} pods truly updated and ready`);
          }
        }
      }
      assert.deepEqual(tooEarly, [], shown.join('\n'));
      assert.ok(readyVerdicts > 0, 'the BatchRelease never showed batch 1 Ready');
      // the BatchRelease is not reconciled at once on its own status writes (batchrelease_controller.go
      // add() predicate): it once flipped Verifying/Upgrading ~1,000 times while the pods got ready
      const brWrites = watches[1]!.events.filter((e) => e.type === 'MODIFIED' && e.obj.metadata.name === k.rollout).length;
      assert.ok(brWrites <= 40, `${brWrites} BatchRelease writes during step 1`);
      // what `rollout status` prints: the ready count only grows during the step
      const counts = shown.map((line) => Number(/ (\d+)\/\d+ \(/.exec(line)![1]));
      assert.deepEqual(counts, [...counts].sort((a, b) => a - b), shown.join('\n'));
    });
  }
});
