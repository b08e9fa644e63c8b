// `exec [-S] POD [-c CONTAINER] [-i] [-t] -- COMMAND`: kubectl exec (pkg/cmd/exec/exec.go) with
// kruise-tools' -S: the container is chosen from the pod as read once (src/kruise/exec-target.ts),
// then the command runs over WebSocket (src/kube/exec.ts). The exit code is the remote command's.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { failure, usageError } from '../../cli/exit';
import { isTerminal } from '../../cli/terminal';
import type { ExecStreams, KubeClient, TerminalSize } from '../../kube/client';
import { completedPodProblem, containerNotRunning, plainExecTarget, sidecarExecTarget } from '../../kruise/exec-target';
import { activePodsLess } from '../../kruise/rules/sidecarset-upgrade';
import type { Pod } from '../../kruise/types';
import { POD_RT, resolveWorkload } from '../../engine/targets';
import { argsLenAtDash, parseExecArgs, ttySetup, type ExecArgs } from './args';

interface ExecFlags {
  sidecar?: boolean;
  container?: string;
  stdin?: boolean;
  tty?: boolean;
  quiet?: boolean;
}

/** The pod: named, or the most active pod of a workload (kubectl's attachablePodForObject: reversed ActivePods order). */
async function targetPod(client: KubeClient, args: ExecArgs, signal: AbortSignal): Promise<Pod> {
  if (args.type === 'pod') return client.get<Pod>(POD_RT, args.name, undefined, { signal });
  const workload = await resolveWorkload(client, { type: args.type, name: args.name }, signal);
  const pods = workload.pods.filter((p) => !p.metadata.deletionTimestamp);
  if (pods.length === 0) throw failure(`${workload.kind.toLowerCase()} "${args.name}" has no pods to exec into in namespace "${workload.namespace}"`);
  return pods.reduce((best, p) => (activePodsLess(best, p) < 0 ? p : best));
}

/** Raw mode on the local terminal for the session; undone on every way out. */
function rawTerminal(): { stdin: NodeJS.ReadStream; restore: () => void } {
  const stdin = process.stdin;
  stdin.setRawMode(true);
  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    try {
      stdin.setRawMode(false);
    } catch {
      /* the terminal is gone */
    }
    process.off('exit', restore);
  };
  process.on('exit', restore);
  return { stdin, restore };
}

function terminalSize(): ExecStreams['terminalSize'] {
  const out = process.stdout;
  if (!out.isTTY) return undefined;
  return {
    current: (): TerminalSize | undefined => (out.columns && out.rows ? { width: out.columns, height: out.rows } : undefined),
    onChange: (listener) => {
      out.on('resize', listener);
      return () => out.off('resize', listener);
    },
  };
}

export async function run(ctx: CommandContext, words: string[], flags: ExecFlags, command: Command): Promise<number> {
  const args = parseExecArgs(words, argsLenAtDash(command), { sidecar: flags.sidecar === true, container: flags.container });
  const client = await ctx.kube();
  const podRead = targetPod(client, args, ctx.signal);
  client.prefetchExec?.(); // the WebSocket library loads while the pod is read
  const pod = await podRead;
  const podName = pod.metadata.name ?? args.name;
  const completed = completedPodProblem(pod);
  if (completed) throw failure(completed);
  const target = flags.sidecar ? sidecarExecTarget(pod, flags.container) : plainExecTarget(pod, flags.container);
  if (!target.ok) throw target.input ? usageError(target.message, target.hint) : failure(target.message, target.hint);
  const notRunning = containerNotRunning(pod, target.container);
  if (notRunning) throw failure(`container "${target.container}" of pod "${podName}" is not running (${notRunning}): there is nothing to exec into`);
  if (target.notice && !flags.quiet) ctx.term.stderr.write(`${target.notice}\n`);

  // Whether stdin is a terminal matters only for -it.
  const setup = ttySetup(flags, flags.stdin === true && flags.tty === true && isTerminal(0));
  if (setup.warning) ctx.term.stderr.write(`${setup.warning}\n`);
  const { stdin, raw: tty } = setup;
  const raw = tty ? rawTerminal() : undefined;
  try {
    const outcome = await client.exec(
      { namespace: pod.metadata.namespace ?? client.namespace, pod: podName, container: target.container, command: args.command, stdin, stdout: true, stderr: !tty, tty },
      {
        stdin: stdin ? (raw?.stdin ?? process.stdin) : undefined,
        stdout: (chunk) => ctx.term.stdout.write(chunk),
        stderr: (chunk) => ctx.term.stderr.write(chunk),
        terminalSize: tty ? terminalSize() : undefined,
        signal: ctx.signal,
      },
    );
    raw?.restore();
    if (outcome.exitCode !== 0 && outcome.message) ctx.term.stderr.write(`${outcome.message}\n`);
    return outcome.exitCode;
  } finally {
    raw?.restore();
  }
}
