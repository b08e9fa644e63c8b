// A release gate's report, pure: rows from verdicts (printers/gate-rows.ts), the summary table and the
// events as `kubectl events` prints them (release-summary.ts; rows of kubectl's
// pkg/cmd/events/event_printer_test.go TestPrintObj), GitHub/GitLab commands and JUnit XML (ci-report.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectRef, rowFromProgress, rowFromRelease, verdictWord, worstExitCode } from '../../../src/printers/gate-rows';
import { eventInterval, summaryLine, summaryTable } from '../../../src/printers/release-summary';
import { ciFlavour, githubError, githubEscapeData, githubEscapeProperty, githubGroup, gitlabSection, junitXml, markdownSummary, xmlEscape } from '../../../src/printers/ci-report';
import { foldEvents } from '../../../src/kruise/evidence';
import type { RolloutProgress } from '../../../src/kruise/progress';
import type { ReleaseReport } from '../../../src/printers/rollout-release';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ago = (min: number) => new Date(NOW - min * 60_000).toISOString();

function progress(state: RolloutProgress['state'], extra: Partial<RolloutProgress> = {}): RolloutProgress {
  return { kind: 'CloneSet', apiVersion: 'apps.kruise.io/v1alpha1', namespace: 'default', name: 'web', state, replicas: 4, expectedUpdatedReplicas: 4, updatedReplicas: 2, updatedReadyReplicas: 1, updatedAvailableReplicas: 1, partition: 0, message: `cloneset "web" ${state}`, expectedFromStatus: true, ...extra };
}

test('gate-rows: the exit code of a release is its worst row, failed (1) > timed out (3) > not finished (4) > done', () => {
  assert.equal(worstExitCode([0, 3, 1, 4]), 1);
  assert.equal(worstExitCode([0, 4, 3]), 3);
  assert.equal(worstExitCode([0, 4]), 4);
  assert.equal(worstExitCode([]), 0);
});

test('gate-rows: rows from a workload verdict and a Rollout release; a row still waiting when another failed is stopped (exit 0 of its own)', () => {
  const failed = rowFromProgress(progress('Failed', { failedPod: { name: 'web-x', reason: 'CrashLoopBackOff', container: 'app' } }), 3.2, true);
  assert.deepEqual([failed.ref, failed.verdict, failed.code, failed.updated, failed.ready, failed.pod?.name], ['cloneset/web', 'failed', 1, 2, 1, 'web-x']);
  const stopped = rowFromProgress(progress('Progressing'), 3.2, false);
  assert.deepEqual([stopped.verdict, stopped.code, verdictWord(stopped)], ['stopped', 0, 'not finished (Progressing)']);
  assert.equal(rowFromProgress(progress('Paused'), 1, true).verdict, 'not-finished');
  assert.equal(objectRef('StatefulSet', 'apps.kruise.io/v1beta1', 'db'), 'statefulset.apps.kruise.io/db');
  assert.equal(objectRef('StatefulSet', 'apps/v1', 'db'), 'statefulset/db');
  const r: ReleaseReport = { apiVersion: 'rollouts.kruise.io/v1beta1', namespace: 'default', name: 'cart', workload: 'CloneSet/cart', state: 'StepPaused', reached: false, message: 'rollout "cart" is waiting for approval at step 1/2', steps: 2, step: 1, stepState: 'StepPaused', canaryReplicas: 1, canaryReadyReplicas: 1 };
  const paused = rowFromRelease(r, 2, false);
  assert.deepEqual([paused.ref, paused.step, verdictWord(paused), paused.code], ['rollout/cart', 'step 1/2 StepPaused', 'waiting for approval', 0]);
  const reached = rowFromRelease({ ...r, reached: true }, 2, true);
  assert.deepEqual([reached.verdict, verdictWord(reached)], ['done', 'reached (StepPaused)']);
});

test('release-summary: the table and the closing line say every row, the skipped objects and the exit code', () => {
  const rows = [rowFromProgress(progress('Complete', { updatedReplicas: 4, updatedReadyReplicas: 4 }), 12.4, true), rowFromProgress({ ...progress('Failed'), name: 'db' }, 65, true)];
  const table = summaryTable(rows);
  assert.match(table, /^WORKLOAD\s+VERDICT\s+UPDATED\s+READY\s+TIME\s+REASON\n/);
  assert.match(table, /cloneset\/web\s+complete\s+4\/4\s+4\/4\s+12s\s+cloneset "web" Complete\n/);
  assert.match(table, /cloneset\/db\s+failed\s+2\/4\s+1\/4\s+1m05s\s+/);
  assert.equal(summaryLine({ rows, skipped: { Service: 1, ConfigMap: 2 }, code: 1 }), '2 workloads: 1 failed, 1 complete; skipped 3 objects without a rollout (ConfigMap x2, Service); exit 1');
});

