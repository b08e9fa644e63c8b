// `describe rollout` text and the one-line-per-change form, on the Rollout fixtures of
// test/fixtures/rollout-kruise (canary waiting for a person, timed pause, blue-green, cancelled).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRollout } from '../../../src/kruise/rollout/describe-view';
import type { Pod } from '../../../src/kruise/types';
import { fitToTerminal, formatSeconds, redrawInPlace, renderRolloutDescribe, renderRolloutFrame, rolloutChangeLine, terminalRows, viewChangeKey } from '../../../src/printers/rollout-describe';
import { loadFixture, loadKind } from '../kruise/rollout/helpers';

const cloneSet = loadKind('cloneset-demo.yaml', 'CloneSet');
const pods = loadFixture('cloneset-demo-pods.yaml') as Pod[];
const br = loadKind('batchrelease-demo.yaml', 'BatchRelease');
const NOW = Date.parse('2026-11-25T01:00:30Z');
const PROGRAM = 'kubectl kruise';

const render = (file: string, now = NOW): string => renderRolloutDescribe(describeRollout(loadKind(file, 'Rollout'), cloneSet, pods, br, now), { programName: PROGRAM });
const stepRows = (text: string): string[] => {
  const block = text.slice(text.indexOf('Steps:\n') + 'Steps:\n'.length, text.indexOf('Pods:'));
  return block.trimEnd().split('\n').slice(1).map((l) => l.trim().replace(/\s{2,}/g, ' | '));
};

test('manual pause: step 1 marked current with the approve command; later steps pending; Waiting line', () => {
  const text = render('v1beta1-canary-manual-step.yaml');
  assert.deepEqual(stepRows(text), [
    '▶ | 1 | 1 | - | manual | StepPaused, waiting for approval: kubectl kruise rollout approve rollout/demo -n shop',
    '· | 2 | 40% (2) | - | 60s | pending',
    '· | 3 | 100% (5) | - | - | pending',
  ]);
  assert.match(text, /^Status:\s+StepPaused$/m);
  assert.match(text, /^Waiting:\s+waiting for approval: kubectl kruise rollout approve rollout\/demo -n shop$/m);
  assert.match(text, /^Batch:\s+1\/3 Ready \(updated 1, ready 1\)$/m);
  // Pods grouped by revision and batch, with readiness and age.
  assert.match(text, /^  canary  demo-7b5d6c9f4  batch 1  \(1\/1 ready\)\n\s+NAME\s+READY\s+STATUS\s+AGE\n\s+demo-4xq7k\s+yes\s+Running\s+2m50s$/m);
  assert.match(text, /^  stable  demo-6c4f9b7d8  \(3\/4 ready\)$/m);
  assert.match(text, /^\s+demo-r7n3d\s+no\s+Running\s+16h$/m);
  assert.match(text, /^\s+stable\s+demo-6c4f9b7d8\s+4\s+3\s+web=nginx:1\.24\.0$/m);
  assert.match(text, /^\s+canary\s+demo-7b5d6c9f4\s+1\s+1\s+web=nginx:1\.25\.3$/m);
});

test('timed pause: step 1 done, step 2 current with the seconds left (no approval hint); the countdown follows the clock', () => {
  const text = render('v1beta1-canary-timed-pause.yaml');
  assert.deepEqual(stepRows(text).slice(0, 2), ['✔ | 1 | 1 | - | manual | done', '▶ | 2 | 40% (2) | - | 60s | StepPaused, pause ends in 30s']);
  assert.doesNotMatch(text, /approve/);
  assert.match(text, /^Waiting:\s+pause ends in 30s$/m);
  assert.match(stepRows(render('v1beta1-canary-timed-pause.yaml', NOW + 20_000))[1]!, /pause ends in 10s$/);
});

test('completed: every step done, Status Complete, no Waiting line', () => {
  const text = render('v1beta1-completed.yaml');
  assert.deepEqual(stepRows(text).map((r) => r.slice(0, 1)), ['✔', '✔', '✔']);
  assert.match(text, /^Status:\s+Complete$/m);
  assert.doesNotMatch(text, /^Waiting:/m);
});

test('cancelled (Succeeded=False): Status Failed with the reason, no approval hint on the step it stopped at', () => {
  const text = render('v1beta1-cancelled.yaml');
  assert.match(text, /^Status:\s+Failed$/m);
  assert.match(text, /^Message:\s+rollout "demo" was cancelled: Rollout progressing has been cancelled \(Succeeded=False\)$/m);
  assert.equal(stepRows(text)[0], '▶ | 1 | 1 | - | manual | StepPaused');
  assert.match(text, /^Conditions:\n\s+TYPE.*\n\s+Progressing\s+False\s+Completed\s+2026-11-25T01:02:00Z\s+Rollout progressing has been cancelled$/m);
});

