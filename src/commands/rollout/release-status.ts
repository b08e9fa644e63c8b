// `rollout status rollout/NAME` (and TYPE/NAME of a workload a Rollout releases): the gate over a
// workload and its Kruise Rollout (src/kruise/rollout/gate.ts evaluateGate), read once (--watch=false)
// or followed by ReleaseWatch (release-watch.ts). Exit codes: 0 reached, 1 failed or deleted,
// 3 timed out, 4 not there yet with --watch=false.
import { trimPod } from '../../kruise/rollout-pods';
import { ExitCode } from '../../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { isNotFound } from '../../kube/errors';
import { evaluateRollout, type RolloutProgress } from '../../kruise/progress';
import { rolloutReleaseExitCode, type RolloutUntil } from '../../kruise/rollout/gate';
import { readRollout } from '../../kruise/rollout/read';
import { adapterFor } from '../../kruise/workloads/index';
import { isFinal } from '../../printers/rollout-status';
import type { ReleaseReport } from '../../printers/rollout-release';
import { workloadTypeOf } from './kruise-rollout';
import { releaseReport } from './release-watch';
import { loadPods } from './revision-source';

/** A Rollout to follow, and whether the user named its workload (TYPE/NAME) rather than the Rollout. */
export interface ReleaseTarget {
  rt: ResourceType;
  name: string;
  namespace: string;
  forWorkload: boolean;
  /** The objects named on the command line it gates, as -o name prints them (cloneset.apps.kruise.io/web). */
  gated: string[];
}

export function releaseExitCode(r: ReleaseReport): number {
  if (r.state === 'TimedOut') return ExitCode.TIMEOUT;
  return rolloutReleaseExitCode({ ...r, state: r.state });
}

/** --watch=false: the Rollout and its workload (two GETs), the workload's pods only while its own rollout is not done. */
export async function checkRelease(client: KubeClient, t: ReleaseTarget, o: { until: RolloutUntil; failureGraceMs: number }): Promise<ReleaseReport> {
  const rollout = await client.get(t.rt, t.name, t.namespace);
  const rt = workloadTypeOf(rollout);
  let workload: KubeObject | null | undefined;
  let verdict: RolloutProgress | undefined;
  if (rt) {
    const wlName = readRollout(rollout).workloadRef?.name ?? '';
    try {
      workload = await client.get(rt, wlName, t.namespace);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      workload = null;
    }
    const adapter = workload ? adapterFor(workload) : undefined;
    if (workload && adapter) {
      verdict = evaluateRollout(workload, [], Date.now(), { failureGraceMs: o.failureGraceMs });
      if (!isFinal(verdict) || verdict.needsPods) verdict = evaluateRollout(workload, await loadPods(client, workload, adapter, undefined, trimPod), Date.now(), { failureGraceMs: o.failureGraceMs, podsListed: true });
    }
  }
  return releaseReport(rollout, workload, verdict, o.until, Date.now(), !t.forWorkload);
}
