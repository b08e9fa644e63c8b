// rollout verify's CI outputs (src/printers/verify-report.ts): sections around a step's checks, the
// annotation of a failure, JUnit counts, a timeout's <error>, evidence only for what failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VerifyReport } from '../../../src/printers/verify-report';

const WHO = { namespace: 'shop', name: 'web' };

function clock(): () => number {
  let t = Date.parse('2026-11-29T07:00:00Z');
  return () => (t += 1000);
}

test('GitLab: a collapsed section per step, opened at the step and closed at its verdict; no annotation', () => {
  const r = new VerifyReport(WHO, 'gitlab', clock());
  const open = r.record({ event: 'step', step: 1, steps: 3, revision: 'abc', checks: ['errors'], run: 'ci-1' });
  assert.match(open.before, /^\x1b\[0Ksection_start:\d+:verify_web_step_1\[collapsed=true\]\r\x1b\[0Krollout\/web step 1\/3: errors\n$/);
  r.record({ event: 'measurement', step: 1, check: 'errors', type: 'prometheus', subject: 'q', index: 1, count: 1, outcome: 'pass', values: [0.01], message: '0.01' });
  r.record({ event: 'check', step: 1, check: 'errors', type: 'prometheus', phase: 'pass', reason: '1 of 1 passed', subject: 'q' });
  const close = r.record({ event: 'verdict', step: 1, revision: 'abc', verdict: 'pass', run: 'ci-1', recordedBy: 'this run', summary: 'errors pass' });
  assert.match(close.after, /^\x1b\[0Ksection_end:\d+:verify_web_step_1\r\x1b\[0K\n$/);
  assert.deepEqual(r.evidenceFiles(), []);
});

test('a timeout in the middle of a step: the open group is closed, annotated, and JUnit has the step\'s check skipped and an <error> for the release', () => {
  const r = new VerifyReport(WHO, 'github', clock());
  const started = Date.parse('2026-11-29T07:00:00Z');
  assert.equal(r.record({ event: 'step', step: 2, steps: 3, revision: 'abc', checks: ['smoke'], run: 'ci-1' }).before, '::group::rollout/web step 2/3: smoke\n');
  const end = r.finish('timeout', 'timed out after 5m verifying rollout/web (the release at step 2 StepPaused)');
  assert.equal(end, '::endgroup::\n::error title=rollout/web verify timed out::timed out after 5m verifying rollout/web (the release at step 2 StepPaused)\n');
  const xml = r.junit(started);
  assert.match(xml, /<testsuite name="rollout verify shop\/rollout\/web" tests="2" failures="0" errors="1" skipped="1"/);
  assert.match(xml, /<testcase classname="shop\.rollout\/web" name="release" time="[\d.]+">\n {6}<error message="timed out after 5m/);
});

test('a failed check: its measurements and evidence in the file and the summary; markup in a reason is escaped', () => {
  const r = new VerifyReport(WHO, 'github', clock());
  r.record({ event: 'step', step: 1, steps: 2, revision: 'abc', checks: ['smoke'], run: 'ci-1' });
  r.record({ event: 'check', step: 1, check: 'smoke', type: 'job', phase: 'fail', reason: 'job/x failed: <BackoffLimitExceeded> | 1', subject: 'job/x', evidence: ['pod/x-1: exit code 3'] });
  const v = r.record({ event: 'verdict', step: 1, revision: 'abc', verdict: 'fail', run: 'ci-1', recordedBy: 'this run', summary: 'smoke fail' });
  assert.equal(v.after, '::endgroup::\n::error title=rollout/web step 1 failed its checks::smoke fail\n');
  r.record({ event: 'rollback', step: 1, revision: 'abc', action: 'undo', message: 'rolled back' });
  assert.deepEqual(r.evidenceFiles(), [{ name: 'step-1-smoke.txt', content: 'smoke (job job/x) at step 1: fail: job/x failed: <BackoffLimitExceeded> | 1\n  pod/x-1: exit code 3\n' }]);
  assert.match(r.markdown(), /\| 1 \| `smoke` \| fail \| job\/x failed: &lt;BackoffLimitExceeded> \\\| 1 \| rolled back \(undo\) \|/);
  assert.match(r.junit(Date.parse('2026-11-29T07:00:00Z')), /<failure message="job\/x failed: &lt;BackoffLimitExceeded&gt; \| 1" type="CheckFailed">/);
});
