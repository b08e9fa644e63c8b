// Runs the built CLI and real kubectl as subprocesses, with an environment that cannot pick up
// the developer's own cluster: no inherited KUBECONFIG, HOME pointing at a scratch folder,
// CI=true, NO_COLOR=1 and a private discovery cache.
// The CLI is the npm form (bin/kubectl-kruise run by this Node), or with KUBECTL_KRUISE_BIN=<file>
// that executable (the standalone one: `node scripts/run-tests.mjs --exe`). Tests start it only
// through cliCommand / CLI_BIN / pluginDir, so the whole suite runs against either.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The npm form's Node launcher (tests of the launcher itself use this one). */
export const LAUNCHER = join(REPO_ROOT, 'bin', 'kubectl-kruise');
/** The executable under test when KUBECTL_KRUISE_BIN is set (the standalone executable), else undefined. */
export const EXE = process.env.KUBECTL_KRUISE_BIN ? resolve(process.env.KUBECTL_KRUISE_BIN) : undefined;
/** A file that runs the CLI when executed directly (scripts, symlinks, PATH): the executable or the launcher. */
export const CLI_BIN = EXE ?? LAUNCHER;

/** `kubectl-kruise ARGS` as [file, args] for spawn: the executable, or the launcher on this Node. */
export function cliCommand(args: string[]): [string, string[]] {
  return EXE ? [EXE, args] : [process.execPath, [LAUNCHER, ...args]];
}

/** A test's skip reason when it is about the npm form only and the run is against an executable. */
export function npmFormOnly(why: string): string | false {
  return EXE ? `npm form only: ${why}` : false;
}

let pluginBin: string | undefined;
/**
 * A folder to put on PATH so that kubectl finds the plugin under test (`kubectl kruise`,
 * `kubectl plugin list`, `kubectl kruise <TAB>`): the repository's bin/, or, for an executable,
 * a scratch `bin/` with `kubectl-kruise` linked to it and the completion helper beside it.
 */
export function pluginDir(): string {
  if (!EXE) return join(REPO_ROOT, 'bin');
  if (pluginBin && existsSync(pluginBin)) return pluginBin;
  const dir = mkdtempSync(join(tmpdir(), 'kk-plugin-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  pluginBin = join(dir, 'bin');
  mkdirSync(pluginBin);
  symlinkSync(EXE, join(pluginBin, 'kubectl-kruise'));
  // A copy, not a link: it runs the kubectl-kruise beside its real location.
  copyFileSync(join(REPO_ROOT, 'bin', 'kubectl_complete-kruise'), join(pluginBin, 'kubectl_complete-kruise'));
  return pluginBin;
}
export const KUBECTL_BIN = '/usr/bin/kubectl';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Set when the process was killed because timeoutMs elapsed. */
  timedOut?: boolean;
  signal?: NodeJS.Signals | null;
}

export interface RunOptions {
  /** Exported as KUBECONFIG (no --kubeconfig flag is added, so tests of flags stay honest). */
  kubeconfig?: string;
  /** Extra environment; a value of undefined removes the variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. */
  input?: string;
  /** Kill (SIGKILL) after this long; default 30 s. */
  timeoutMs?: number;
  cwd?: string;
}

let scratchHome: string | undefined;
function scratch(): string {
  scratchHome ??= mkdtempSync(join(tmpdir(), 'kk-home-'));
  return scratchHome;
}

/**
 * The environment a test subprocess gets. The discovery cache lives next to the kubeconfig
 * (one per sandbox), so consecutive commands against one sandbox share a warm cache.
 */
export function testEnv(kubeconfig?: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(KUBECONFIG|KUBECACHEDIR|KUBECTL_|FORCE_COLOR|NO_COLOR|HTTPS?_PROXY|https?_proxy|NO_PROXY|no_proxy|NODE_OPTIONS|GITHUB_ACTIONS|GITHUB_STEP_SUMMARY|GITLAB_CI)/.test(k)) continue;
    env[k] = v;
  }
  const home = kubeconfig ? join(dirname(kubeconfig), 'home') : scratch();
  mkdirSync(home, { recursive: true });
  env.HOME = home;
  env.CI = 'true';
  env.NO_COLOR = '1';
  env.KUBECACHEDIR = join(home, '.kube', 'cache');
  if (kubeconfig) env.KUBECONFIG = kubeconfig;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, opts: RunOptions): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { env, cwd: opts.cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 30_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr, timedOut, signal });
    });
    child.stdin.on('error', () => {
      /* the child may exit before reading stdin */
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** Runs `kubectl-kruise ARGS` (the built bundle, run `npm run build` first; or KUBECTL_KRUISE_BIN). */
export function runCli(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return run(...cliCommand(args), testEnv(opts.kubeconfig, opts.env), opts);
}

/** Runs real kubectl against the sandbox of `kubeconfig`. */
export function kubectl(args: string[], kubeconfig: string, opts: Omit<RunOptions, 'kubeconfig'> = {}): Promise<RunResult> {
  return run(KUBECTL_BIN, ['--kubeconfig', kubeconfig, ...args], testEnv(kubeconfig, opts.env), opts);
}

/** A long-running process (e.g. `get -w`) whose output is collected while it runs. */
export interface Streaming {
  child: ChildProcess;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches, rejects after timeoutMs (default 15 s) with the output so far. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** SIGINT (or the given signal), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<RunResult>;
}

function startStreaming(file: string, args: string[], env: NodeJS.ProcessEnv): Streaming {
  const child = spawn(file, args, { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    notify();
  });
  const exited = new Promise<RunResult>((res) => {
    child.on('close', (code, signal) => {
      notify();
      res({ code: code ?? 128, stdout: out, stderr: err, signal });
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 15_000) {
      const matches = (): boolean => (typeof pattern === 'string' ? out.includes(pattern) : pattern.test(out));
      return new Promise((res, rej) => {
        if (matches()) return res(out);
        const check = (): void => {
          if (matches()) {
            cleanup();
            res(out);
          } else if (done) {
            cleanup();
            rej(new Error(`process exited before output matched ${pattern}\nstdout:\n${out}\nstderr:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          rej(new Error(`timed out waiting for ${pattern}\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      if (!done) child.kill(signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const r = await exited;
      clearTimeout(killer);
      return r;
    },
  };
}

export function streamCli(args: string[], opts: { kubeconfig?: string; env?: Record<string, string | undefined> } = {}): Streaming {
  return startStreaming(...cliCommand(args), testEnv(opts.kubeconfig, opts.env));
}

export function streamKubectl(args: string[], kubeconfig: string): Streaming {
  return startStreaming(KUBECTL_BIN, ['--kubeconfig', kubeconfig, ...args], testEnv(kubeconfig));
}
