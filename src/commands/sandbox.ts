// `sandbox`: validates the flags, starts the in-memory API server, writes the kubeconfig
// once it is ready, and runs until SIGINT/SIGTERM (then exits 0, removing the kubeconfig).
import { useFullJit } from '../cli/self';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import type { CommandContext } from '../cli/context';
import { usageError } from '../cli/exit';
import { parseDuration } from '../cli/globals';

export interface SandboxCommandOptions {
  port: string;
  nodes: string;
  kruise: string;
  /** --kruise-rollout; absent: v0.6, or the release of a --crds folder holding Kruise Rollout's CRDs. */
  kruiseRollout?: string;
  /** --crds, repeatable. */
  crds?: string[];
  tls?: boolean;
  /** --tls-san, repeatable. */
  tlsSan?: string[];
  requireClientCert?: boolean;
  /** --token-user, repeatable. */
  tokenUser?: string[];
  kubeconfigOut: string;
  auditLog?: string;
  faults?: string;
  readyDelay: string;
  crashBackoff: string;
  featureGates?: string;
  tour?: boolean;
}

function intFlag(value: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) throw usageError(`invalid value "${value}" for ${flag}: must be an integer between ${min} and ${max}`);
  const n = Number(value);
  if (n < min || n > max) throw usageError(`invalid value "${value}" for ${flag}: must be an integer between ${min} and ${max}`);
  return n;
}

