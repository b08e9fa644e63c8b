// Who holds a workload for a release (the workload webhook's in-progressing mark: openkruise/rollouts v0.6.2
// workload_update_handler.go, util.RolloutState) and what the CLI tells a user who changes such a workload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutHolding } from '../../../src/kruise/rollout/holder';
import { releaseHint, workloadRefText } from '../../../src/printers/release-hints';
import { releaseLine, type ReleaseReport } from '../../../src/printers/rollout-release';
import { loadKind } from '../kruise/rollout/helpers';

test('rolloutHolding: the Rollout named by the mark, \'\' for an unreadable mark, undefined without one', () => {
  assert.equal(rolloutHolding(loadKind('cloneset-demo.yaml', 'CloneSet')), 'demo');
  assert.equal(rolloutHolding({ metadata: { annotations: { 'rollouts.kruise.io/in-progressing': 'not json' } } }), '');
  assert.equal(rolloutHolding({ metadata: {} }), undefined);
});

test('hints: a change goes out in the Rollout\'s steps; pausing the workload stalls the step; the names as the user types them', () => {
  const ref = workloadRefText({ group: 'apps.kruise.io', kind: 'StatefulSet' }, 'db');
  assert.equal(ref, 'asts/db');
  assert.equal(
    releaseHint('kubectl kruise', ref, 'db-rollout', 'change'),
    "asts/db is released by rollout/db-rollout: the change goes out in its steps; follow it with 'kubectl kruise rollout status asts/db', approve a paused step with 'kubectl kruise rollout approve rollout/db-rollout'",
  );
  assert.match(releaseHint('kubectl kruise', 'cloneset/web', 'web', 'pause'), /^warning: cloneset\/web is being released by rollout\/web, which drives its partition: .*'kubectl kruise rollout pause rollout\/web'/);
  assert.match(releaseHint('kubectl-kruise', 'deployment/api', '', 'resume'), /by its Kruise Rollout: .*'kubectl-kruise rollout resume deployment\/api'/);
});

test('a release line carries the failing pod\'s countdown from its failAt; a failed or timed-out line does not repeat it', () => {
  const now = Date.parse('2026-11-25T01:00:00Z');
  const r: ReleaseReport = { namespace: 'd', name: 'shop', apiVersion: 'rollouts.kruise.io/v1beta1', state: 'Progressing', reached: false, steps: 2, step: 1, message: 'Waiting for rollout "shop" to finish: step 1/2 StepUpgrade, 0 of 2 canary pods ready...', failing: { name: 'shop-2rh8p', reason: 'ImagePullBackOff', container: 'app', failAt: now + 56_000 } };
  assert.equal(releaseLine(r, now), 'Waiting for rollout "shop" to finish: step 1/2 StepUpgrade, 0 of 2 canary pods ready; pod shop-2rh8p ImagePullBackOff, failing the rollout in 56s...');
  assert.equal(releaseLine({ ...r, state: 'Failed', message: 'rollout "shop" failed: x' }, now), 'rollout "shop" failed: x');
});

test('heldVerdict: a workload a release holds is not done by its own rules alone (its partition is the Rollout\'s); without the mark nothing changes', async () => {
  const { heldVerdict } = await import('../../../src/kruise/rollout/holder');
  const { evaluateRollout } = await import('../../../src/kruise/progress');
  const held = loadKind('cloneset-demo.yaml', 'CloneSet');
  const own = evaluateRollout(held, [], Date.now());
  assert.equal(own.state, 'PartitionComplete');
  const p = heldVerdict(held, own);
  assert.equal(p.state, 'Progressing');
  assert.equal(p.message, 'Waiting for cloneset "demo": a release of rollout/demo holds it (its partition is the release\'s)...');
  const free = structuredClone(held);
  delete free.metadata.annotations;
  assert.equal(heldVerdict(free, own).state, 'PartitionComplete');
});
