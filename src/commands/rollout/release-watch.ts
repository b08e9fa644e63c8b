// The watch loop of `rollout status rollout/NAME`: follows the Rollout, the workload it points at
// and (through RolloutWatch, only while that workload's own rollout is not done) the workload's pods,
// re-evaluating the gate (src/kruise/rollout/gate.ts) on every event and at the end of a timed pause.
// Never polls: one watch per object, plus a pod watch while the batch is being updated.
import type { KubeClient, KubeObject, Observation, ResourceType } from '../../kube/client';
import { failure, usageError } from '../../cli/exit';
import { isNoAnswer, resourceLabel } from '../../kube/errors';
import { evaluateGate, RolloutUntilError, type RolloutUntil } from '../../kruise/rollout/gate';
import { readRollout } from '../../kruise/rollout/read';
import type { RolloutProgress } from '../../kruise/progress';
import { adapterFor } from '../../kruise/workloads/index';
import { releaseIsFinal, releaseKey, releaseLine, type ReleaseReport } from '../../printers/rollout-release';
import { RolloutWatch } from './status-watch';
import { workloadTypeOf } from './kruise-rollout';

export interface ReleaseWatchSettings {
  until: RolloutUntil;
  failureGraceMs: number;
  /** Called once per change (deduplicated), including the final one. */
  onChange(r: ReleaseReport): void;
  /**
   * The user named the workload (TYPE/NAME), not the Rollout: if the Rollout goes away the workload's
   * own gate decides (the Rollout hands the workload back before it is deleted), instead of a failure.
   */
  forWorkload?: boolean;
}

/** "Waiting for rollout "x" to finish: step 1/2 StepUpgrade...; pod y ..." → "step 1/2 StepUpgrade; pod y ..." (the timeout line says what it waited for). */
function waitingDetail(line: string): string {
  const m = /^Waiting for [^:]*: (.*)$/s.exec(line);
  return (m ? m[1]! : line).replace(/\.\.\.$/, '');
}

/** The gate's verdict for a Rollout and (when looked up) its workload and that workload's own verdict. */
export function releaseReport(rollout: KubeObject, workload: KubeObject | null | undefined, verdict: RolloutProgress | undefined, until: RolloutUntil, now: number, followsRollout = false): ReleaseReport {
  let r;
  try {
    r = evaluateGate(rollout, workload, now, { until, followsRollout, workloadVerdict: verdict && { state: verdict.state, message: verdict.message, failing: verdict.failing } });
  } catch (err) {
    // --until=step=N beyond the Rollout's steps: the request cannot be met (nothing was changed).
    if (err instanceof RolloutUntilError) throw usageError(err.message);
    throw err;
  }
  const ref = readRollout(rollout).workloadRef;
  const report: ReleaseReport = { ...r, apiVersion: rollout.apiVersion ?? '', workload: ref ? `${ref.kind}/${ref.name}` : undefined };
  // The workload was looked up and is not there: "not found" is a failure (exit 1), as for any object a
  // gate waits on; waiting would hang a pipeline. (A status still saying "Workload Not Found" while the
  // workload exists is only the controller lagging: that stays Blocked and is waited for.)
  return workload === null && r.state === 'Blocked' ? { ...report, state: 'Failed' } : report;
}

/**
 * The workload's own `rollout status` verdict (pods failing past the grace fail the release).
 * RolloutWatch ends at the first final state (a canary batch is PartitionComplete); the next batch
 * starts a fresh one, so pods are watched only while a batch is being updated.
 */
class WorkloadVerdict {
  private watch: RolloutWatch | undefined;
  verdict: RolloutProgress | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly podType: ResourceType,
    private readonly namespace: string,
    private readonly failureGraceMs: number,
    private readonly changed: () => void,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** The last failed request of the pod watch, while it is retried. */
  get trouble(): unknown {
    return this.watch?.apiTrouble;
  }

  update(obj: KubeObject): void {
    if (!adapterFor(obj)) return;
    if (this.verdict?.state === 'Failed') return;
    if (!this.watch || this.watch.isDone) {
      const name = obj.metadata.name ?? '';
      const w = new RolloutWatch(this.client, this.podType, this.namespace, name, `${(obj.kind ?? '').toLowerCase()} "${name}"`, {
        failureGraceMs: this.failureGraceMs,
        onChange: (p) => {
          this.verdict = p;
          this.changed();
        },
      });
      w.finished.catch((err: unknown) => this.failed(err));
      this.watch = w;
    }
    this.watch.updateWorkload(obj);
  }

