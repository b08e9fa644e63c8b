// Runs one check of `rollout verify` for one step: its measurements at its timing (initialDelay, then one every
// interval, each bounded by timeout), folded as src/kruise/verify/measurements.ts says, each reported as it is
// taken; a job check creates its Job (or follows the one a previous run created) and waits for it. Ctrl-C (the
// signal) stops it at once, deciding nothing.
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { isAlreadyExists } from '../../kube/errors';
import { evaluateJsonPath } from '../../printers/jsonpath';
import { expandVariables, type HttpCheck, type JobCheck, type PrometheusCheck, type Variables, type VerifyCheck } from '../../kruise/verify/checks';
import { conditionHolds } from '../../kruise/verify/condition';
import { judgePrometheus, type Judged } from '../../kruise/verify/judge';
import { foldMeasurements, type CheckPhase, type CheckTally, type Measurement } from '../../kruise/verify/measurements';
import { verifyJob, verifyJobName } from '../../kruise/verify/job';
import { fetchText } from './fetch-text';

export interface CheckResult {
  check: VerifyCheck;
  phase: Exclude<CheckPhase, 'running'>;
  reason: string;
  measurements: Measurement[];
  /** What was asked: the query, the URL, the Job. */
  subject: string;
  /** Lines that explain a failure: a Job's pod logs. */
  evidence: string[];
}

export interface CheckRunContext {
  client: KubeClient;
  vars: Variables;
  rollout: KubeObject;
  namespace: string;
  signal: AbortSignal;
  /** Job manifests, read before anything was sent (by check name). */
  jobManifests: ReadonlyMap<string, Record<string, unknown>>;
  onMeasurement(check: VerifyCheck, m: Measurement, tally: CheckTally, subject: string): void;
  onNote(check: VerifyCheck, text: string): void;
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function errorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  return `${e instanceof Error ? e.message : String(err)}${code && !String(e?.message).includes(code) ? ` (${code})` : ''}`;
}

/** One measurement, with a timeout of its own that also follows the signal. */
async function measure(take: (signal: AbortSignal) => Promise<Judged>, timeoutMs: number, signal: AbortSignal): Promise<Judged> {
  const one = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  try {
    return await take(one);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (one.aborted) return { outcome: 'error', message: `no answer within ${Math.round(timeoutMs / 1000)}s` };
    return { outcome: 'error', message: errorText(err) };
  }
}

function prometheusTaker(p: PrometheusCheck, vars: Variables, timeoutMs: number): { subject: string; take: (s: AbortSignal) => Promise<Judged> } {
  const query = expandVariables(p.query, vars);
  const url = `${p.address.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(query)}`;
  return {
    subject: `prometheus ${query}`,
    take: async (signal) => {
      const res = await fetchText(url, { method: 'GET', credentials: p, timeoutMs, signal });
      return judgePrometheus(res.status, res.body, p.condition, p.onEmpty);
    },
  };
}

function httpTaker(h: HttpCheck, vars: Variables, client: KubeClient, timeoutMs: number): { subject: string; take: (s: AbortSignal) => Promise<Judged> } {
  const url = expandVariables(h.url, vars);
  const body = h.body === undefined ? undefined : expandVariables(h.body, vars);
  const headers = Object.fromEntries(Object.entries(h.headers).map(([k, v]) => [k, expandVariables(v, vars)]));
  return {
    subject: `http ${h.method} ${url}`,
    take: async (signal) => {
      let res: { status: number; body: string };
      if (url.startsWith('/')) {
        if (!client.send) throw new Error('this client cannot send requests to API server paths');
        res = await client.send({ method: h.method, path: url, body, contentType: headers['content-type'] ?? headers['Content-Type'], signal, timeoutMs });
      } else {
        res = await fetchText(url, { method: h.method, body, headers, credentials: h, timeoutMs, signal });
      }
      const okStatus = h.status.length ? h.status.includes(res.status) : res.status >= 200 && res.status <= 299;
      const snippet = res.body.replace(/\s+/g, ' ').trim().slice(0, 120);
      if (!okStatus) return { outcome: 'fail', message: `HTTP ${res.status} (expected ${h.status.length ? h.status.join(' or ') : '2xx'})${snippet ? `: ${snippet}` : ''}` };
      if (!h.jsonPath || !h.condition) return { outcome: 'pass', message: `HTTP ${res.status}` };
      let data: unknown;
      try {
        data = JSON.parse(res.body);
      } catch {
        return { outcome: 'fail', message: `HTTP ${res.status}: the body is not JSON, ${h.jsonPath} cannot be read: ${snippet}` };
      }
      let text: string;
      try {
        text = evaluateJsonPath(h.jsonPath, data).trim();
      } catch (err) {
        return { outcome: 'fail', message: `HTTP ${res.status}: ${h.jsonPath}: ${errorText(err)}` };
      }
      const value = text === '' ? NaN : Number(text);
      if (Number.isNaN(value)) return { outcome: 'fail', message: `HTTP ${res.status}: ${h.jsonPath} is ${text === '' ? 'missing' : JSON.stringify(text)}, not a number` };
      return conditionHolds(h.condition, value)
        ? { outcome: 'pass', values: [value], message: `HTTP ${res.status}: ${h.jsonPath} = ${value}: ${h.condition.text}` }
        : { outcome: 'fail', values: [value], message: `HTTP ${res.status}: ${h.jsonPath} = ${value}: not ${h.condition.text}` };
    },
  };
}

