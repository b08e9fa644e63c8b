// `scaledown` against sandboxes running the real Kruise CRDs of v1.3.0, v1.9.0 and master (schema
// validation on: a value of the wrong type is a 422): the
// CloneSet patch (v1alpha1; v1beta1 on master) and the Advanced StatefulSet patch are accepted, and
// reserveOrdinals gets an "a-b" range only where the served CRD's items are int-or-string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil } from '../helpers/sandbox';
import { isPodReady, kubectlOk, podsOf, summary } from './rollout-helpers';

const CRDS = '/work/shared/kruise-crds';
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'scaledown');

const RELEASES = [
  { dir: 'v1.3.0', kruise: 'v1.3', cloneset: 'cloneset-web.yaml', csVersion: 'v1alpha1', ranges: false },
  { dir: 'v1.9.0', kruise: 'v1.9', cloneset: 'cloneset-web.yaml', csVersion: 'v1alpha1', ranges: true },
  { dir: 'master', kruise: 'master', cloneset: 'cloneset-web-v1beta1.yaml', csVersion: 'v1beta1', ranges: true },
];

for (const rel of RELEASES) {
  test(`scaledown writes what the ${rel.dir} CRDs accept (CloneSet ${rel.csVersion}, Advanced StatefulSet reserveOrdinals ${rel.ranges ? 'as a range' : 'as ints'})`, { skip: !existsSync(join(CRDS, rel.dir)) }, async () => {
    const sb = await startSandbox({ kruise: rel.kruise, crds: join(CRDS, rel.dir), readyDelay: 100 });
    try {
      const csPath = `/apis/apps.kruise.io/${rel.csVersion}/namespaces/default/clonesets/web`;
      const astsPath = '/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets/db';
      for (const f of [rel.cloneset, 'asts-db.yaml']) await kubectlOk(sb, ['apply', '-f', join(FIXTURES, f)]);
      const ready = (sel: string, n: number) =>
        waitUntil(`${n} ready ${sel}`, async () => {
          const pods = await podsOf(sb, sel);
          return pods.length === n && pods.every(isPodReady) ? pods.map((p) => p.metadata.name as string).sort() : undefined;
        }, 40_000);
      const [a, b] = await ready('app=web', 8);
      await ready('app=db', 5);

      // The schema is enforced: a range where the release has ints only is a 422.
      const bad = await sb.api('PATCH', `${astsPath}?dryRun=All`, { spec: { reserveOrdinals: ['1-2'] } }, { contentType: 'application/merge-patch+json' });
      assert.equal(bad.status, rel.ranges ? 200 : 422, bad.text);

      const cs = await runCli(['scaledown', 'cloneset/web', '--pods', `${a},${b}`], { kubeconfig: sb.kubeconfig });
      assert.equal(cs.code, 0, summary(cs));
      assert.equal(cs.stdout, `cloneset.apps.kruise.io/web scaled down from 8 to 6 replicas (removing pods ${a}, ${b})\n`);
      const csObj = (await sb.api('GET', csPath)).body;
      assert.equal(csObj.spec.replicas, 6);

      const asts = await runCli(['scaledown', 'asts/db', '--ordinals', '1-2'], { kubeconfig: sb.kubeconfig });
      assert.equal(asts.code, 0, summary(asts));
      const entries = rel.ranges ? ['1-2'] : [1, 2];
      assert.equal(asts.stdout, `statefulset.apps.kruise.io/db scaled down from 5 to 3 replicas (reserving ordinals ${entries.join(', ')}, removing pods db-1, db-2)\n`);
      const set = (await sb.api('GET', astsPath)).body;
      assert.deepEqual(set.spec.reserveOrdinals, entries);
      assert.equal(set.spec.replicas, 3);
      await waitUntil('db-1 and db-2 gone, the others kept', async () => {
        const names = (await podsOf(sb, 'app=db')).map((p) => p.metadata.name).sort();
        return names.join(',') === 'db-0,db-3,db-4' ? true : undefined;
      }, 30_000);
      await waitUntil('web at 6 pods without the named ones', async () => {
        const names = (await podsOf(sb, 'app=web')).map((p) => p.metadata.name);
        return names.length === 6 && !names.includes(a) && !names.includes(b) ? true : undefined;
      }, 30_000);
    } finally {
      await sb.stop();
    }
  });
}