  reset(): void {
    this.watch?.stop();
    this.watch = undefined;
    this.verdict = undefined;
  }
}

export class ReleaseWatch {
  readonly finished: Promise<ReleaseReport>;
  private resolveFinished!: (r: ReleaseReport) => void;
  private rejectFinished!: (err: unknown) => void;
  private rollout: KubeObject | undefined;
  private rolloutObs: Observation | undefined;
  private workloadKey = '';
  private workloadObs: Observation | undefined;
  /** undefined: not looked up (yet, or a kind we do not know); null: missing. */
  private workload: KubeObject | null | undefined;
  private workloadSynced = false;
  private verdict: WorkloadVerdict;
  private recheckTimer: NodeJS.Timeout | undefined;
  private lastKey = '';
  private last: ReleaseReport | undefined;
  private done = false;
  /** The Rollout was deleted while a TYPE/NAME gate followed it: the workload alone decides now. */
  private rolloutGone = false;
  /** The last failed request of the Rollout's or the workload's watch, while it is retried. */
  private apiTrouble: unknown;

  constructor(
    private readonly client: KubeClient,
    private readonly rolloutRt: ResourceType,
    podType: ResourceType,
    readonly namespace: string,
    readonly name: string,
    private readonly settings: ReleaseWatchSettings,
  ) {
    this.finished = new Promise((res, rej) => {
      this.resolveFinished = res;
      this.rejectFinished = rej;
    });
    this.finished.catch(() => undefined);
    this.verdict = new WorkloadVerdict(client, podType, namespace, settings.failureGraceMs, () => this.evaluate(), (err) => this.fail(err));
  }

  get isDone(): boolean {
    return this.done;
  }

  start(): void {
    let synced = false;
    this.rolloutObs = this.client.observe(
      this.rolloutRt,
      this.namespace,
      {
        name: this.name,
        onTrouble: (err) => (this.apiTrouble = err),
        onSync: (items) => {
          const obj = items.find((i) => i.metadata.name === this.name);
          if (obj) this.updateRollout(obj);
          else if (!synced) this.fail(failure(`rollouts.rollouts.kruise.io "${this.name}" not found in namespace "${this.namespace}"`));
          else this.deleted();
          synced = true;
        },
      },
      (ev) => {
        if (ev.object.metadata.name !== this.name || ev.type === 'BOOKMARK') return;
        if (ev.type === 'DELETED') this.deleted();
        else this.updateRollout(ev.object);
      },
    );
    this.rolloutObs.done.catch((err: unknown) => this.fail(err));
  }

  timedOut(): void {
    if (this.done) return;
    // Not a slow release but a server that answers with errors: its error (exit 1), as the workload gate says it.
    const trouble = this.apiTrouble ?? this.verdict.trouble;
    // A server answering with errors (or refusing): its error (exit 1); one that never answered: a timeout.
    if (trouble !== undefined && !isNoAnswer(trouble)) {
      this.fail(trouble);
      return;
    }
    const base = this.last ?? this.placeholder();
    // The final line is what a CI log keeps: it names the failing pod the countdown showed, or the server that did not answer.
    const unread = !this.rollout || trouble !== undefined ? `no answer from the server at ${this.client.server}${trouble instanceof Error ? ` (last error: ${trouble.message})` : ''}` : undefined;
    this.finish({ ...base, state: 'TimedOut', reached: false, failing: undefined, message: `timed out waiting for rollout "${this.name}": ${unread ?? (base.message ? waitingDetail(releaseLine(base)) : 'no status yet')}` });
  }

  stop(): void {
    this.done = true;
    this.cleanup();
  }

  private updateRollout(obj: KubeObject): void {
    if (this.done) return;
    this.rollout = obj;
    this.followWorkload(obj);
    this.evaluate();
  }

