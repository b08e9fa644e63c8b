// The checks of `rollout verify`: their schema (a checks file, or one check from the command line), its
// validation with one-line errors naming the file and the field, and the variables a check may use. Pure:
// the caller reads the files; this only judges what they hold.
//
// checks:                      # a checks file (YAML or JSON)
// - name: error-rate           # [a-z0-9-], at most 30 characters, unique; default <type>-<n>
//   step: 1                    # a step number or a list of them; default: every step waiting for approval
//   initialDelay: 10s          # before the first measurement (default 0)
//   interval: 10s              # between measurements (default 10s)
//   count: 3                   # measurements to take (default 1)
//   timeout: 30s               # one measurement (a job: the whole job, default 10m)
//   failureLimit: 0            # failed measurements tolerated (default 0)
//   successLimit: 0            # pass as soon as this many pass in a row (default 0: off)
//   inconclusiveLimit: 0       # inconclusive measurements tolerated (default 0)
//   consecutiveErrorLimit: 4   # measurements in a row that could not be taken (default 4)
//   prometheus: {address, query, condition, onEmpty, bearerTokenFile|bearerTokenEnv|basicAuthFile, caFile}
//   http: {url, method, body, headers, status, jsonPath, condition, bearerTokenFile|bearerTokenEnv, caFile}
//   job: {file | manifest}     # a batch/v1 Job, created per step
import { parseGoDuration } from '../../lib/go-duration';
import { ConditionError, parseCondition, type Condition } from './condition';
import { DEFAULT_POLICY, type MeasurePolicy } from './measurements';

export type EmptyResult = 'pass' | 'fail' | 'inconclusive' | 'error';
export const EMPTY_RESULTS: readonly EmptyResult[] = ['pass', 'fail', 'inconclusive', 'error'];

export interface Credentials {
  bearerTokenFile?: string;
  bearerTokenEnv?: string;
  /** A file holding `user:password`. */
  basicAuthFile?: string;
  /** CA bundle (PEM) the server's certificate must chain to (else the system's). */
  caFile?: string;
}

export interface PrometheusCheck extends Credentials {
  type: 'prometheus';
  address: string;
  query: string;
  condition: Condition;
  onEmpty: EmptyResult;
}

export interface HttpCheck extends Credentials {
  type: 'http';
  /** http(s)://..., or an API server path (/api/v1/namespaces/NS/services/NAME:PORT/proxy/...) sent with the kubeconfig's credentials. */
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
  /** Accepted status codes; empty: any 2xx. */
  status: number[];
  jsonPath?: string;
  condition?: Condition;
}

export interface JobCheck {
  type: 'job';
  /** The manifest file (resolved by the caller), or undefined when inline. */
  file?: string;
  manifest?: Record<string, unknown>;
}

export type CheckKind = PrometheusCheck | HttpCheck | JobCheck;

export interface CheckTiming {
  initialDelayMs: number;
  intervalMs: number;
  timeoutMs: number;
}

export interface VerifyCheck {
  name: string;
  /** Steps this check runs at; undefined: every step waiting for approval. */
  steps?: number[];
  policy: MeasurePolicy;
  timing: CheckTiming;
  kind: CheckKind;
  /** Where it was defined, for messages: "checks.yaml: checks[1]" or "--prometheus". */
  origin: string;
}

export class CheckInputError extends Error {}

export const VARIABLES = ['canaryHash', 'canaryRevision', 'stableRevision', 'rollout', 'namespace', 'step'] as const;
export type VariableName = (typeof VARIABLES)[number];
export type Variables = Record<VariableName, string>;

const NAME = /^[a-z0-9]([a-z0-9-]{0,28}[a-z0-9])?$/;
const TEMPLATE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;
const DEFAULT_INTERVAL_MS = 10_000;
const DEFAULT_MEASUREMENT_TIMEOUT_MS = 30_000;
const DEFAULT_JOB_TIMEOUT_MS = 10 * 60_000;

