// Steps shared by the reliability and security suites: seed a sandbox through the API
// (tolerating the faults it injects), wait for a settled CloneSet, and check what a user
// would see in a command's output (one `error:` line, no stack trace, no secret).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT, type RunResult, type Streaming } from '../helpers/cli';
import { waitUntil, type ApiResponse, type AuditEntry, type Sandbox } from '../helpers/sandbox';

export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'reliability');
export const CLONESET = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets';
export const CRRS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/containerrecreaterequests';
export const RUN_LABEL = 'kubectl-kruise/restart-id';

export function fixture(name: string): any {
  return parseAllDocuments(readFileSync(join(FIXTURES, name), 'utf8'))[0]!.toJS();
}

/** An API call repeated through injected 5xx/429s (the tests' own reads must not be flaky). */
export async function apiSteady<T = any>(sb: Sandbox, method: string, path: string, body?: unknown, contentType?: string): Promise<ApiResponse<T>> {
  for (let i = 0; ; i++) {
    const r = await sb.api<T>(method, path, body, contentType ? { contentType } : {});
    if ((r.status !== 429 && r.status < 500) || i >= 20) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** Creates CloneSet `web` (fixture), optionally renamed/resized, and waits until every pod is updated and ready. */
export async function createCloneSet(sb: Sandbox, opts: { name?: string; replicas?: number } = {}): Promise<any> {
  const cs = fixture('cloneset-web.yaml');
  const name = opts.name ?? 'web';
  cs.metadata.name = name;
  cs.metadata.labels.app = name;
  cs.spec.selector.matchLabels.app = name;
  cs.spec.template.metadata.labels.app = name;
  if (opts.replicas !== undefined) cs.spec.replicas = opts.replicas;
  const r = await apiSteady(sb, 'POST', CLONESET, cs);
  assert.equal(r.status, 201, r.text);
  return waitCloneSetSettled(sb, name);
}

export async function getCloneSet(sb: Sandbox, name = 'web'): Promise<any> {
  const r = await apiSteady(sb, 'GET', `${CLONESET}/${name}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

/** Waits until the controller observed the spec and every pod runs the update revision and is ready. */
export function waitCloneSetSettled(sb: Sandbox, name = 'web', timeoutMs = 20_000): Promise<any> {
  return waitUntil(
    `cloneset ${name} to settle`,
    async () => {
      const r = await sb.api(`GET`, `${CLONESET}/${name}`);
      if (r.status !== 200) return undefined;
      const o = r.body;
      const s = o.status ?? {};
      const want = o.spec.replicas;
      const settled = (s.observedGeneration ?? 0) >= o.metadata.generation && s.replicas === want && s.updatedReplicas === want && s.updatedReadyReplicas === want && s.availableReplicas === want;
      return settled ? o : undefined;
    },
    timeoutMs,
  );
}

export async function patchCloneSet(sb: Sandbox, name: string, patch: unknown): Promise<any> {
  const r = await apiSteady(sb, 'PATCH', `${CLONESET}/${name}`, patch, 'application/merge-patch+json');
  assert.equal(r.status, 200, r.text);
  return r.body;
}

export async function listCrrs(sb: Sandbox, selector?: string): Promise<any[]> {
  const r = await apiSteady(sb, 'GET', `${CRRS}${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`);
  assert.equal(r.status, 200, r.text);
  return r.body.items;
}

export async function podsOf(sb: Sandbox, app: string): Promise<any[]> {
  const r = await apiSteady(sb, 'GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(`app=${app}`)}`);
  assert.equal(r.status, 200, r.text);
  return (r.body.items as any[]).filter((p) => !p.metadata.deletionTimestamp);
}

export function describeRun(r: RunResult): string {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

/** No JavaScript stack frame and no internal error class name reaches the user. */
export function assertNoStackTrace(text: string, what = 'output'): void {
  assert.doesNotMatch(text, /^\s+at .+(\(|:\d+:\d+)/m, `${what} has a stack trace:\n${text}`);
  assert.doesNotMatch(text, /\b(TypeError|ReferenceError|RangeError|UnhandledPromiseRejection|ERR_UNHANDLED)\b/, `${what} has an internal error:\n${text}`);
}

/** Exactly one `error:` line, and it matches `cause`. */
export function assertOneErrorLine(r: RunResult, cause: RegExp): void {
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
  assert.equal(errors.length, 1, `one error line expected\n${describeRun(r)}`);
  assert.match(errors[0]!, cause, describeRun(r));
  assertNoStackTrace(r.stderr, 'stderr');
}

export const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
export const writes = (entries: AuditEntry[]): AuditEntry[] => entries.filter((e) => WRITE_VERBS.has(e.verb));

/** Request key for matching a failed request with its retry. */
export const requestKey = (e: AuditEntry): string => `${e.method} ${e.path}?${e.query}`;

/** Waits for a streaming command to exit on its own (SIGKILL and throw after the deadline). */
export async function waitExit(s: Streaming, timeoutMs: number): Promise<RunResult> {
  try {
    await waitUntil('the command to exit', () => s.child.exitCode !== null || s.child.signalCode !== null, timeoutMs, 50);
  } catch (err) {
    const r = await s.stop('SIGKILL');
    throw new Error(`${(err as Error).message}\n${describeRun(r)}`);
  }
  return s.stop();
}