test('evidence: events folded and timed as kubectl events prints them (event_printer_test.go TestPrintObj)', () => {
  // TestPrintObj row 1: an events.k8s.io series of 3, first 20m ago, last observed 12m ago.
  const series = { type: 'Normal', reason: 'ScalingReplicaSet', message: 'Scaled up replica set bar-002 from 0 to 1', involvedObject: { kind: 'Deployment', name: 'bar' }, eventTime: ago(20), series: { count: 3, lastObservedTime: ago(12) } };
  const [line] = foldEvents([series]);
  assert.equal(eventInterval(line!, NOW), '12m (x3 over 20m)');
  assert.equal(line!.object, 'Deployment/bar');
  // core/v1 counts (the kubelet's BackOff): `LAST (xN over FIRST)`; a single event: when it was first seen.
  const backoff = { type: 'Warning', reason: 'BackOff', message: 'Back-off restarting failed container app in pod db-2_default(u)', involvedObject: { kind: 'Pod', name: 'db-2' }, firstTimestamp: ago(5), lastTimestamp: ago(1), count: 7 };
  const once = { type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull', involvedObject: { kind: 'Pod', name: 'db-1' }, firstTimestamp: ago(3), lastTimestamp: ago(3), count: 1 };
  const folded = foldEvents([backoff, once, { ...backoff, firstTimestamp: ago(9), lastTimestamp: ago(6), count: 2 }]);
  assert.deepEqual(folded.map((e) => [e.object, e.reason, eventInterval(e, NOW)]), [['Pod/db-1', 'Failed', '3m'], ['Pod/db-2', 'BackOff', '60s (x9 over 9m)']]);
  assert.equal(foldEvents(Array.from({ length: 30 }, (_, i) => ({ ...once, message: `m${i}`, lastTimestamp: ago(30 - i) })), 10).length, 10);
});

test('ci-report: GitHub workflow commands escaped as @actions/core escapeData/escapeProperty do; GitLab sections', () => {
  assert.equal(githubEscapeData('50% done\r\nnext'), '50%25 done%0D%0Anext');
  assert.equal(githubEscapeProperty('db: failed, again'), 'db%3A failed%2C again');
  assert.equal(githubError('statefulset/db failed', 'line 1\nline 2'), '::error title=statefulset/db failed::line 1%0Aline 2\n');
  // A line of the group that is itself a workflow command would end the group: it is indented.
  assert.equal(githubGroup('cloneset/web: complete', ['ok', '::endgroup::']), '::group::cloneset/web: complete\nok\n ::endgroup::\n::endgroup::\n');
  assert.equal(gitlabSection('gate default/cloneset/web', 'web', ['a'], 10, 12), '\x1b[0Ksection_start:10:gate_default_cloneset_web[collapsed=true]\r\x1b[0Kweb\na\n\x1b[0Ksection_end:12:gate_default_cloneset_web\r\x1b[0K\n');
  assert.equal(ciFlavour('auto', { GITHUB_ACTIONS: 'true' }), 'github');
  assert.equal(ciFlavour(undefined, { GITLAB_CI: 'true' }), 'gitlab');
  assert.equal(ciFlavour('auto', {}), 'none');
  assert.equal(ciFlavour('none', { GITHUB_ACTIONS: 'true' }), 'none');
});

test('ci-report: JUnit XML read by a real consumer (python3-junitparser): tests, failures, errors, skipped; no character XML forbids', () => {
  const rows = [
    rowFromProgress(progress('Complete'), 1, true),
    rowFromProgress({ ...progress('Failed'), name: 'db', message: 'crash <loop> & "quotes" \x1b[31mred\x1b[0m \x00' }, 2, true),
    rowFromProgress({ ...progress('TimedOut'), name: 'api' }, 3, true),
    rowFromProgress({ ...progress('Progressing'), name: 'cart' }, 3, false),
  ];
  const summary = { rows, skipped: {}, code: 1, evidence: new Map(), subject: 'the objects of shop.yaml' };
  const xml = junitXml(summary, { suite: 'kubectl kruise rollout status', startedAt: NOW - 3000, now: NOW });
  assert.doesNotMatch(xml, /\x1b|\x00/);
  assert.equal(xmlEscape(`a<b>&"'`), 'a&lt;b&gt;&amp;&quot;&apos;');
  const dir = mkdtempSync(join(tmpdir(), 'junit-'));
  const file = join(dir, 'report.xml');
  writeFileSync(file, xml);
  const read = execFileSync('/usr/bin/python3', ['-c', `
import sys
from junitparser import JUnitXml
x = JUnitXml.fromfile(sys.argv[1])
for s in x:
    print(s.name, s.tests, s.failures, s.errors, s.skipped)
    for c in s:
        print(c.classname, c.name, ','.join(type(r).__name__ for r in c.result) or 'passed', c.result[0].message if c.result else '')
`, file], { encoding: 'utf8' });
  assert.equal(read, ['the objects of shop.yaml 4 1 1 1', 'default cloneset/web passed ', 'default cloneset/db Failure crash <loop> & "quotes" red ', 'default cloneset/api Error cloneset "web" TimedOut', 'default cloneset/cart Skipped not waited for further (not finished (Progressing)): cloneset "web" Progressing', ''].join('\n'));
  const md = markdownSummary(summary, NOW);
  assert.match(md, /^### kubectl kruise rollout status: failed\n/);
  assert.match(md, /\| `cloneset\/db` \| default \| ❌ failed \| 2\/4 \| 1\/4 \| 2\.0s \| crash &lt;loop> & "quotes"/);
});