/** `{{canaryHash}}` and the others replaced; the caller checked the names at load time (checkTemplate). */
export function expandVariables(text: string, vars: Variables): string {
  return text.replace(TEMPLATE, (whole, name: string) => (name in vars ? vars[name as VariableName] : whole));
}

function checkTemplate(text: string, where: string): void {
  for (const m of text.matchAll(TEMPLATE)) {
    if (!(VARIABLES as readonly string[]).includes(m[1]!)) throw new CheckInputError(`${where}: unknown variable {{${m[1]}}} (known: ${VARIABLES.map((v) => `{{${v}}}`).join(', ')})`);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads fields of one mapping, refusing the keys it does not know. */
class Fields {
  constructor(
    private readonly obj: Obj,
    readonly where: string,
    known: readonly string[],
  ) {
    for (const k of Object.keys(obj)) if (!known.includes(k)) throw new CheckInputError(`${where}.${k}: unknown field (known: ${known.join(', ')})`);
  }
  has(k: string): boolean {
    return this.obj[k] !== undefined && this.obj[k] !== null;
  }
  raw(k: string): unknown {
    return this.obj[k];
  }
  str(k: string, required: true): string;
  str(k: string, required?: false): string | undefined;
  str(k: string, required = false): string | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (required) throw new CheckInputError(`${this.where}.${k}: required`);
      return undefined;
    }
    if (typeof v !== 'string' || (required && v.trim() === '')) throw new CheckInputError(`${this.where}.${k}: must be a non-empty string`);
    return v;
  }
  int(k: string, min: number): number | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new CheckInputError(`${this.where}.${k}: must be an integer ≥ ${min}, not ${JSON.stringify(v)}`);
    return v;
  }
  duration(k: string): number | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) return undefined;
    return parseDurationField(v, `${this.where}.${k}`);
  }
}

export function parseDurationField(v: unknown, where: string): number {
  if (v === 0 || v === '0') return 0;
  if (typeof v !== 'string') throw new CheckInputError(`${where}: must be a duration with a unit (e.g. 30s, 2m), not ${JSON.stringify(v)}`);
  try {
    const ms = parseGoDuration(v.trim());
    if (ms < 0) throw new Error('negative');
    return Math.round(ms);
  } catch {
    throw new CheckInputError(`${where}: invalid duration ${JSON.stringify(v)} (a unit is needed, e.g. 30s, 2m)`);
  }
}

function condition(text: string, where: string): Condition {
  try {
    return parseCondition(text);
  } catch (err) {
    throw new CheckInputError(`${where}: ${(err as ConditionError).message}`);
  }
}

