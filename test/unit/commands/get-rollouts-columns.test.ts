// `get rollouts` columns against the real CRDs' additionalPrinterColumns (read at test time from
// ../shared/kruise-rollout-crds): each column's jsonPath evaluated on each Rollout fixture must give what
// rolloutColumns reads, for v1alpha1 (v0.4.4, v0.6.2) and v1beta1 (v0.6.2, master).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { rolloutColumns } from '../../../src/commands/get/rollouts';
import { evaluateJsonPath } from '../../../src/printers/jsonpath';
import { haveRolloutCrds, loadKind, ROLLOUT_CRDS_ROOT } from '../kruise/rollout/helpers';

interface Column {
  name: string;
  jsonPath: string;
}

function printerColumns(release: string, version: string): Column[] {
  const crd = parse(readFileSync(join(ROLLOUT_CRDS_ROOT, release, 'rollouts.kruise.io_rollouts.yaml'), 'utf8')) as { spec: { versions: Array<{ name: string; additionalPrinterColumns: Column[] }> } };
  return crd.spec.versions.find((v) => v.name === version)!.additionalPrinterColumns;
}

const CASES = [
  { release: 'v0.4.4', version: 'v1alpha1', fixture: 'v1alpha1-canary-manual-step.yaml' },
  { release: 'v0.6.2', version: 'v1alpha1', fixture: 'v1alpha1-canary-manual-step.yaml' },
  { release: 'v0.6.2', version: 'v1beta1', fixture: 'v1beta1-canary-timed-pause.yaml' },
  { release: 'v0.6.2', version: 'v1beta1', fixture: 'v1beta1-bluegreen.yaml' },
  { release: 'master', version: 'v1beta1', fixture: 'v1beta1-completed.yaml' },
];

for (const c of CASES) {
  test(`rollouts.kruise.io_rollouts.yaml additionalPrinterColumns (${c.release} ${c.version}) on ${c.fixture}`, { skip: !haveRolloutCrds && 'no ../shared/kruise-rollout-crds' }, () => {
    const ro = loadKind(c.fixture, 'Rollout');
    const cols = printerColumns(c.release, c.version);
    assert.deepEqual(cols.map((x) => x.name), ['STATUS', 'CANARY_STEP', 'CANARY_STATE', 'MESSAGE', 'AGE']);
    const byCrd = Object.fromEntries(cols.filter((x) => x.name !== 'AGE').map((x) => [x.name, evaluateJsonPath(`{${x.jsonPath}}`, ro)]));
    const ours = rolloutColumns(ro);
    assert.deepEqual(byCrd, { STATUS: ours.status ?? '', CANARY_STEP: ours.step === undefined ? '' : String(ours.step), CANARY_STATE: ours.state ?? '', MESSAGE: ours.message ?? '' });
    assert.notEqual(byCrd.CANARY_STEP, '', 'the fixture has a step');
  });
}