export async function runCheck(check: VerifyCheck, ctx: CheckRunContext): Promise<CheckResult> {
  if (check.kind.type === 'job') return runJobCheck(check, check.kind, ctx);
  const { subject, take } = check.kind.type === 'prometheus' ? prometheusTaker(check.kind, ctx.vars, check.timing.timeoutMs) : httpTaker(check.kind, ctx.vars, ctx.client, check.timing.timeoutMs);
  const measurements: Measurement[] = [];
  await abortableSleep(check.timing.initialDelayMs, ctx.signal);
  for (;;) {
    const judged = await measure(take, check.timing.timeoutMs, ctx.signal);
    const m: Measurement = { index: measurements.length + 1, at: new Date().toISOString(), ...judged };
    measurements.push(m);
    const tally = foldMeasurements(check.policy, measurements.map((x) => x.outcome));
    ctx.onMeasurement(check, m, tally, subject);
    if (tally.phase !== 'running') return { check, phase: tally.phase, reason: tally.reason, measurements, subject, evidence: [] };
    await abortableSleep(check.timing.intervalMs, ctx.signal);
  }
}

const JOB_TYPE: ResourceType = { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true };
const POD_TYPE: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

function jobOutcome(job: KubeObject): { done: boolean; ok?: boolean; why?: string } {
  const conds = ((job as { status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> } }).status?.conditions ?? []).filter((c) => c.status === 'True');
  const complete = conds.find((c) => c.type === 'Complete');
  if (complete) return { done: true, ok: true, why: 'succeeded' };
  const failed = conds.find((c) => c.type === 'Failed');
  if (failed) return { done: true, ok: false, why: `failed: ${failed.reason ?? ''}${failed.message ? ` (${failed.message})` : ''}`.trim() };
  return { done: false };
}

async function runJobCheck(check: VerifyCheck, kind: JobCheck, ctx: CheckRunContext): Promise<CheckResult> {
  const name = verifyJobName(ctx.vars.rollout, ctx.vars.canaryRevision, Number(ctx.vars.step), check.name);
  const subject = `job/${name}`;
  const manifest = kind.manifest ?? ctx.jobManifests.get(check.name);
  if (!manifest) throw new Error(`${check.origin}: no Job manifest loaded`);
  await abortableSleep(check.timing.initialDelayMs, ctx.signal);
  try {
    await ctx.client.create(JOB_TYPE, verifyJob(manifest, { name, check: check.name, vars: ctx.vars, rollout: ctx.rollout }), ctx.namespace, { signal: ctx.signal });
    ctx.onNote(check, `job/${name} created`);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    ctx.onNote(check, `job/${name} already exists (an earlier run of this step's checks): following it`);
  }
  const deadline = AbortSignal.any([ctx.signal, AbortSignal.timeout(check.timing.timeoutMs)]);
  const finished = await new Promise<{ ok: boolean; why: string } | undefined>((resolve, reject) => {
    const obs = ctx.client.observe(JOB_TYPE, ctx.namespace, { name, signal: deadline, onSync: (items) => seen(items.find((j) => j.metadata.name === name)) }, (ev) => {
      if (ev.type === 'DELETED') resolve({ ok: false, why: 'was deleted before it finished' });
      else if (ev.type !== 'BOOKMARK') seen(ev.object);
    });
    function seen(job: KubeObject | undefined): void {
      if (!job) return;
      const o = jobOutcome(job);
      if (o.done) {
        obs.stop();
        resolve({ ok: o.ok!, why: o.why! });
      }
    }
    obs.done.then(() => resolve(undefined), reject);
  });
  if (ctx.signal.aborted) throw ctx.signal.reason;
  const result = finished ?? { ok: false, why: `did not finish within ${Math.round(check.timing.timeoutMs / 1000)}s` };
  const evidence = await jobLogs(ctx, name);
  const m: Measurement = { index: 1, at: new Date().toISOString(), outcome: result.ok ? 'pass' : 'fail', message: `job/${name} ${result.why}` };
  const tally = foldMeasurements({ ...check.policy, count: 1 }, [m.outcome]);
  ctx.onMeasurement(check, m, tally, subject);
  return { check, phase: result.ok ? 'pass' : 'fail', reason: m.message, measurements: [m], subject, evidence };
}

/** The last lines of each of the Job's pods' logs, for the evidence (best effort: a log that cannot be read is said so). */
async function jobLogs(ctx: CheckRunContext, job: string): Promise<string[]> {
  const out: string[] = [];
  try {
    const pods = await ctx.client.list(POD_TYPE, ctx.namespace, { labelSelector: `job-name=${job}`, signal: ctx.signal });
    for (const pod of pods.items) {
      const podName = pod.metadata.name ?? '';
      if (!ctx.client.podLog) break;
      try {
        const text = await ctx.client.podLog(ctx.namespace, podName, { tailLines: 20, limitBytes: 16_384, signal: ctx.signal });
        for (const line of text.split('\n').filter((l) => l !== '')) out.push(`pod/${podName}: ${line}`);
      } catch (err) {
        out.push(`pod/${podName}: (no log: ${errorText(err)})`);
      }
    }
  } catch (err) {
    out.push(`(the Job's pods could not be listed: ${errorText(err)})`);
  }
  return out;
}