function httpUrl(url: string, where: string): void {
  if (url.startsWith('/')) return; // through the API server
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new CheckInputError(`${where}: ${JSON.stringify(url)} is not a URL (http://, https://, or an API server path starting with /)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CheckInputError(`${where}: ${JSON.stringify(url)}: only http and https are supported`);
  if (u.username || u.password) throw new CheckInputError(`${where}: credentials in the URL are refused (use bearerTokenFile, bearerTokenEnv or basicAuthFile)`);
}

const CREDENTIAL_KEYS = ['bearerTokenFile', 'bearerTokenEnv', 'basicAuthFile', 'caFile'] as const;

function credentials(f: Fields): Credentials {
  const c: Credentials = {};
  for (const k of CREDENTIAL_KEYS) {
    const v = f.str(k);
    if (v !== undefined) c[k] = v;
  }
  const auth = ['bearerTokenFile', 'bearerTokenEnv', 'basicAuthFile'].filter((k) => c[k as keyof Credentials] !== undefined);
  if (auth.length > 1) throw new CheckInputError(`${f.where}: ${auth.join(' and ')} exclude each other: give one way to authenticate`);
  if (c.bearerTokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(c.bearerTokenEnv)) throw new CheckInputError(`${f.where}.bearerTokenEnv: ${JSON.stringify(c.bearerTokenEnv)} is not an environment variable name`);
  return c;
}

function prometheusCheck(raw: unknown, where: string): PrometheusCheck {
  if (!isObj(raw)) throw new CheckInputError(`${where}: must be a mapping`);
  const f = new Fields(raw, where, ['address', 'query', 'condition', 'onEmpty', ...CREDENTIAL_KEYS]);
  const address = f.str('address', true);
  httpUrl(address, `${where}.address`);
  if (address.startsWith('/')) throw new CheckInputError(`${where}.address: the Prometheus server's URL (http:// or https://)`);
  const query = f.str('query', true);
  checkTemplate(query, `${where}.query`);
  const onEmpty = f.str('onEmpty') ?? 'inconclusive';
  if (!(EMPTY_RESULTS as readonly string[]).includes(onEmpty)) throw new CheckInputError(`${where}.onEmpty: must be one of ${EMPTY_RESULTS.join(', ')}, not ${JSON.stringify(onEmpty)}`);
  return { type: 'prometheus', address, query, condition: condition(f.str('condition', true), `${where}.condition`), onEmpty: onEmpty as EmptyResult, ...credentials(f) };
}

function httpCheck(raw: unknown, where: string): HttpCheck {
  if (!isObj(raw)) throw new CheckInputError(`${where}: must be a mapping`);
  const f = new Fields(raw, where, ['url', 'method', 'body', 'headers', 'status', 'jsonPath', 'condition', ...CREDENTIAL_KEYS]);
  const url = f.str('url', true);
  httpUrl(url, `${where}.url`);
  checkTemplate(url, `${where}.url`);
  const method = (f.str('method') ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'POST') throw new CheckInputError(`${where}.method: GET or POST, not ${JSON.stringify(f.str('method'))}`);
  const body = f.str('body');
  if (body !== undefined) {
    if (method === 'GET') throw new CheckInputError(`${where}.body: a body needs method POST`);
    checkTemplate(body, `${where}.body`);
  }
  const headers: Record<string, string> = {};
  if (f.has('headers')) {
    const h = f.raw('headers');
    if (!isObj(h)) throw new CheckInputError(`${where}.headers: must be a mapping of header names to strings`);
    for (const [k, v] of Object.entries(h)) {
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(k)) throw new CheckInputError(`${where}.headers: ${JSON.stringify(k)} is not a header name`);
      if (typeof v !== 'string') throw new CheckInputError(`${where}.headers.${k}: must be a string`);
      checkTemplate(v, `${where}.headers.${k}`);
      headers[k] = v;
    }
  }
  let status: number[] = [];
  if (f.has('status')) {
    const s = f.raw('status');
    const list = Array.isArray(s) ? s : [s];
    if (list.length === 0 || !list.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599)) throw new CheckInputError(`${where}.status: an HTTP status code or a list of them (100-599)`);
    status = list as number[];
  }
  const jsonPath = f.str('jsonPath');
  const cond = f.str('condition');
  if ((jsonPath === undefined) !== (cond === undefined)) throw new CheckInputError(`${where}: jsonPath and condition go together (the value at jsonPath is compared by condition)`);
  return { type: 'http', url, method, body, headers, status, jsonPath, condition: cond === undefined ? undefined : condition(cond, `${where}.condition`), ...credentials(f) };
}

function jobCheck(raw: unknown, where: string): JobCheck {
  if (!isObj(raw)) throw new CheckInputError(`${where}: must be a mapping`);
  const f = new Fields(raw, where, ['file', 'manifest']);
  const file = f.str('file');
  const manifest = f.raw('manifest');
  if ((file === undefined) === (manifest === undefined)) throw new CheckInputError(`${where}: give file (a Job manifest) or manifest (the Job inline), one of them`);
  if (manifest !== undefined) {
    if (!isObj(manifest)) throw new CheckInputError(`${where}.manifest: must be a Job object`);
    validateJobManifest(manifest, `${where}.manifest`);
  }
  return { type: 'job', file, manifest: manifest as Record<string, unknown> | undefined };
}

