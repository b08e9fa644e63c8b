// `rollout status` across Kruise releases: v1.3 and master (CloneSet v1beta1), a CloneSet whose
// status lacks expectedUpdatedReplicas (Kruise < v1.2, computed client-side), and a sandbox that
// drops watches every few events and expires resourceVersions (the outcome must not change).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, streamCli, type RunResult } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyFixture, getObject, jsonLines, kubectlOk, PATHS, summary, waitSettled } from './rollout-helpers';

const sandboxes: Record<string, Sandbox> = {};

before(async () => {
  const [v13, master, legacy, flaky] = await Promise.all([
    startSandbox({ kruise: 'v1.3', readyDelay: '50ms' }),
    startSandbox({ kruise: 'master', readyDelay: '50ms' }),
    startSandbox({ kruise: 'v1.9', readyDelay: '50ms' }),
    startSandbox({ kruise: 'v1.9', readyDelay: '100ms', faults: { dropWatchAfterEvents: 2, expireResourceVersionsAfter: 5 } }),
  ]);
  Object.assign(sandboxes, { v13, master, legacy, flaky });
});

after(async () => {
  await Promise.all(Object.values(sandboxes).map((s) => s.stop()));
});

interface Flavour {
  title: string;
  sb: () => Sandbox;
  fixture: string;
  version: string;
  /** Merge patch of the partition for this CloneSet shape. */
  partition: (p: number | string) => Record<string, unknown>;
  setup?: (sb: Sandbox) => Promise<void>;
  /** The sandbox drops watches: the status command must have resumed at least once. */
  drops?: boolean;
}

const v1alpha1Partition = (p: number | string) => ({ updateStrategy: { partition: p } });

const flavours: Flavour[] = [
  { title: 'Kruise v1.3 (CloneSet v1alpha1)', sb: () => sandboxes.v13!, fixture: 'cloneset-web.yaml', version: 'v1alpha1', partition: v1alpha1Partition },
  {
    title: 'Kruise master (CloneSet v1beta1)',
    sb: () => sandboxes.master!,
    fixture: 'cloneset-web-v1beta1.yaml',
    version: 'v1beta1',
    partition: (p) => ({ updateStrategy: { rollingUpdate: { partition: p } } }),
  },
  {
    title: 'status without expectedUpdatedReplicas (Kruise < v1.2 imitation)',
    sb: () => sandboxes.legacy!,
    fixture: 'cloneset-web.yaml',
    version: 'v1alpha1',
    partition: v1alpha1Partition,
    setup: async (sb) => {
      await kubectlOk(sb, ['annotate', 'clonesets.apps.kruise.io', 'web', 'sandbox.kruise.io/omit-expected-updated-replicas=true']);
    },
  },
  { title: 'watches dropped every 2 events, resourceVersions expiring (410 Gone)', sb: () => sandboxes.flaky!, fixture: 'cloneset-web.yaml', version: 'v1alpha1', partition: v1alpha1Partition, drops: true },
];

for (const f of flavours) {
  test(`${f.title}: partition 90% → PartitionComplete with 1 expected, partition 0 → Complete`, async () => {
    const sb = f.sb();
    const path = PATHS.cloneset(f.version);
    await applyFixture(sb, f.fixture);
    await f.setup?.(sb);
    await waitSettled(sb, path);
    const patch = { spec: { ...f.partition('90%'), template: { spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] } } } };
    await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify(patch)]);
    const r1 = await runCli(['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    assert.equal(r1.code, 0, summary(r1));
    const last1 = jsonLines(r1.stdout).pop();
    assert.equal(last1.state, 'PartitionComplete');
    assert.equal(last1.expectedUpdatedReplicas, 1);
    assert.equal(last1.updatedReadyReplicas, 1);
    assert.equal(last1.apiVersion, `apps.kruise.io/${f.version}`);
    const cs = await getObject(sb, path);
    assert.equal(cs.status.updatedReadyReplicas, 1);
    if (f.setup) {
      assert.equal(cs.status.expectedUpdatedReplicas, undefined, 'the sandbox imitates Kruise < v1.2');
      assert.equal(last1.expectedUpdatedReplicasSource, 'computed');
    } else {
      assert.equal(cs.status.expectedUpdatedReplicas, 1);
    }

    let r2: RunResult;
    if (f.drops) {
      // Paused first, so the watch is surely open for the whole rollout (and gets dropped).
      const paused = { spec: { ...f.partition(0), updateStrategy: { ...(f.partition(0).updateStrategy as object), paused: true } } };
      await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify(paused)]);
      sb.clearAudit();
      const s = streamCli(['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s'], { kubeconfig: sb.kubeconfig });
      await s.waitFor(/"state":"Paused"/);
      await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"paused":false}}}']);
      await waitUntil('rollout status to exit', () => (s.child.exitCode !== null ? true : undefined), 30_000);
      r2 = await s.stop();
    } else {
      await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', JSON.stringify({ spec: f.partition(0) })]);
      r2 = await runCli(['rollout', 'status', 'cloneset/web', '-o', 'json', '--timeout=30s'], { kubeconfig: sb.kubeconfig, timeoutMs: 40_000 });
    }
    assert.equal(r2.code, 0, summary(r2));
    const last2 = jsonLines(r2.stdout).pop();
    assert.equal(last2.state, 'Complete');
    assert.equal(last2.expectedUpdatedReplicas, 8);
    const done = await getObject(sb, path);
    assert.equal(done.status.updatedReadyReplicas, 8);
    assert.equal(done.status.replicas, 8);
    if (f.drops) {
      const watches = sb.audit().filter((e) => e.verb === 'watch' && e.path.endsWith('/clonesets'));
      assert.ok(watches.length >= 2, `the CloneSet watch was dropped and resumed (${watches.length} watch requests)`);
    }
  });
}
