// Starts `kubectl-kruise sandbox` as a subprocess on a free port for one test file,
// and reads back what the tests need: the kubeconfig, the audit log, and the API itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { FaultSpec as ServerFaultSpec } from '../../src/sandbox/server/faults';
import { cliCommand, REPO_ROOT, testEnv } from './cli';

/** The server's fault file, plus any other key (tests of the sandbox's own rejection of unknown keys). */
export type FaultSpec = ServerFaultSpec & { [key: string]: unknown };

export interface SandboxOptions {
  /** --kruise release: v1.3, v1.8, v1.9 (default), master. */
  kruise?: string;
  /** --crds DIR, e.g. /work/shared/kruise-crds/v1.9.0 */
  crds?: string;
  tls?: boolean;
  nodes?: number;
  /** --ready-delay: a duration ("100ms") or milliseconds. */
  readyDelay?: string | number;
  /**
   * --crash-backoff. The suite's sandboxes pass `fast` (a crash loop turns over in a few ready delays)
   * unless a test asks for `kubelet` (10 s doubling to 5 min) or a duration; null passes no flag (the
   * command's default, `kubelet`).
   */
  crashBackoff?: string | null;
  /** --faults: an object (written to a YAML file) or a path to one. */
  faults?: FaultSpec | string;
  extraArgs?: string[];
  /** How long to wait for the kubeconfig to appear (default 20 s). */
  startTimeoutMs?: number;
}

export interface AuditEntry {
  time: string;
  user: string;
  verb: string;
  method: string;
  path: string;
  query: string;
  contentType?: string;
  code: number;
  durationMs: number;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface Sandbox {
  /** Folder of this sandbox's files (kubeconfig, audit log, home, cache). */
  dir: string;
  kubeconfig: string;
  auditLog: string;
  /** Server URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Environment for subprocesses: KUBECONFIG, HOME, KUBECACHEDIR, CI, NO_COLOR. */
  env: NodeJS.ProcessEnv;
  /** Bearer tokens when started with tls (admin = the default user; users: those of --user). */
  tokens: { admin?: string; viewer?: string; users: Record<string, string> };
  /** CA bundle (PEM) when started with tls. */
  ca?: string;
  process: ChildProcess;
  /** Parsed audit log lines so far. */
  audit(): AuditEntry[];
  /** Empties the audit log (to count the requests of one command). */
  clearAudit(): void;
  /** A raw API request (JSON body in and out); under tls, `user` ("viewer", a --user) uses that user's token. */
  api<T = any>(method: string, path: string, body?: unknown, opts?: { user?: string; contentType?: string; accept?: string }): Promise<ApiResponse<T>>;
  /** SIGTERM and wait for the exit (SIGKILL after 5 s). Returns the exit code. */
  stop(): Promise<number | null>;
  /** Output of the sandbox process so far (for debugging failed tests). */
  output(): string;
}

interface KubeconfigShape {
  clusters: Array<{ name: string; cluster: { server: string; 'certificate-authority-data'?: string } }>;
  users: Array<{ name: string; user: { token?: string; 'client-certificate-data'?: string; 'client-key-data'?: string } }>;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'kk-sandbox-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const auditLog = join(dir, 'audit.log');
  const args = ['sandbox', '--port', '0', '--kubeconfig-out', kubeconfig, '--audit-log', auditLog];
  if (opts.kruise) args.push('--kruise', opts.kruise);
  if (opts.crds) args.push('--crds', opts.crds);
  if (opts.tls) args.push('--tls');
  if (opts.nodes !== undefined) args.push('--nodes', String(opts.nodes));
  if (opts.readyDelay !== undefined) {
    args.push('--ready-delay', typeof opts.readyDelay === 'number' ? `${opts.readyDelay}ms` : opts.readyDelay);
  }
  if (opts.crashBackoff !== null) args.push('--crash-backoff', opts.crashBackoff ?? 'fast');
  if (opts.faults !== undefined) {
    let path = opts.faults as string;
    if (typeof opts.faults !== 'string') {
      path = join(dir, 'faults.yaml');
      writeFileSync(path, stringifyYaml(opts.faults));
    }
    args.push('--faults', path);
  }
  if (opts.extraArgs) args.push(...opts.extraArgs);

  const env = testEnv(kubeconfig);
  const child = spawn(...cliCommand(args), { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res((exitCode = code))));

  const deadline = Date.now() + (opts.startTimeoutMs ?? 20_000);
  while (!existsSync(kubeconfig)) {
    if (exitCode !== undefined) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`sandbox exited with ${exitCode} before it was ready:\n${output}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`sandbox not ready after ${opts.startTimeoutMs ?? 20_000} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 15));
  }

  const config = parseYaml(readFileSync(kubeconfig, 'utf8')) as KubeconfigShape;
  const cluster = config.clusters[0]!.cluster;
  const url = cluster.server;
  const ca = cluster['certificate-authority-data'] ? Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') : undefined;
  const tokens: Sandbox['tokens'] = { users: {} };
  // Under --require-client-cert, each user's client certificate (the TLS handshake needs one).
  const clientCerts: Record<string, { cert?: Buffer; key?: Buffer }> = { admin: {}, viewer: {} };
  const fromB64 = (s: string | undefined): Buffer | undefined => (s ? Buffer.from(s, 'base64') : undefined);
  for (const u of config.users) {
    const who = u.name === 'kruise-sandbox-admin' ? 'admin' : u.name;
    if (who === 'viewer') tokens.viewer = u.user.token;
    else if (who === 'admin') tokens.admin ??= u.user.token;
    else if (u.user.token) tokens.users[who] = u.user.token;
    clientCerts[who] ??= {};
    clientCerts[who].cert ??= fromB64(u.user['client-certificate-data']);
    clientCerts[who].key ??= fromB64(u.user['client-key-data']);
  }

  const api: Sandbox['api'] = (method, path, body, o = {}) =>
    new Promise((res, rej) => {
      const target = new URL(path, url);
      const headers: Record<string, string> = { Accept: o.accept ?? 'application/json' };
      const token = o.user === 'viewer' ? tokens.viewer : o.user && o.user !== 'admin' ? tokens.users[o.user] : tokens.admin;
      if (token) headers.Authorization = `Bearer ${token}`;
      let payload: string | undefined;
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        headers['Content-Type'] = o.contentType ?? 'application/json';
      }
      const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, { method, headers, ca, ...clientCerts[o.user ?? 'admin'] }, (resp) => {
        let text = '';
        resp.setEncoding('utf8').on('data', (d: string) => (text += d));
        resp.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON: keep the text */
          }
          res({ status: resp.statusCode ?? 0, headers: resp.headers, body: parsed as never, text });
        });
      });
      req.on('error', rej);
      req.end(payload);
    });

  return {
    dir,
    kubeconfig,
    auditLog,
    url,
    env,
    tokens,
    ca,
    process: child,
    audit() {
      if (!existsSync(auditLog)) return [];
      return readFileSync(auditLog, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as AuditEntry);
    },
    clearAudit() {
      writeFileSync(auditLog, '');
    },
    api,
    output: () => output,
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const code = await exited;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

/** Polls `check` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function waitUntil<T>(what: string, check: () => Promise<T | undefined | false | null> | T | undefined | false | null, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