/** A Job manifest a job check may create: batch/v1 Job with a pod template; its name and namespace are ours to set. */
export function validateJobManifest(obj: unknown, where: string): void {
  if (!isObj(obj)) throw new CheckInputError(`${where}: must be a Job object`);
  if (obj.apiVersion !== 'batch/v1' || obj.kind !== 'Job') throw new CheckInputError(`${where}: must be a batch/v1 Job, not ${String(obj.apiVersion)} ${String(obj.kind)}`);
  const spec = obj.spec;
  if (!isObj(spec) || !isObj(spec.template) || !isObj((spec.template as Obj).spec)) throw new CheckInputError(`${where}.spec.template.spec: required (the pod the check runs)`);
  const containers = ((spec.template as Obj).spec as Obj).containers;
  if (!Array.isArray(containers) || containers.length === 0) throw new CheckInputError(`${where}.spec.template.spec.containers: at least one container`);
}

function stepsField(f: Fields): number[] | undefined {
  if (!f.has('step')) return undefined;
  const v = f.raw('step');
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0 || !list.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 1)) throw new CheckInputError(`${f.where}.step: a step number (1, 2, ...) or a list of them`);
  return [...new Set(list as number[])].sort((a, b) => a - b);
}

const CHECK_KEYS = ['name', 'step', 'initialDelay', 'interval', 'count', 'timeout', 'failureLimit', 'successLimit', 'inconclusiveLimit', 'consecutiveErrorLimit', 'prometheus', 'http', 'job'];

function oneCheck(raw: unknown, where: string, index: number): VerifyCheck {
  if (!isObj(raw)) throw new CheckInputError(`${where}: must be a mapping`);
  const f = new Fields(raw, where, CHECK_KEYS);
  const types = (['prometheus', 'http', 'job'] as const).filter((t) => f.has(t));
  if (types.length !== 1) throw new CheckInputError(`${where}: ${types.length === 0 ? 'needs' : 'takes only'} one of prometheus, http, job${types.length > 1 ? ` (has ${types.join(', ')})` : ''}`);
  const type = types[0]!;
  const kind = type === 'prometheus' ? prometheusCheck(f.raw(type), `${where}.prometheus`) : type === 'http' ? httpCheck(f.raw(type), `${where}.http`) : jobCheck(f.raw(type), `${where}.job`);
  const name = f.str('name') ?? `${type}-${index + 1}`;
  if (!NAME.test(name)) throw new CheckInputError(`${where}.name: ${JSON.stringify(name)}: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 30 characters`);
  const policy: MeasurePolicy = {
    count: f.int('count', 1) ?? DEFAULT_POLICY.count,
    failureLimit: f.int('failureLimit', 0) ?? DEFAULT_POLICY.failureLimit,
    inconclusiveLimit: f.int('inconclusiveLimit', 0) ?? DEFAULT_POLICY.inconclusiveLimit,
    consecutiveErrorLimit: f.int('consecutiveErrorLimit', 0) ?? DEFAULT_POLICY.consecutiveErrorLimit,
    successLimit: f.int('successLimit', 0) ?? DEFAULT_POLICY.successLimit,
  };
  if (type === 'job') {
    for (const k of ['count', 'interval', 'failureLimit', 'successLimit', 'inconclusiveLimit', 'consecutiveErrorLimit']) {
      if (f.has(k)) throw new CheckInputError(`${where}.${k}: a job check runs its Job once (its own backoffLimit retries it)`);
    }
  }
  if (policy.successLimit > policy.count) throw new CheckInputError(`${where}.successLimit: ${policy.successLimit} is more than count ${policy.count}: it could never be reached`);
  const timing: CheckTiming = {
    initialDelayMs: f.duration('initialDelay') ?? 0,
    intervalMs: f.duration('interval') ?? DEFAULT_INTERVAL_MS,
    timeoutMs: f.duration('timeout') ?? (type === 'job' ? DEFAULT_JOB_TIMEOUT_MS : DEFAULT_MEASUREMENT_TIMEOUT_MS),
  };
  if (timing.timeoutMs === 0) throw new CheckInputError(`${where}.timeout: must be more than 0`);
  return { name, steps: stepsField(f), policy, timing, kind, origin: where };
}

