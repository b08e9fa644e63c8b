// The CloneSet `migrate` creates, and every patch it sends, are accepted by a sandbox running the
// real Kruise CRDs of v1.3.0, v1.9.0 and master (schema validation on: 422 otherwise), in the
// shape of the version the cluster serves: v1beta1 on master, v1alpha1 before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type RunResult } from '../helpers/cli';
import { startSandbox } from '../helpers/sandbox';
import { deploymentReady, getCloneSet, getDeployment, migrated } from './migrate-helpers';
import { writes } from './rollout-helpers';

const CRDS = '/work/shared/kruise-crds';
const show = (r: RunResult): string => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

const RELEASES = [
  { dir: 'v1.3.0', kruise: 'v1.3', version: 'v1alpha1', progressDeadline: false },
  { dir: 'v1.9.0', kruise: 'v1.9', version: 'v1alpha1', progressDeadline: true },
  { dir: 'master', kruise: 'master', version: 'v1beta1', progressDeadline: true },
];

for (const rel of RELEASES) {
  test(`migrate against the ${rel.dir} CRDs: the CloneSet (${rel.version}) and every patch validate`, { skip: !existsSync(join(CRDS, rel.dir)) }, async () => {
    const sb = await startSandbox({ kruise: rel.kruise, crds: join(CRDS, rel.dir), readyDelay: 200 });
    try {
      // The schema is enforced (so passing below means something): a wrong type is a 422.
      const bad = await sb.api('POST', `/apis/apps.kruise.io/${rel.version}/namespaces/default/clonesets?dryRun=All`, {
        apiVersion: `apps.kruise.io/${rel.version}`,
        kind: 'CloneSet',
        metadata: { name: 'bad' },
        spec: { replicas: 'two', selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      });
      assert.equal(bad.status, 422, bad.text);

      await deploymentReady(sb, 'web', 3);
      sb.clearAudit();
      const r = await runCli(['migrate', 'cloneset/web', '--from', 'deployment/web', '--max-surge', '2'], { kubeconfig: sb.kubeconfig, timeoutMs: 60_000 });
      assert.equal(r.code, 0, show(r));
      assert.doesNotMatch(r.stderr, /Warning/, 'nothing pruned or deprecated');
      if (rel.progressDeadline) assert.doesNotMatch(r.stderr, /progressDeadlineSeconds/);
      else assert.match(r.stderr, /^note: progressDeadlineSeconds \(300\) left out: this cluster's CloneSet has no such field \(Kruise < 1\.9\)$/m);
      assert.deepEqual(writes(sb.audit()).filter((e) => e.code >= 300), [], 'no write refused');
      await migrated(sb, 'web', 3);

      const cs = (await getCloneSet(sb, 'web', rel.version))!;
      const spec = cs.spec as Record<string, unknown>;
      assert.equal(spec.replicas, 3);
      assert.equal(spec.minReadySeconds, 1);
      assert.equal(spec.revisionHistoryLimit, 5);
      assert.equal(spec.progressDeadlineSeconds, rel.progressDeadline ? 300 : undefined);
      const strategy = spec.updateStrategy as Record<string, unknown>;
      if (rel.version === 'v1beta1') {
        assert.equal(strategy.type, 'RollingUpdate');
        assert.deepEqual({ ...(strategy.rollingUpdate as object), partition: undefined }, { podUpdatePolicy: 'ReCreate', maxSurge: 2, maxUnavailable: 0, partition: undefined });
      } else {
        assert.equal(strategy.type, 'ReCreate');
        assert.deepEqual([strategy.maxSurge, strategy.maxUnavailable], [2, 0]);
      }
      assert.equal(JSON.parse(cs.metadata.annotations?.['kubectl-kruise/migration'] ?? '{}').state, 'done');
      assert.equal((await getDeployment(sb, 'web')).spec.replicas, 0);
    } finally {
      await sb.stop();
    }
  });
}
