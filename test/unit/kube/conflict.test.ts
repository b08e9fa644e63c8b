import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFLICT_ATTEMPTS, decideAndWrite, isStaleWrite, retryOnConflict } from '../../../src/kube/conflict';
import { CliError } from '../../../src/cli/exit';
import { apiError, type KubeStatus } from '../../../src/kube/errors';

const status = (code: number, reason: string, message: string, details: KubeStatus['details'] = {}): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code });
const ctx = { verb: 'patch', group: 'apps.kruise.io', resource: 'clonesets', name: 'web', namespace: 'default' };

const conflict = () => apiError(409, 'Conflict', status(409, 'Conflict', 'Operation cannot be fulfilled on clonesets.apps.kruise.io "web": the object has been modified; please apply your changes to the latest version and try again'), ctx);
const alreadyExists = () => apiError(409, 'Conflict', status(409, 'AlreadyExists', 'clonesets.apps.kruise.io "web" already exists'), { ...ctx, verb: 'create' });
/** What kube-apiserver sends for a JSON patch that no longer applies (json-patch's own text is dropped). */
const realServerFailedTest = () => apiError(422, 'Unprocessable Entity', status(422, 'Invalid', 'the server rejected our request due to an error in our request'), ctx);
/** What the sandbox sends (src/sandbox/server/patch/json-patch.ts): json-patch's text appended. */
const sandboxFailedTest = () =>
  apiError(422, 'Unprocessable Entity', status(422, 'Invalid', 'the server rejected our request due to an error in our request: testing value /metadata/resourceVersion failed: test failed'), ctx);
const sandboxMissingTestedPath = () =>
  apiError(422, 'Unprocessable Entity', status(422, 'Invalid', 'the server rejected our request due to an error in our request: test operation does not apply: missing key "metadata" in path "/metadata/x"'), ctx);
/** A validation failure is a 422 Invalid too, but names the object and lists causes. */
const validation = () =>
  apiError(
    422,
    'Unprocessable Entity',
    status(422, 'Invalid', 'CloneSet.apps.kruise.io "web" is invalid: spec.template.spec.containers[0].name: Invalid value: "test": a test container name', {
      causes: [{ reason: 'FieldValueInvalid', field: 'spec.template.spec.containers[0].name', message: 'Invalid value: "test"' }],
    }),
    ctx,
  );
const validationWithoutDetail = () =>
  apiError(422, 'Unprocessable Entity', status(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ reason: 'FieldValueRequired', field: 'spec.selector', message: 'Required value' }] }), ctx);
const notFound = () => apiError(404, 'Not Found', status(404, 'NotFound', 'clonesets.apps.kruise.io "web" not found'), ctx);

const noSleep = { sleep: async () => undefined };

test('what counts as "changed under us": 409 Conflict and a failed JSON-patch test, nothing else', () => {
  assert.ok(isStaleWrite(conflict()), '409 Conflict');
  assert.ok(isStaleWrite(realServerFailedTest()), '422 from kube-apiserver for a failed test op');
  assert.ok(isStaleWrite(sandboxFailedTest()), '422 from the sandbox for a failed test op');
  assert.ok(isStaleWrite(sandboxMissingTestedPath()), '422 for a test op whose path is gone');
  assert.ok(!isStaleWrite(alreadyExists()), '409 AlreadyExists');
  assert.ok(!isStaleWrite(validation()), 'a validation 422 that mentions "test"');
  assert.ok(!isStaleWrite(validationWithoutDetail()), 'a 422 with causes');
  assert.ok(!isStaleWrite(notFound()), '404');
  assert.ok(!isStaleWrite(new Error('testing value /x failed')), 'not an API error');
});

test('a conflicting step runs again (re-reading state) until it succeeds', async () => {
  let version = 0;
  const seen: number[] = [];
  const result = await retryOnConflict(async (attempt) => {
    seen.push(attempt);
    const fresh = ++version; // the step re-reads each time
    if (attempt === 1) throw conflict();
    if (attempt === 2) throw realServerFailedTest();
    return fresh;
  }, noSleep);
  assert.equal(result, 3);
  assert.deepEqual(seen, [1, 2, 3]);
});