/** A checks file's content (parsed YAML/JSON) → its checks; `file` names it in errors. */
export function parseChecksFile(doc: unknown, file: string): VerifyCheck[] {
  if (!isObj(doc)) throw new CheckInputError(`${file}: must be a mapping with a "checks" list`);
  new Fields(doc, file, ['checks']);
  const list = doc.checks;
  if (!Array.isArray(list) || list.length === 0) throw new CheckInputError(`${file}: checks: a non-empty list is required`);
  const checks = list.map((c, i) => oneCheck(c, `${file}: checks[${i}]`, i));
  const seen = new Set<string>();
  for (const c of checks) {
    if (seen.has(c.name)) throw new CheckInputError(`${c.origin}.name: ${JSON.stringify(c.name)} is used twice`);
    seen.add(c.name);
  }
  return checks;
}

/** The one check of the command line, in the checks file's shape (flags named as the user typed them). */
export interface CheckFlags {
  step?: string;
  http?: string;
  method?: string;
  body?: string;
  /** --jsonpath (commander names it `jsonpath`). */
  jsonpath?: string;
  job?: string;
  prometheus?: string;
  query?: string;
  condition?: string;
  onEmpty?: string;
  count?: string;
  interval?: string;
  initialDelay?: string;
  checkTimeout?: string;
  failureLimit?: string;
  successLimit?: string;
  inconclusiveLimit?: string;
  consecutiveErrorLimit?: string;
  tokenFile?: string;
  tokenEnv?: string;
  basicAuthFile?: string;
  caFile?: string;
}

const FLAG_NAMES: Record<string, string> = {
  prometheus: '--prometheus',
  http: '--http',
  job: '--job',
  address: '--prometheus',
  url: '--http',
  file: '--job',
  query: '--query',
  condition: '--condition',
  onEmpty: '--on-empty',
  method: '--method',
  body: '--body',
  jsonPath: '--jsonpath',
  step: '--step',
  count: '--count',
  interval: '--interval',
  initialDelay: '--initial-delay',
  timeout: '--check-timeout',
  failureLimit: '--failure-limit',
  successLimit: '--success-limit',
  inconclusiveLimit: '--inconclusive-limit',
  consecutiveErrorLimit: '--consecutive-error-limit',
  bearerTokenFile: '--token-file',
  bearerTokenEnv: '--token-env',
  basicAuthFile: '--basic-auth-file',
  caFile: '--ca-file',
};

function intFlag(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new CheckInputError(`invalid value ${JSON.stringify(v)} for ${flag}: must be a non-negative integer`);
  return Number(v);
}

/**
 * The check the flags describe, or undefined when they name none. Errors speak of the flags
 * (`--query: required with --prometheus`), not of the file schema they are mapped onto.
 */
