// `rollout status rollout/NAME` (and TYPE/NAME of a workload a Rollout releases): waits for the
// --until point of a Kruise Rollout release (gate.ts), printing one line or JSON Lines object per change.
// Exit codes: 0 reached, 1 failed/cancelled/deleted, 3 timed out, 4 not there yet with --watch=false.
import type { CommandContext } from '../../cli/context';
import { ExitCode } from '../../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { isNotFound } from '../../kube/errors';
import { evaluateRollout, type RolloutProgress } from '../../kruise/progress';
import { rolloutReleaseExitCode, type RolloutUntil } from '../../kruise/rollout/gate';
import { readRollout } from '../../kruise/rollout/read';
import { adapterFor } from '../../kruise/workloads/index';
import { isFinal } from '../../printers/rollout-status';
import { releaseJsonLine, releaseLine, type ReleaseReport } from '../../printers/rollout-release';
import { workloadTypeOf } from './kruise-rollout';
import { releaseReport, ReleaseWatch } from './release-watch';
import { loadPods } from './revision-source';

export interface ReleaseStatusOptions {
  watch: boolean;
  timeoutMs: number;
  failureGraceMs: number;
  until: RolloutUntil;
  json: boolean;
}

function exitCodeOf(r: ReleaseReport): number {
  if (r.state === 'TimedOut') return ExitCode.TIMEOUT;
  return rolloutReleaseExitCode({ ...r, state: r.state });
}

/** Prints each change: human lines on stdout (failures also as `error:` on stderr), or JSON Lines. */
function printer(ctx: CommandContext, json: boolean): (r: ReleaseReport) => void {
  return (r) => {
    if (json) ctx.term.stdout.write(`${releaseJsonLine(r)}\n`);
    if (r.state === 'Failed' || r.state === 'TimedOut') {
      ctx.term.stderr.write(`error: ${r.message}\n`);
      return;
    }
    if (!json) ctx.term.stdout.write(`${releaseLine(r)}\n`);
  };
}

export async function releaseStatus(ctx: CommandContext, client: KubeClient, rolloutRt: ResourceType, name: string, namespace: string, o: ReleaseStatusOptions): Promise<number> {
  const print = printer(ctx, o.json);
  if (!o.watch) {
    const r = await checkOnce(client, rolloutRt, name, namespace, o);
    print(r);
    return exitCodeOf(r);
  }
  const podType = await client.resolve('pods');
  const w = new ReleaseWatch(client, rolloutRt, podType, namespace, name, { until: o.until, failureGraceMs: o.failureGraceMs, onChange: print });
  const timer = o.timeoutMs > 0 ? setTimeout(() => w.timedOut(), o.timeoutMs) : undefined;
  const onAbort = (): void => w.stop();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  ctx.setInterruptSummary(() => `stopped waiting for rollout "${name}"`);
  try {
    w.start();
    return exitCodeOf(await w.finished);
  } finally {
    if (timer) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    w.stop();
  }
}

/** --watch=false: the Rollout and its workload (two GETs), the workload's pods only while its own rollout is not done. */
async function checkOnce(client: KubeClient, rolloutRt: ResourceType, name: string, namespace: string, o: ReleaseStatusOptions): Promise<ReleaseReport> {
  const rollout = await client.get(rolloutRt, name, namespace);
  const rt = workloadTypeOf(rollout);
  let workload: KubeObject | null | undefined;
  let verdict: RolloutProgress | undefined;
  if (rt) {
    const wlName = readRollout(rollout).workloadRef?.name ?? '';
    try {
      workload = await client.get(rt, wlName, namespace);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      workload = null;
    }
    const adapter = workload ? adapterFor(workload) : undefined;
    if (workload && adapter) {
      verdict = evaluateRollout(workload, [], Date.now(), { failureGraceMs: o.failureGraceMs });
      if (!isFinal(verdict)) verdict = evaluateRollout(workload, await loadPods(client, workload, adapter), Date.now(), { failureGraceMs: o.failureGraceMs, podsListed: true });
    }
  }
  return releaseReport(rollout, workload, verdict, o.until, Date.now());
}