test('blue-green on a Deployment: strategy shown, traffic weight of the current step, approval hint at step 1', () => {
  const deploy = loadKind('v1beta1-bluegreen.yaml', 'Deployment');
  const v = describeRollout(loadKind('v1beta1-bluegreen.yaml', 'Rollout'), deploy, [], undefined, NOW);
  const text = renderRolloutDescribe(v, { programName: PROGRAM });
  assert.match(text, /^Strategy:\s+blue-green$/m);
  assert.match(text, /^Traffic:\s+0%$/m);
  assert.match(stepRows(text)[0]!, /^▶ \| 1 \| 50% \(\d+\) \| 0% \| manual \| StepPaused, waiting for approval: kubectl kruise rollout approve rollout\/checkout -n shop$/);
  // blue-green's last step has no "100% ends at once" rule (rollout_bluegreen.go doCanaryPaused): it waits too.
  assert.match(stepRows(text)[1]!, /\| 100% \| manual \| pending$/);
  assert.match(text, /^Pods: <none>$/m);
});

test('workload missing: "not found", Blocked', () => {
  const v = describeRollout(loadKind('v1beta1-workload-missing.yaml', 'Rollout'), null, [], undefined, NOW);
  const text = renderRolloutDescribe(v, { programName: PROGRAM });
  assert.match(text, /^Workload:\s+\S+ — not found$/m);
  assert.match(text, /^Status:\s+Blocked$/m);
});

test('one line per change: same release, later clock → same line and same change key; a new step → a new line', () => {
  const at = (file: string, now: number) => describeRollout(loadKind(file, 'Rollout'), cloneSet, pods, br, now);
  const a = at('v1beta1-canary-timed-pause.yaml', NOW);
  const b = at('v1beta1-canary-timed-pause.yaml', NOW + 5_000);
  assert.equal(rolloutChangeLine(a, PROGRAM), rolloutChangeLine(b, PROGRAM));
  assert.equal(viewChangeKey(a), viewChangeKey(b));
  const m = at('v1beta1-canary-manual-step.yaml', NOW);
  assert.equal(rolloutChangeLine(m, PROGRAM), 'rollout/demo  StepPaused  step 1/3  StepPaused  canary 1/1 ready  stable 3/4 ready  (waiting for approval: kubectl kruise rollout approve rollout/demo -n shop)');
  assert.equal(rolloutChangeLine(a, PROGRAM), 'rollout/demo  Progressing  step 2/3  StepPaused  canary 1/1 ready  stable 3/4 ready');
  assert.doesNotMatch(rolloutChangeLine(m, PROGRAM), /\n/);
});

test('terminal rows of a redraw: wrapped long lines count as several, colour codes count as nothing', () => {
  assert.equal(terminalRows('a\nb\n', 80), 2);
  assert.equal(terminalRows(`${'x'.repeat(100)}\nshort\n`, 40), 4);
  assert.equal(terminalRows('\x1b[32mok\x1b[39m\n', 2), 1);
  assert.deepEqual([formatSeconds(59), formatSeconds(150), formatSeconds(7200)], ['59s', '2m30s', '120m']);
});