export function checkFromFlags(o: CheckFlags): VerifyCheck | undefined {
  const given = (['prometheus', 'http', 'job'] as const).filter((k) => o[k] !== undefined);
  const typeFlags: Array<[keyof CheckFlags, string, string]> = [
    ['query', '--query', 'prometheus'],
    ['onEmpty', '--on-empty', 'prometheus'],
    ['method', '--method', 'http'],
    ['body', '--body', 'http'],
    ['jsonpath', '--jsonpath', 'http'],
  ];
  if (given.length === 0) {
    const stray = [...typeFlags.map(([k, flag]) => [k, flag]), ['condition', '--condition'], ['count', '--count'], ['interval', '--interval'], ['initialDelay', '--initial-delay'], ['checkTimeout', '--check-timeout'], ['failureLimit', '--failure-limit'], ['successLimit', '--success-limit'], ['inconclusiveLimit', '--inconclusive-limit'], ['consecutiveErrorLimit', '--consecutive-error-limit'], ['tokenFile', '--token-file'], ['tokenEnv', '--token-env'], ['basicAuthFile', '--basic-auth-file'], ['caFile', '--ca-file'], ['step', '--step']].find(([k]) => o[k as keyof CheckFlags] !== undefined);
    if (stray) throw new CheckInputError(`${stray[1]} describes a check: give --prometheus, --http or --job with it`);
    return undefined;
  }
  if (given.length > 1) throw new CheckInputError(`--${given.join(', --')}: one check on the command line (several: --checks FILE)`);
  const type = given[0]!;
  for (const [k, flag, owner] of typeFlags) if (o[k] !== undefined && owner !== type) throw new CheckInputError(`${flag} goes with --${owner}, not --${type}`);
  const spec: Obj = {};
  if (type === 'prometheus') {
    spec.prometheus = { address: o.prometheus, query: o.query, condition: o.condition, onEmpty: o.onEmpty, bearerTokenFile: o.tokenFile, bearerTokenEnv: o.tokenEnv, basicAuthFile: o.basicAuthFile, caFile: o.caFile };
    if (o.query === undefined) throw new CheckInputError('--query: required with --prometheus');
    if (o.condition === undefined) throw new CheckInputError('--condition: required with --prometheus (e.g. --condition "result < 0.05")');
  } else if (type === 'http') {
    spec.http = { url: o.http, method: o.method, body: o.body, jsonPath: o.jsonpath, condition: o.condition, bearerTokenFile: o.tokenFile, bearerTokenEnv: o.tokenEnv, caFile: o.caFile };
    if (o.basicAuthFile !== undefined) (spec.http as Obj).basicAuthFile = o.basicAuthFile;
  } else {
    for (const [k, flag] of [['condition', '--condition'], ['tokenFile', '--token-file'], ['tokenEnv', '--token-env'], ['basicAuthFile', '--basic-auth-file'], ['caFile', '--ca-file']] as const) {
      if (o[k] !== undefined) throw new CheckInputError(`${flag} does not go with --job`);
    }
    spec.job = { file: o.job };
  }
  if (o.step !== undefined) {
    const n = intFlag(o.step, '--step');
    if (!n) throw new CheckInputError(`invalid value ${JSON.stringify(o.step)} for --step: a step number (1, 2, ...)`);
    spec.step = n;
  }
  spec.count = intFlag(o.count, '--count');
  spec.failureLimit = intFlag(o.failureLimit, '--failure-limit');
  spec.successLimit = intFlag(o.successLimit, '--success-limit');
  spec.inconclusiveLimit = intFlag(o.inconclusiveLimit, '--inconclusive-limit');
  spec.consecutiveErrorLimit = intFlag(o.consecutiveErrorLimit, '--consecutive-error-limit');
  spec.interval = o.interval;
  spec.initialDelay = o.initialDelay;
  spec.timeout = o.checkTimeout;
  const clean = (x: unknown): unknown => (isObj(x) ? Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined).map(([k, v]) => [k, clean(v)])) : x);
  try {
    return { ...oneCheck(clean(spec), type, 0), origin: `--${type}` };
  } catch (err) {
    if (!(err instanceof CheckInputError)) throw err;
    // "prometheus.query: ..." → "--query: ..."
    throw new CheckInputError(err.message.replace(/^(?:(?:prometheus|http|job)\.)?(?:(?:prometheus|http|job)\.)?([A-Za-z]+)(?=:)/, (_w, field: string) => FLAG_NAMES[field] ?? field));
  }
}

/** The steps a check runs at, given the Rollout's steps waiting for approval. */
export function stepsOf(check: VerifyCheck, manualSteps: readonly number[]): number[] {
  return check.steps ?? [...manualSteps];
}