test('bounded: the last server answer is surfaced, by default and through `exhausted`', async () => {
  let n = 0;
  await assert.rejects(
    retryOnConflict(async () => {
      n++;
      throw conflict();
    }, { ...noSleep, attempts: 3 }),
    (e: Error & { exitCode?: number }) => /the object has been modified; .* \(still conflicting after 3 attempts\)$/.test(e.message) && e.exitCode === 1,
  );
  assert.equal(n, 3);

  let m = 0;
  await assert.rejects(retryOnConflict(async () => {
    m++;
    throw m < CONFLICT_ATTEMPTS ? conflict() : sandboxFailedTest();
  }, noSleep), /testing value \/metadata\/resourceVersion failed: test failed \(still conflicting after 4 attempts\)/);
  assert.equal(m, CONFLICT_ATTEMPTS, 'the default bound');

  await assert.rejects(
    retryOnConflict(async () => {
      throw conflict();
    }, { ...noSleep, attempts: 2, exhausted: (last, attempts) => new Error(`web kept changing (${attempts} attempts); last: ${last.status}`) }),
    /^Error: web kept changing \(2 attempts\); last: 409$/,
  );
});

test('other errors are thrown at once, unchanged', async () => {
  for (const make of [notFound, validation, alreadyExists]) {
    const err = make();
    let n = 0;
    await assert.rejects(
      retryOnConflict(async () => {
        n++;
        throw err;
      }, noSleep),
      (e) => e === err,
    );
    assert.equal(n, 1, err.message);
  }
});

test('waits a little between attempts, and stops when aborted', async () => {
  const waits: number[] = [];
  await retryOnConflict(async (attempt) => {
    if (attempt < 3) throw conflict();
  }, { sleep: async (ms) => void waits.push(ms) });
  assert.equal(waits.length, 2);
  assert.ok(waits.every((ms) => ms > 0 && ms <= 1_250), `short pauses: ${waits}`);

  const ac = new AbortController();
  let n = 0;
  const err = conflict();
  await assert.rejects(
    retryOnConflict(async () => {
      n++;
      ac.abort();
      throw err;
    }, { ...noSleep, signal: ac.signal }),
    (e) => e === err,
  );
  assert.equal(n, 1);
});

test('a failed JSON patch test names the object it was about (the apiserver does not) and is still a stale write', () => {
  const err = realServerFailedTest();
  assert.equal(err.message, 'clonesets.apps.kruise.io "web" in namespace "default": the server rejected our request due to an error in our request');
  assert.equal(isStaleWrite(err), true);
  assert.equal(isStaleWrite(sandboxFailedTest()), true);
  // A message that already names the object is left as the server wrote it.
  assert.match(conflict().message, /^Operation cannot be fulfilled on clonesets\.apps\.kruise\.io "web"/);
});

test('decideAndWrite: after a refused write, writes again while the first decision still holds, and stops (exit 1, nothing written) once the state it rests on is gone', async () => {
  // The state read: which step waits. The write is refused twice: first an unrelated change, then the step moved.
  const reads = [{ step: 1, touched: 0 }, { step: 1, touched: 1 }, { step: 2, touched: 1 }];
  const writes: number[] = [];
  const attempt = () =>
    decideAndWrite({
      read: async () => reads.shift()!,
      decide: (s) => ({ step: s.step }),
      moved: (first, fresh) => (fresh.step !== first.step ? `step ${first.step} was already approved; the release is at step ${fresh.step}` : undefined),
      write: async (d) => {
        writes.push(d.step);
        throw realServerFailedTest();
      },
      retry: noSleep,
    });
  await assert.rejects(attempt(), (e: unknown) => e instanceof CliError && e.exitCode === 1 && e.message === 'step 1 was already approved; the release is at step 2');
  // Never a write decided on step 2, which nobody saw.
  assert.deepEqual(writes, [1, 1]);
});