  private followWorkload(rollout: KubeObject): void {
    const rt = workloadTypeOf(rollout);
    const ref = readRollout(rollout).workloadRef;
    const key = rt && ref ? `${rt.group}/${rt.version}/${rt.resource}/${ref.name}` : '';
    if (key === this.workloadKey) return;
    this.workloadKey = key;
    this.workloadObs?.stop();
    this.workloadObs = undefined;
    this.verdict.reset();
    this.workload = undefined;
    this.workloadSynced = !key; // nothing to look up for an unknown kind
    if (!rt || !ref) return;
    const name = ref.name;
    const obs = this.client.observe(
      rt,
      this.namespace,
      {
        name,
        onTrouble: (err) => (this.apiTrouble = err),
        onSync: (items) => {
          const obj = items.find((i) => i.metadata.name === name);
          // The user named this workload: missing is "not found", as without a Rollout.
          if (!obj && this.settings.forWorkload && !this.workloadSynced) {
            this.fail(failure(`${resourceLabel(rt)} "${name}" not found in namespace "${this.namespace}"`));
            return;
          }
          this.workload = obj ?? null;
          this.workloadSynced = true;
          if (obj) this.verdict.update(obj);
          this.evaluate();
        },
      },
      (ev) => {
        if (ev.object.metadata.name !== name || ev.type === 'BOOKMARK') return;
        if (ev.type === 'DELETED') {
          this.workload = null;
          this.verdict.reset();
        } else {
          this.workload = ev.object;
          this.verdict.update(ev.object);
        }
        this.evaluate();
      },
    );
    obs.done.catch((err: unknown) => this.fail(err));
    this.workloadObs = obs;
  }

  private deleted(): void {
    if (this.done) return;
    if (this.settings.forWorkload && this.workload) {
      // Kruise Rollout finalises (hands the workload back) before a Rollout is gone: follow the workload alone.
      this.rolloutGone = true;
      this.rolloutObs?.stop();
      this.rolloutObs = undefined;
      this.evaluate();
      return;
    }
    const base = this.last ?? this.placeholder();
    this.finish({ ...base, state: 'Failed', reached: false, message: `rollout "${this.name}" was deleted while waiting for its release` });
  }

  private evaluate(): void {
    if (this.done || !this.rollout || !this.workloadSynced) return;
    let r: ReleaseReport;
    try {
      r = this.rolloutGone ? this.workloadReport() : releaseReport(this.rollout, this.workload, this.verdict.verdict, this.settings.until, Date.now(), !this.settings.forWorkload);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (releaseIsFinal(r)) {
      this.finish(r);
      return;
    }
    this.emit(r);
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = undefined;
    // A timed pause ends without any event: one timer for that moment.
    if (r.recheckAt !== undefined) this.recheckTimer = setTimeout(() => this.evaluate(), Math.max(0, r.recheckAt - Date.now()) + 5);
  }

  private emit(r: ReleaseReport): void {
    this.last = r;
    const key = releaseKey(r);
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.settings.onChange(r);
  }

  private finish(r: ReleaseReport): void {
    this.emit(r);
    this.done = true;
    this.cleanup();
    this.resolveFinished(r);
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    this.rejectFinished(err);
  }

  private cleanup(): void {
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = undefined;
    this.verdict.reset();
    this.workloadObs?.stop();
    this.workloadObs = undefined;
    this.rolloutObs?.stop();
    this.rolloutObs = undefined;
  }

  /** After the Rollout was deleted (TYPE/NAME gates): the workload's own verdict, in the release report's shape. */
  private workloadReport(): ReleaseReport {
    const v = this.verdict.verdict;
    const base = this.placeholder();
    if (!this.workload) return { ...base, state: 'Failed', message: `the workload of rollout "${this.name}" was deleted while waiting` };
    if (!v) return { ...base, release: 'none', message: `rollout "${this.name}" was deleted: waiting for the workload's own rollout...` };
    const done = v.state === 'Complete' || v.state === 'PartitionComplete';
    const state = done ? 'Complete' : v.state === 'Failed' ? 'Failed' : v.state === 'Paused' ? 'Paused' : 'Progressing';
    return { ...base, state, reached: done, release: 'none', workloadState: v.state, failing: v.failing, message: v.message };
  }

  private placeholder(): ReleaseReport {
    return { namespace: this.namespace, name: this.name, state: 'Progressing', reached: false, message: '', steps: 0, apiVersion: this.rollout?.apiVersion ?? '' };
  }
}