test('redraw in place: cursor up over the last drawing, each line cleared to its end, never a clear from the top-left corner', () => {
  assert.equal(redrawInPlace('a\nbb\n', 0), 'a\x1b[K\nbb\x1b[K\n\x1b[J');
  assert.equal(redrawInPlace('a\n', 3), '\x1b[3A\ra\x1b[K\n\x1b[J');
  assert.doesNotMatch(redrawInPlace('a\n', 3), /\x1b\[3A\r\x1b\[J/);
});

test('a frame taller than the terminal is cut to fit (else each redraw would leave its top in the scrollback)', () => {
  const text = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
  assert.equal(fitToTerminal(text, 80, 40), text);
  assert.equal(fitToTerminal(text, 80, undefined), text);
  const cut = fitToTerminal(text, 80, 10);
  assert.equal(terminalRows(cut, 80), 9);
  assert.match(cut, /^line 0\n(?:.*\n){7}… 22 more lines \(a taller terminal shows them; -o json has everything\)\n$/);
  // Wrapped lines count by the rows they take.
  const wide = fitToTerminal(`${'x'.repeat(100)}\n`.repeat(10), 50, 10);
  assert.ok(terminalRows(wide, 50) <= 9);
});

/** The demo CloneSet's pods four times over (20 pods: 4 canary, 16 stable): a pod table taller than the terminal. */
const manyPods = [0, 1, 2, 3].flatMap((i) => pods.map((p) => ({ ...p, metadata: { ...p.metadata, name: `${p.metadata.name}-${i}` } }) as Pod));
const frameOf = (file: string, size: { columns?: number; rows?: number }): string =>
  renderRolloutFrame(describeRollout(loadKind(file, 'Rollout'), cloneSet, manyPods, br, NOW), { programName: PROGRAM }, size);

test('-w at 80×24: the header (long fields folded to the width) and the whole Steps table show; the pods shrink to one line first', () => {
  const frame = frameOf('v1beta1-canary-manual-step.yaml', { columns: 80, rows: 24 });
  assert.ok(terminalRows(frame, 80) <= 23, frame);
  assert.ok(frame.split('\n').every((l) => [...l].length <= 80), frame);
  // Every field of the header, the long ones folded under their value.
  for (const label of ['Name', 'Namespace', 'API Version', 'Workload', 'Strategy', 'Status', 'Phase', 'Message', 'Controller', 'Step', 'Waiting', 'Traffic', 'Batch']) assert.match(frame, new RegExp(`^${label}:`, 'm'), label);
  assert.match(frame, /^Message:\s+rollout "demo" is waiting for approval at step 1\/3 \(1 of 1\n {16}canary pods ready\): approve it to continue$/m);
  assert.match(frame, /^Waiting:\s+waiting for approval: kubectl kruise rollout approve\n {16}rollout\/demo -n shop$/m);
  // The steps, all of them (the wait is said by Waiting above, not again in the table).
  assert.deepEqual(stepRows(frame), ['▶ | 1 | 1 | - | manual | StepPaused', '· | 2 | 40% (2) | - | 60s | pending', '· | 3 | 100% (5) | - | - | pending']);
  assert.match(frame, /^Pods: canary 4\/4, stable 12\/16 ready \(a taller terminal shows them\)$/m);
  assert.doesNotMatch(frame, /more lines/);
  // What the frame used to be: cut from the bottom, the Steps table gone.
  assert.doesNotMatch(fitToTerminal(renderRolloutDescribe(describeRollout(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet, manyPods, br, NOW), { programName: PROGRAM }), 80, 24), /^ {2}▶/m);
});

test('-w with a little more room: the pod table cut to what fits, closed by a "... N more pods" line; the Revisions table before it', () => {
  const frame = frameOf('v1beta1-canary-timed-pause.yaml', { columns: 80, rows: 30 });
  assert.ok(terminalRows(frame, 80) <= 29, frame);
  assert.match(frame, /^Revisions:\n.*\n\s+stable\s+demo-6c4f9b7d8\s+16\s+12\s/m);
  assert.equal(stepRows(frame).length, 3);
  assert.match(frame, /^Pods:\n {2}canary {2}demo-7b5d6c9f4 {2}batch 1 {2}\(4\/4 ready\)\n\s+NAME\s+READY\s+STATUS\s+AGE\n\s+demo-4xq7k-0\s+yes\s+Running\s+2m50s\n {2}\.\.\. 19 more pods \(a taller terminal shows them\)\n$/m);
});

test('the last frame (the watch ends: completed, cancelled, Ctrl-C) is the whole view, not cut', () => {
  const whole = frameOf('v1beta1-cancelled.yaml', { columns: 80 });
  assert.equal(whole.match(/^ {4}demo-\S+-\d\s/gm)?.length, 20);
  assert.match(whole, /^Conditions:\n\s+TYPE/m);
  assert.equal(frameOf('v1beta1-cancelled.yaml', { columns: 80, rows: 200 }), whole);
  // Without a width (not a terminal) nothing is folded: the plain describe.
  assert.equal(frameOf('v1beta1-canary-manual-step.yaml', {}), renderRolloutDescribe(describeRollout(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet, manyPods, br, NOW), { programName: PROGRAM }));
});

test('a canary pod stuck in ImagePullBackOff shows the reason instead of its phase', () => {
  const stuck = pods.map((p) =>
    p.metadata.name === 'demo-4xq7k'
      ? { ...p, status: { ...p.status, conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: [{ name: 'web', ready: false, restartCount: 0, image: 'nginx:1.25.3', imageID: '', state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } } }] } }
      : p,
  ) as Pod[];
  const text = renderRolloutDescribe(describeRollout(loadKind('v1beta1-canary-manual-step.yaml', 'Rollout'), cloneSet, stuck, br, NOW), { programName: PROGRAM });
  assert.match(text, /^\s+demo-4xq7k\s+no\s+ImagePullBackOff\s+2m50s$/m);
  assert.match(text, /^  canary  demo-7b5d6c9f4  batch 1  \(0\/1 ready\)$/m);
});
