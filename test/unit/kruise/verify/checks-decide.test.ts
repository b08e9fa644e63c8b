// The checks schema of `rollout verify` (files and flags, one-line errors naming file and field), the verdict
// annotation and its conditional write, and the decision the command loops on — on YAML fixtures.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { checkFromFlags, expandVariables, parseChecksFile, type VerifyCheck } from '../../../../src/kruise/verify/checks';
import { decideVerify, manualSteps, planChecks } from '../../../../src/kruise/verify/decide';
import { afterRefusedRecord, recordedVerdict, recordVerdictPatch, verdictAnnotation, verdictTest, type VerdictRecord } from '../../../../src/kruise/verify/verdict';
import { readRollout } from '../../../../src/kruise/rollout/read';
import { approvePatch } from '../../../../src/kruise/rollout/patches';
import type { KubeObject } from '../../../../src/kruise/types';
import { jsonPatch } from '../../../../src/lib/json-patch';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures');
const load = (file: string): unknown => parse(readFileSync(join(FIXTURES, file), 'utf8'));
const checksOf = (file: string): VerifyCheck[] => parseChecksFile(load(`verify/${file}`), file);
const rollout = (): KubeObject => load('verify/rollout-web-two-manual.yaml') as KubeObject;
const NOW = Date.parse('2026-11-25T01:00:00Z');

