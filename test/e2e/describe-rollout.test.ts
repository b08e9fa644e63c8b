// `describe rollout NAME [-w] [-o json|yaml]` against a sandbox serving the real Kruise v1.9.0 and
// Kruise Rollout v0.6.2 CRDs. The Rollout's status is written through the API as the v0.6.2
// controller writes it; the CloneSet's own controller moves the pods.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli, streamCli } from '../helpers/cli';
import { type Sandbox } from '../helpers/sandbox';
import { haveRealCrds, rolloutPath, webCanaryPausedAtStep1, writeRolloutStatus, type CanaryRevisions } from './describe-rollout-helpers';
import { startWithRolloutCrds } from './rollout-kruise-helpers';

const hash = (revision: string): string => revision.slice(revision.lastIndexOf('-') + 1);

describe('describe rollout (v0.6.2 CRDs, CloneSet canary)', { skip: !haveRealCrds && 'no ../shared CRDs' }, () => {
  let sb: Sandbox;
  let rev: CanaryRevisions;
  const run = (...args: string[]) => runCli(args, { kubeconfig: sb.kubeconfig });
  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    rev = await webCanaryPausedAtStep1(sb);
  });
  after(async () => {
    await sb?.stop();
  });

  it('a step waiting for a person: step 1 marked with the approve command, revisions with images, pods by revision', async () => {
    const r = await run('describe', 'rollout', 'rollout-web');
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout;
    assert.match(out, /^Name:\s+rollout-web$/m);
    assert.match(out, /^Workload:\s+CloneSet\/web \(8 replicas\)$/m);
    assert.match(out, /^Status:\s+StepPaused$/m);
    assert.match(out, /^Step:\s+1\/3 StepPaused$/m);
    assert.match(out, /^Waiting:\s+waiting for approval: kubectl kruise rollout approve rollout\/rollout-web -n default$/m);
    // The step list: step 1 current (▶), the others still to come; the 50% step resolves to 4 of 8 pods.
    assert.match(out, /^\s+▶\s+1\s+20% \(2\)\s+-\s+manual\s+StepPaused, waiting for approval/m);
    assert.match(out, /^\s+·\s+2\s+50% \(4\)\s+-\s+5s\s+pending$/m);
    assert.match(out, /^\s+·\s+3\s+100% \(8\)\s+-\s+-\s+pending$/m);
    // The Rollout names revisions by their hash (pkg/util/controller_finder.go getKruiseCloneSet); the pods by the full name.
    assert.match(out, new RegExp(`^\\s+stable\\s+${hash(rev.stable)}\\s+6\\s+6\\s+app=nginx:1\\.25$`, 'm'));
    assert.match(out, new RegExp(`^\\s+canary\\s+${hash(rev.canary)}\\s+2\\s+2\\s+app=nginx:1\\.26$`, 'm'));
    assert.match(out, new RegExp(`^  canary  ${rev.canary}  \\(2/2 ready\\)$`, 'm'));
    assert.match(out, /^\s+web-\S+\s+yes\s+Running\s+\d+s$/m);
    assert.match(out, /^Conditions:\n\s+TYPE\s+STATUS\s+REASON\s+UPDATED\s+MESSAGE\n\s+Progressing\s+True\s+InRolling/m);
  });

  it('-o json gives the view model; -o yaml the same; bad -o is exit 2 before any request', async () => {
    const r = await run('describe', 'rollout/rollout-web', '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    const v = JSON.parse(r.stdout);
    assert.equal(v.name, 'rollout-web');
    assert.equal(v.currentStepIndex, 1);
    assert.deepEqual(v.steps.map((s: { progress: string }) => s.progress), ['current', 'pending', 'pending']);
    assert.deepEqual([v.canary.revision, v.canary.pods, v.stable.pods], [hash(rev.canary), 2, 6]);
    assert.equal(v.verdict.state, 'StepPaused');
    const y = await run('describe', 'rollout', 'rollout-web', '-o', 'yaml');
    assert.equal(y.code, 0, y.stderr);
    assert.match(y.stdout, /^name: rollout-web$/m);
    sb.clearAudit();
    const bad = await run('describe', 'rollout', 'rollout-web', '-o', 'wide');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml,kyaml\n$/);
    const pps = await run('describe', 'pps', 'db', '-o', 'json');
    assert.equal(pps.code, 2);
    assert.equal(pps.stderr, 'error: -w and -o apply to describe rollout only\n');
    const badName = await run('describe', 'rollout/Web_1');
    assert.equal(badName.code, 2);
    assert.match(badName.stderr, /^error: invalid name "Web_1": .+\n$/);
    const noName = await run('describe', 'rollout', '-w');
    assert.equal(noName.code, 2);
    assert.equal(noName.stderr, 'error: describe rollout -w needs a NAME\n');
    assert.equal(sb.audit().length, 0);
  });

  it('not found, with and without -w: one error line, exit 1', async () => {
    for (const extra of [[], ['-w']]) {
      const r = await run('describe', 'rollout', 'nope', ...extra);
      assert.equal(r.code, 1, `${extra}: ${r.stderr}`);
      assert.match(r.stderr, /^error: rollouts\.rollouts\.kruise\.io "nope" not found in namespace "default"\n$/);
    }
  });

  it('completion of Rollout names: describe rollout <TAB>, get rollouts <TAB>, rollout approve rollout/<TAB>', async () => {
    const complete = async (...words: string[]): Promise<string[]> => {
      const r = await run('__complete', ...words);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim().split('\n');
    };
    assert.deepEqual(await complete('describe', ''), ['pps', 'rollout', ':4']);
    assert.deepEqual(await complete('describe', 'rollout', ''), ['rollout-web', ':4']);
    assert.deepEqual(await complete('get', 'rollouts', 'roll'), ['rollout-web', ':4']);
    assert.deepEqual(await complete('get', 'rollouts', 'x'), [':4']);
    // rollout approve|jump|status|pause rollout/<TAB> (ro-commands' TYPES_BY_COMMAND entries, the same name lister).
    for (const verb of ['approve', 'jump', 'status', 'pause']) {
      assert.deepEqual(await complete('rollout', verb, 'rollout/'), ['rollout/rollout-web', ':4'], verb);
    }
  });

  it('rollout history of the CloneSet says which revision the Rollout releases (table and -o json)', async () => {
    const r = await run('rollout', 'history', 'cloneset/web');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^cloneset\.apps\.kruise\.io\/web\nrollout\/rollout-web releases revision 1 → revision 2, step 1\/3 StepPaused \(waiting for approval\)\nREVISION\s+CHANGE-CAUSE\s+IMAGES\s+PODS\s+ROLLOUT\n/);
    assert.match(r.stdout, /\n1\s+<none>\s+nginx:1\.25\s+6\s+stable\n2\s+<none>\s+nginx:1\.26\s+2\s+canary \(step 1\/3 StepPaused\)\n$/);
    const j = await run('rollout', 'history', 'cloneset/web', '-o', 'json');
    assert.equal(j.code, 0, j.stderr);
    const h = JSON.parse(j.stdout);
    assert.deepEqual(
      { name: h.rollout.name, state: h.rollout.state, step: h.rollout.step, steps: h.rollout.steps, stable: h.rollout.stableRevision, canary: h.rollout.canaryRevision },
      { name: 'rollout-web', state: 'StepPaused', step: 1, steps: 3, stable: 1, canary: 2 },
    );
    assert.deepEqual(h.revisions.map((x: { rolloutRole?: string }) => x.rolloutRole), ['stable', 'canary']);
  });

  it('-w piped: one line per change, the step moves, ends by itself with exit 0 at completion', async () => {
    sb.clearAudit();
    const w = streamCli(['describe', 'rollout', 'rollout-web', '-w'], { kubeconfig: sb.kubeconfig });
    try {
      await w.waitFor(/rollout\/rollout-web  StepPaused  step 1\/3  StepPaused .*waiting for approval/);
      await writeRolloutStatus(sb, 'v1beta1', rev, { step: 2, state: 'StepPaused', canaryReplicas: 2 });
      await w.waitFor(/step 2\/3  StepPaused/);
      await writeRolloutStatus(sb, 'v1beta1', rev, { step: 3, state: 'Completed', canaryReplicas: 2, phase: 'Healthy', succeeded: 'True', message: 'Rollout progressing has been completed' });
      const done = await new Promise<number | null>((res) => w.child.once('exit', (code) => res(code)));
      assert.equal(done, 0, w.stderr());
      const lines = w.stdout().trimEnd().split('\n');
      assert.doesNotMatch(w.stdout(), /\x1b\[/, 'no ANSI when piped');
      // One line per change, never the same line twice in a row.
      for (let i = 1; i < lines.length; i++) assert.notEqual(lines[i], lines[i - 1]);
      assert.match(lines[lines.length - 1]!, /^rollout\/rollout-web  Complete  step 3\/3  Completed .*successfully rolled out/);
      // Cheap on requests: one list and one watch each of the Rollout, BatchRelease, CloneSet and pods, however
      // many changes (the test's own reads are GETs by name and its writes PATCHes).
      const reads = sb.audit().filter((e) => e.verb === 'list' || e.verb === 'watch');
      assert.deepEqual(reads.map((e) => `${e.verb} ${e.path.split('/').at(-1)}`).sort(), ['list batchreleases', 'list clonesets', 'list pods', 'list rollouts', 'watch batchreleases', 'watch clonesets', 'watch pods', 'watch rollouts']);
    } finally {
      if (w.child.exitCode === null) await w.stop();
    }
  });

  it('-w -o json: one JSON document per change; a cancelled release (Succeeded=False) ends it with exit 1', async () => {
    await writeRolloutStatus(sb, 'v1beta1', rev, { step: 1, state: 'StepPaused', canaryReplicas: 2 });
    const w = streamCli(['describe', 'rollout', 'rollout-web', '-w', '-o', 'json'], { kubeconfig: sb.kubeconfig });
    try {
      await w.waitFor(/"currentStepState":"StepPaused"/);
      await writeRolloutStatus(sb, 'v1beta1', rev, { step: 1, state: 'StepPaused', canaryReplicas: 2, phase: 'Progressing', succeeded: 'False', progressingReason: 'Cancelled' });
      const code = await new Promise<number | null>((res) => w.child.once('exit', (c) => res(c)));
      assert.equal(code, 1, w.stderr());
      const docs = w.stdout().trimEnd().split('\n').map((l) => JSON.parse(l));
      assert.equal(docs[0].verdict.state, 'StepPaused');
      assert.equal(docs[docs.length - 1].verdict.state, 'Failed');
      assert.match(docs[docs.length - 1].verdict.message, /cancelled/);
    } finally {
      if (w.child.exitCode === null) await w.stop();
    }
  });

  it('a Rollout whose workload is missing: described as not found, Blocked', async () => {
    const body = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'orphan', namespace: 'default' }, spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'ghost' }, strategy: { canary: { steps: [{ replicas: 1 }] } } } };
    const c = await sb.api('POST', '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts', body);
    assert.equal(c.status, 201, c.text);
    const r = await run('describe', 'rollout', 'orphan');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Workload:\s+CloneSet\/ghost — not found$/m);
    assert.match(r.stdout, /^Status:\s+Blocked$/m);
    assert.match(r.stdout, /^Pods: <none>$/m);
    assert.equal((await sb.api('DELETE', rolloutPath('v1beta1', 'orphan'))).status, 200);
  });

  it('-w: the Rollout deleted while watched ends it with one error line, exit 1', async () => {
    // Its own workload: Kruise Rollout's webhook refuses a second Rollout of CloneSet web (validateRolloutConflict).
    assert.equal((await sb.api('POST', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets', { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'gone-web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'gone-web' } }, template: { metadata: { labels: { app: 'gone-web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } } })).status, 201);
    const body = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'gone', namespace: 'default', annotations: { 'kruise-sandbox/controller': 'none' } }, spec: { workloadRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'gone-web' }, strategy: { canary: { steps: [{ replicas: 1 }] } } } };
    assert.equal((await sb.api('POST', '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts', body)).status, 201);
    const w = streamCli(['describe', 'rollout', 'gone', '-w'], { kubeconfig: sb.kubeconfig });
    try {
      await w.waitFor(/^rollout\/gone  /m);
      assert.equal((await sb.api('DELETE', rolloutPath('v1beta1', 'gone'))).status, 200);
      const code = await new Promise<number | null>((res) => (w.child.exitCode !== null ? res(w.child.exitCode) : w.child.once('exit', (c) => res(c))));
      assert.equal(code, 1);
      assert.equal(w.stderr(), 'error: rollout "gone" was deleted while watching it\n');
    } finally {
      if (w.child.exitCode === null) await w.stop();
    }
  });
});