export async function run(ctx: CommandContext, args: string[], opts: SandboxCommandOptions): Promise<number> {
  if (args.length > 0) throw usageError(`sandbox takes no arguments (got "${args.join(' ')}")`);
  useFullJit();
  const port = intFlag(opts.port, '--port', 0, 65535);
  const nodes = intFlag(opts.nodes, '--nodes', 1, 500);
  const { parseKruiseRelease } = await import('../sandbox/index');
  const kruise = parseKruiseRelease(opts.kruise);
  if (!kruise) throw usageError(`invalid value "${opts.kruise}" for --kruise: use v1.3, v1.8, v1.9 or master`);
  const readyDelayMs = parseDuration(opts.readyDelay, '--ready-delay');
  const { parseCrashBackoff } = await import('../sandbox/index');
  let crashBackoff: import('../sandbox/store-api').CrashBackoffSetting;
  try {
    crashBackoff = parseCrashBackoff(opts.crashBackoff, (v) => parseDuration(v, '--crash-backoff'));
  } catch (err) {
    throw usageError((err as Error).message);
  }
  if (!opts.tls && (opts.tlsSan?.length || opts.requireClientCert || opts.tokenUser?.length)) throw usageError(`${opts.tlsSan?.length ? '--tls-san' : opts.tokenUser?.length ? '--token-user' : '--require-client-cert'} needs --tls`);
  for (const name of opts.tokenUser ?? []) {
    if (!/^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/.test(name) || name === 'admin' || name === 'viewer' || name === 'kruise-sandbox' || name === 'kruise-sandbox-admin') {
      throw usageError(`invalid value "${name}" for --token-user: a lowercase name (letters, digits, "-" and "."), not admin, viewer or kruise-sandbox`);
    }
  }
  for (const name of opts.tlsSan ?? []) {
    const { isIP } = await import('node:net');
    if (!isIP(name) && !/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(name)) {
      throw usageError(`invalid value "${name}" for --tls-san: must be a DNS name or an IP address`);
    }
  }
  const { checkCrdFolders } = await import('./sandbox-crds');
  const crds = await checkCrdFolders(opts.crds ?? [], opts.kruiseRollout);
  const kruiseRollout = crds.kruiseRollout;
  let faults: import('../sandbox/index').FaultSpec | undefined;
  if (opts.faults !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.faults, 'utf8');
    } catch (err) {
      throw usageError(`--faults ${opts.faults}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    const { validateFaultSpec } = await import('../sandbox/index');
    try {
      faults = validateFaultSpec(parse(text));
    } catch (err) {
      throw usageError(`--faults ${opts.faults}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  let featureGates: Readonly<Record<string, boolean>> | undefined;
  if (opts.featureGates !== undefined) {
    const { parseFeatureGates } = await import('../sandbox/index');
    try {
      featureGates = parseFeatureGates(opts.featureGates, kruise);
    } catch (err) {
      throw usageError(`--feature-gates ${opts.featureGates}: ${(err as Error).message}`);
    }
  }
  if (opts.tour) {
    const [{ startSandbox }, { runTour }] = await Promise.all([import('../sandbox/index'), import('./sandbox-tour')]);
    const sandbox = await startSandbox({ port, nodes, kruise, crdsDirs: opts.crds, kruiseRollout, tls: false, auditLog: opts.auditLog, faults, readyDelayMs: Math.min(readyDelayMs, 300), crashBackoff, featureGates });
    try {
      return await runTour(ctx, sandbox);
    } finally {
      await sandbox.stop();
    }
  }
  const kubeconfigPath = resolve(opts.kubeconfigOut);
  if (!existsSync(dirname(kubeconfigPath))) throw usageError(`--kubeconfig-out ${opts.kubeconfigOut}: folder ${dirname(kubeconfigPath)} does not exist`);
  if (opts.auditLog !== undefined && !existsSync(dirname(resolve(opts.auditLog)))) throw usageError(`--audit-log ${opts.auditLog}: folder ${dirname(resolve(opts.auditLog))} does not exist`);
  // A kubeconfig left by an earlier run must not make a waiting script think we are ready.
  rmSync(kubeconfigPath, { force: true });

  const { startSandbox, writeFileAtomic } = await import('../sandbox/index');
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({ port, nodes, kruise, crdsDirs: opts.crds, kruiseRollout, tls: Boolean(opts.tls), tlsSans: opts.tlsSan, requireClientCert: opts.requireClientCert, users: opts.tokenUser, auditLog: opts.auditLog, faults, readyDelayMs, crashBackoff, featureGates });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw usageError(`--port ${port}: address already in use`);
    throw err;
  }
  writeFileAtomic(kubeconfigPath, sandbox.kubeconfig);

  const out = ctx.term.stdout;
  out.write(`Kruise sandbox (OpenKruise ${kruise}, Kruise Rollout ${crds.rolloutFromFolder ? 'from --crds' : kruiseRollout}${opts.crds?.length ? `, CRDs from ${opts.crds.join(', ')}` : ''}) serving on ${sandbox.url} with ${nodes} node${nodes === 1 ? '' : 's'}\n`);
  out.write(`Kubeconfig: ${kubeconfigPath}\n\n`);
  out.write(`  export KUBECONFIG=${kubeconfigPath}\n`);
  out.write('  kubectl get nodes\n');
  out.write(`  ${ctx.programName} rollout status cloneset/web\n`);
  if (opts.tls) out.write('  kubectl --context viewer get pods   # read-only user\n');
  for (const name of opts.tokenUser ?? []) out.write(`  kubectl --context ${name} auth can-i get pods   # authorized by the RBAC objects you create\n`);
  out.write('\nPress Ctrl-C to stop.\n');

  // A bug in one simulated controller must not take the whole cluster (and every test using it) down.
  const report = (err: unknown): void => {
    ctx.term.stderr.write(`sandbox: internal error (continuing): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  };
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);

  // Replace the CLI's Ctrl-C and SIGTERM handlers (exit 130/143): stopping the sandbox is its normal end.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  await new Promise<void>((done) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void sandbox
        .stop()
        .catch(() => undefined)
        .finally(() => {
          rmSync(kubeconfigPath, { force: true });
          done();
        });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  ctx.term.stderr.write('sandbox stopped\n');
  // Controllers may leave timers behind; the sandbox is over, so leave now.
  process.exit(0);
}