describe('checks file', () => {
  test('the documented example: three checks, defaults filled in', () => {
    const [prom, http, job] = checksOf('checks-full.yaml');
    assert.deepEqual([prom!.name, prom!.steps, prom!.policy.count, prom!.policy.failureLimit, prom!.timing], ['error-rate', [1], 5, 1, { initialDelayMs: 5000, intervalMs: 10_000, timeoutMs: 30_000 }]);
    assert.equal(prom!.kind.type === 'prometheus' && prom!.kind.onEmpty, 'fail');
    assert.deepEqual([http!.name, http!.steps, http!.kind.type === 'http' && http!.kind.method, http!.kind.type === 'http' && http!.kind.condition?.text], ['health', undefined, 'GET', 'result <= 0.01']);
    assert.deepEqual([job!.steps, job!.timing.timeoutMs, job!.kind], [[1, 2], 300_000, { type: 'job', file: 'smoke-job.yaml', manifest: undefined }]);
  });
  test('errors are one line naming the file and the field', () => {
    assert.throws(() => checksOf('checks-bad-condition.yaml'), { message: 'checks-bad-condition.yaml: checks[0].prometheus.condition: invalid condition "value < 0.05": expected "result OP NUMBER" with OP one of < > <= >= == !=' });
    assert.throws(() => checksOf('checks-two-kinds.yaml'), { message: 'checks-two-kinds.yaml: checks[0]: takes only one of prometheus, http, job (has http, job)' });
    assert.throws(() => checksOf('checks-unknown-variable.yaml'), /checks\[0\]\.prometheus\.query: unknown variable \{\{canaryHsh\}\} \(known: \{\{canaryHash\}\}/);
    const bad: Array<[unknown, RegExp]> = [
      [{}, /^f\.yaml: checks: a non-empty list is required$/],
      [{ checks: [{ http: { url: 'ftp://x' } }] }, /checks\[0\]\.http\.url: "ftp:\/\/x": only http and https/],
      [{ checks: [{ http: { url: 'http://u:p@x/' } }] }, /credentials in the URL are refused/],
      [{ checks: [{ http: { url: 'http://x/' }, count: 0 }] }, /checks\[0\]\.count: must be an integer ≥ 1, not 0/],
      [{ checks: [{ http: { url: 'http://x/' }, interval: '10' }] }, /checks\[0\]\.interval: invalid duration "10" \(a unit is needed/],
      [{ checks: [{ http: { url: 'http://x/' }, retries: 3 }] }, /checks\[0\]\.retries: unknown field/],
      [{ checks: [{ http: { url: 'http://x/', jsonPath: '{.a}' } }] }, /jsonPath and condition go together/],
      [{ checks: [{ job: { file: 'j.yaml' }, count: 3 }] }, /checks\[0\]\.count: a job check runs its Job once/],
      [{ checks: [{ job: { manifest: { apiVersion: 'v1', kind: 'Pod' } } }] }, /checks\[0\]\.job\.manifest: must be a batch\/v1 Job, not v1 Pod/],
      [{ checks: [{ name: 'a', http: { url: 'http://x/' } }, { name: 'a', http: { url: 'http://y/' } }] }, /checks\[1\]\.name: "a" is used twice/],
      [{ checks: [{ prometheus: { address: 'http://p', query: 'up', condition: 'result > 0', bearerTokenFile: 't', bearerTokenEnv: 'T' } }] }, /bearerTokenFile and bearerTokenEnv exclude each other/],
      [{ checks: [{ http: { url: 'http://x/' }, count: 2, successLimit: 3 }] }, /successLimit: 3 is more than count 2/],
    ];
    for (const [doc, re] of bad) assert.throws(() => parseChecksFile(doc, 'f.yaml'), { message: re }, JSON.stringify(doc));
  });
  test('one check from the flags; errors speak of the flags', () => {
    const c = checkFromFlags({ prometheus: 'http://127.0.0.1:9090', query: 'up', condition: 'result == 1', count: '3', interval: '1s', step: '2', failureLimit: '1' })!;
    assert.deepEqual([c.name, c.steps, c.policy.count, c.policy.failureLimit, c.timing.intervalMs, c.origin], ['prometheus-1', [2], 3, 1, 1000, '--prometheus']);
    assert.equal(checkFromFlags({}), undefined);
    const limits = checkFromFlags({ prometheus: 'http://p', query: 'up', condition: 'result == 1', count: '5', inconclusiveLimit: '2', consecutiveErrorLimit: '1' })!;
    assert.deepEqual([limits.policy.inconclusiveLimit, limits.policy.consecutiveErrorLimit], [2, 1]);
    assert.throws(() => checkFromFlags({ http: 'http://x', consecutiveErrorLimit: '-1' }), { message: 'invalid value "-1" for --consecutive-error-limit: must be a non-negative integer' });
    assert.throws(() => checkFromFlags({ inconclusiveLimit: '1' }), { message: '--inconclusive-limit describes a check: give --prometheus, --http or --job with it' });
    assert.throws(() => checkFromFlags({ prometheus: 'http://p' , condition: 'result < 1' }), { message: '--query: required with --prometheus' });
    assert.throws(() => checkFromFlags({ prometheus: 'http://p', query: 'up', condition: 'result ~ 1' }), { message: /^--condition: invalid condition/ });
    assert.throws(() => checkFromFlags({ query: 'up' }), { message: '--query describes a check: give --prometheus, --http or --job with it' });
    assert.throws(() => checkFromFlags({ http: 'http://x', job: 'j.yaml' }), /one check on the command line \(several: --checks FILE\)/);
    assert.throws(() => checkFromFlags({ http: 'http://x', query: 'up' }), { message: '--query goes with --prometheus, not --http' });
    assert.throws(() => checkFromFlags({ http: 'http://x', count: 'many' }), /invalid value "many" for --count/);
    assert.throws(() => checkFromFlags({ http: 'http://x', interval: '5' }), { message: /^--interval: invalid duration "5"/ });
    // --jsonpath as commander names it (`jsonpath`): it reached the check as undefined (exit 2: "jsonPath and condition go together").
    const h = checkFromFlags({ http: '/api/v1/namespaces/d/services/s:80/proxy/health', jsonpath: '{.errorRate}', condition: 'result < 0.05' })!;
    assert.equal(h.kind.type === 'http' && h.kind.jsonPath, '{.errorRate}');
  });
  test('variables: the canary revision and its pod-template-hash', () => {
    const vars = { canaryHash: '7c9b8d6f5', canaryRevision: 'web-7c9b8d6f5', stableRevision: 'web-5d8f9c7b6', rollout: 'web', namespace: 'default', step: '1' };
    assert.equal(expandVariables('rate(x{pod_template_hash="{{canaryHash}}",ns="{{ namespace }}"}[1m]) {{other}}', vars), 'rate(x{pod_template_hash="7c9b8d6f5",ns="default"}[1m]) {{other}}');
  });
});

describe('planChecks: checks at steps waiting for approval only', () => {
  test('a check without step runs at every manual step; a named step must wait for a person', () => {
    assert.deepEqual(manualSteps(readRollout(rollout())), [1, 2]);
    const plan = planChecks(rollout(), [checkFromFlags({ http: 'http://x/' })!], { approveUnchecked: false });
    assert.deepEqual([...plan.checked], [[1, ['http-1']], [2, ['http-1']]]);
    assert.throws(() => planChecks(rollout(), [checkFromFlags({ http: 'http://x/', step: '3' })!], { approveUnchecked: false }), /--http: step 3 of rollout "web" is the last step \(100%\): the release completes with it; checks run at steps waiting for approval \(1, 2\)/);
    assert.throws(() => planChecks(rollout(), [checkFromFlags({ http: 'http://x/', step: '4' })!], { approveUnchecked: false }), /has steps 1\.\.3: there is no step 4/);
    const timed = load('rollout-kruise/v1beta1-canary-manual-step.yaml') as KubeObject;
    assert.throws(() => planChecks(timed, [checkFromFlags({ http: 'http://x/', step: '2' })!], { approveUnchecked: false }), /step 2 of rollout "demo" pauses for 60s and then goes on by itself/);
  });
});

function withVerdict(obj: KubeObject, record: VerdictRecord): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, [verdictAnnotation(record.step)]: JSON.stringify(record) } } };
}
const record = (verdict: 'pass' | 'fail', over: Partial<VerdictRecord> = {}): VerdictRecord => ({ rollout: 'web', revision: '7c9b8d6f5', step: 1, verdict, run: 'run-a', at: '2026-11-25T01:00:00Z', summary: 'x', ...over });

