// explain partition -o json carries everything the text output shows, for every kind, offline and
// live: the text is rebuilt line by line from the JSON alone and must come out identical.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT, runCli, kubectl } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const fixture = (p: string): string => join(REPO_ROOT, 'test', 'fixtures', p);
const TITLES: Record<string, string> = { cloneset: 'CloneSet', asts: 'Advanced StatefulSet', ads: 'Advanced DaemonSet', statefulset: 'StatefulSet' };

/** The text output as it must look, from the JSON object only. */
function textFromJson(j: any): string[] {
  const unit = j.kind === 'ads' ? 'scheduled nodes' : 'replicas';
  const head = `${j.replicas} ${unit}, partition ${j.partition === null ? '(none)' : String(j.partition)}`;
  const title = j.object ? `${j.object.kind} ${j.object.namespace}/${j.object.name}` : TITLES[j.kind];
  const lines = [`${title}: ${[head, ...j.chain].join(' → ')}`, `maxUnavailable ${j.maxUnavailable}, maxSurge ${j.maxSurge}`];
  if (j.ordinals) {
    const fmt = (xs: number[]): string => (xs.length ? xs.join(', ') : 'none');
    lines.push(`ordinals updated (in order): ${fmt(j.ordinals.updated)}; kept at the old revision: ${fmt(j.ordinals.kept)}`);
  }
  lines.push('', 'Rules:', ...j.rules.map((r: string) => `  - ${r}`));
  if (j.warnings.length) lines.push('', 'Warnings:', ...j.warnings.map((w: string) => `  - ${w}`));
  if (j.live) {
    const l = j.live;
    lines.push('', 'Now:');
    lines.push(`  ${l.updatedReplicas} updated${l.updatedReadyReplicas === undefined ? '' : `, ${l.updatedReadyReplicas} of them ready`}; ${l.readyReplicas} of ${l.replicas} ready`);
    if (l.statusExpectedUpdatedReplicas !== undefined && l.statusExpectedUpdatedReplicas !== j.expectedUpdatedReplicas) {
      lines.push(`  the cluster reports expectedUpdatedReplicas ${l.statusExpectedUpdatedReplicas} (computed here: ${j.expectedUpdatedReplicas})`);
    }
    for (const r of l.revisions) {
      const tag = r.current === 'update' ? ' (update revision)' : r.current === 'current' ? ' (current revision)' : '';
      lines.push(`  revision ${r.revision}${tag}: ${r.pods} ${r.pods === 1 ? 'pod' : 'pods'}, ${r.ready} ready`);
    }
    lines.push(`  current batch: ${l.batchDone ? 'done' : 'in progress'}`);
  }
  if (j.plan) {
    lines.push('', 'Plan:');
    for (const s of j.plan) lines.push(`${s.step} ${s.partition} ${s.partitionReplicas} ${s.updatedReplicas} ${s.updatedInStep} ${s.maxUnavailable}`);
  }
  return lines;
}

/** The text output with the plan table reduced to its cells (column widths are presentation). */
function normalisedText(stdout: string): string[] {
  const lines = stdout.replace(/\n$/, '').split('\n');
  const plan = lines.indexOf('Plan:');
  if (plan < 0) return lines;
  return [...lines.slice(0, plan + 1), ...lines.slice(plan + 2).map((l) => l.trim().split(/\s+/).join(' '))];
}

async function compare(args: string[], kubeconfig?: string): Promise<any> {
  const text = await runCli(['explain', 'partition', ...args], { kubeconfig });
  const json = await runCli(['explain', 'partition', ...args, '-o', 'json'], { kubeconfig });
  assert.equal(text.code, 0, text.stderr);
  assert.equal(json.code, 0, json.stderr);
  const j = JSON.parse(json.stdout);
  assert.deepEqual(textFromJson(j), normalisedText(text.stdout), args.join(' '));
  return j;
}

test('offline, every kind: the JSON rebuilds the text (ASTS ordinals included)', async () => {
  await compare(['--replicas', '8', '--partition', '90%', '--plan', '50%,0']);
  const asts = await compare(['-f', fixture('workloads/asts-v1beta1.yaml')]);
  assert.ok(asts.ordinals, 'ASTS ordinals are in the JSON');
  assert.deepEqual(Object.keys(asts.ordinals), ['updated', 'kept']);
  await compare(['--kind', 'asts', '--replicas', '5', '--partition', '2', '--plan', '1,0']);
  await compare(['-f', fixture('workloads/ads-v1beta1.yaml')]);
  const sts = await compare(['-f', fixture('workloads/statefulset.yaml')]);
  assert.ok(sts.ordinals);
  await compare(['-f', fixture('workloads/cloneset-v1beta1.yaml')]);
});

test('a manifest Kruise would refuse is said so, with the webhook rule the sandbox applies (validateMaxUnavailableField, statefulset_validation.go)', async () => {
  const j = await compare(['-f', fixture('webhooks/asts-ordered-maxunavailable.yaml')]);
  assert.ok(
    j.warnings.includes("Kruise's webhook rejects this object: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 2: can only work with Parallel PodManagementPolicyType"),
    JSON.stringify(j.warnings),
  );
  const clean = await compare(['-f', fixture('workloads/asts-v1beta1.yaml')]);
  assert.ok(!clean.warnings.some((w: string) => /webhook/.test(w)), JSON.stringify(clean.warnings));
});

let sb: Sandbox;
before(async () => {
  sb = await startSandbox({ readyDelay: '20ms', nodes: 2 });
});
after(async () => {
  await sb?.stop();
});

test('live: object, current counts, revisions and batch state are in the JSON too (CloneSet, Advanced StatefulSet)', async () => {
  for (const f of ['kruise-controllers/cloneset-v1alpha1.yaml', 'kruise-controllers/asts-v1beta1.yaml']) {
    const r = await kubectl(['apply', '-f', fixture(f)], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
  }
  for (const [ref, path] of [
    ['cloneset/web', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web'],
    ['asts/db', '/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets/db'],
  ] as const) {
    await waitUntil(`${ref} ready`, async () => {
      const o = (await sb.api('GET', path)).body;
      return o?.status?.readyReplicas === o?.spec?.replicas && o.status.observedGeneration >= o.metadata.generation;
    });
    const j = await compare([ref], sb.kubeconfig);
    assert.deepEqual(Object.keys(j.object), ['kind', 'namespace', 'name']);
    assert.ok(j.live.revisions.length >= 1);
    if (ref === 'asts/db') assert.ok(j.ordinals, 'live ASTS ordinals');
  }
});