describe('decideVerify', () => {
  const plan = planChecks(rollout(), [checkFromFlags({ http: 'http://x/', step: '1' })!], { approveUnchecked: false });
  test('step 1 waits, nothing recorded: check it', () => {
    assert.deepEqual(decideVerify(rollout(), undefined, plan, NOW), { kind: 'check', step: 1, revision: '7c9b8d6f5', checks: ['http-1'] });
  });
  test('a pass recorded for this release and step: approve; for another release (same step): check again', () => {
    assert.equal(decideVerify(withVerdict(rollout(), record('pass')), undefined, plan, NOW).kind, 'approve');
    assert.equal(decideVerify(withVerdict(rollout(), record('pass', { revision: 'older' })), undefined, plan, NOW).kind, 'check');
  });
  test('a fail recorded for this release: roll back (also once the release is cancelled); a cancelled release without one: cancelled', () => {
    assert.equal(decideVerify(withVerdict(rollout(), record('fail')), undefined, plan, NOW).kind, 'rollback');
    const cancelled = load('rollout-kruise/v1beta1-cancelled.yaml') as KubeObject;
    assert.equal(decideVerify(cancelled, undefined, plan, NOW).kind, 'cancelled');
    const rev = readRollout(cancelled).status.canaryRevision!;
    assert.equal(decideVerify(withVerdict(cancelled, record('fail', { revision: rev })), undefined, plan, NOW).kind, 'rollback');
  });
  test('a complete release is done whatever was recorded', () => {
    const done = load('rollout-kruise/v1beta1-completed.yaml') as KubeObject;
    assert.equal(decideVerify(withVerdict(done, record('fail', { revision: readRollout(done).status.canaryRevision! })), undefined, plan, NOW).kind, 'complete');
  });
  test('a manual step without checks: left to people, or approved with --approve-unchecked; --until=step=1 stops before checking it', () => {
    const only2 = planChecks(rollout(), [checkFromFlags({ http: 'http://x/', step: '2' })!], { approveUnchecked: false });
    const wait = decideVerify(rollout(), undefined, only2, NOW);
    assert.equal(wait.kind, 'wait');
    assert.match((wait as { message: string }).message, /waits for approval at step 1\/3, which has no checks: left to people/);
    assert.deepEqual(decideVerify(rollout(), undefined, { ...only2, approveUnchecked: true }, NOW), { kind: 'approve', step: 1, revision: '7c9b8d6f5' });
    assert.equal(decideVerify(rollout(), undefined, { ...plan, untilStep: 1 }, NOW).kind, 'until');
  });
  test('paused by a person (spec.strategy.paused): wait', () => {
    const obj = rollout() as KubeObject & { spec: { strategy: { paused?: boolean } } };
    obj.spec.strategy.paused = true;
    assert.equal(decideVerify(obj, undefined, plan, NOW).kind, 'wait');
  });
});

describe('decideVerify on a blue-green release (blueGreenStatus: updatedRevision is the release)', () => {
  const bg = (): KubeObject => (parse(readFileSync(join(import.meta.dirname, '../../../fixtures/rollout-kruise/v1beta1-bluegreen.yaml'), 'utf8').split('\n---\n')[0]!) as KubeObject);
  const plan = planChecks(bg(), [checkFromFlags({ http: 'http://x/' })!], { approveUnchecked: false });
  test('the manual steps are checked on the updated revision; a pass recorded for it approves with the blue-green approval', () => {
    // Blue-green's last step waits for a person too (isFinalFullStep: only a canary's final 100% goes on by itself).
    assert.deepEqual(manualSteps(readRollout(bg())), [1, 2]);
    assert.deepEqual(decideVerify(bg(), undefined, plan, NOW), { kind: 'check', step: 1, revision: '5f8d7c6b9', checks: ['http-1'] });
    const passed = withVerdict(bg(), record('pass', { rollout: 'checkout', revision: '5f8d7c6b9' }));
    assert.equal(decideVerify(passed, undefined, plan, NOW).kind, 'approve');
    const patch = approvePatch(passed);
    assert.ok(patch && 'patch' in patch, JSON.stringify(patch));
    assert.match(JSON.stringify(patch), /blueGreenStatus\/currentStepState/);
    assert.equal(decideVerify(withVerdict(bg(), record('fail', { rollout: 'checkout', revision: '5f8d7c6b9' })), undefined, plan, NOW).kind, 'rollback');
  });
});

describe('the verdict annotation and its conditional write', () => {
  test('a pass rests on the annotation (absent: the resourceVersion), the revision and the step waiting', () => {
    const obj = rollout();
    const view = readRollout(obj);
    const w = recordVerdictPatch(obj, view, record('pass'));
    assert.deepEqual(w.patch.filter((o) => o.op === 'test'), [
      { op: 'test', path: '/metadata/resourceVersion', value: '120' },
      { op: 'test', path: '/status/canaryStatus/canaryRevision', value: '7c9b8d6f5' },
      { op: 'test', path: '/status/canaryStatus/currentStepIndex', value: 1 },
      { op: 'test', path: '/status/canaryStatus/currentStepState', value: 'StepPaused' },
    ]);
    const after = jsonPatch(obj, w.patch) as KubeObject;
    assert.deepEqual(recordedVerdict(after, 1, '7c9b8d6f5'), record('pass'));
    // The approval is held to that verdict.
    const approve = approvePatch(after);
    assert.ok(approve.patch);
    const held = [verdictTest(after, 1)!, ...approve.patch];
    assert.doesNotThrow(() => jsonPatch(after, held));
    assert.throws(() => jsonPatch(withVerdict(after, record('fail', { run: 'run-b' })), held));
  });
  test('a fail rests on the release only; an old release\'s verdict is tested as read and overwritten', () => {
    const old = withVerdict(rollout(), record('pass', { revision: 'older' }));
    const w = recordVerdictPatch(old, readRollout(old), record('fail'));
    assert.deepEqual(w.patch.filter((o) => o.op === 'test').map((o) => o.path), ['/metadata/annotations/verify.kubectl-kruise.io~1step-1', '/status/canaryStatus/canaryRevision']);
    assert.equal(recordedVerdict(jsonPatch(old, w.patch) as KubeObject, 1, '7c9b8d6f5')?.verdict, 'fail');
  });
  test('after a refused record: adopt the verdict another run recorded; gone when the release or the waiting step is; else again', () => {
    const mine = record('pass', { run: 'run-b' });
    const theirs = withVerdict(rollout(), record('fail'));
    assert.deepEqual(afterRefusedRecord(theirs, readRollout(theirs), mine), { kind: 'adopt', record: record('fail') });
    const approved = rollout() as KubeObject & { status: { canaryStatus: { currentStepState: string } } };
    approved.status.canaryStatus.currentStepState = 'StepReady';
    assert.equal(afterRefusedRecord(approved, readRollout(approved), mine).kind, 'gone');
    assert.equal(afterRefusedRecord(approved, readRollout(approved), record('fail')).kind, 'again');
    assert.equal(afterRefusedRecord(rollout(), readRollout(rollout()), mine).kind, 'again');
  });
});
