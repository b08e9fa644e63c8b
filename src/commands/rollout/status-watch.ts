// The watch loop of `rollout status` for one workload: re-evaluates (src/kruise/progress.ts)
// on every workload or pod event, never polls. Pods are watched only while the rollout is not
// done (failure detection needs them; a finished rollout of 5,000 pods must not list them),
// and only pods in a failing state are kept.
import type { KubeClient, KubeObject, Observation, ResourceType } from '../../kube/client';
import type { Pod } from '../../kruise/types';
import { evaluateRollout, failingContainer, stuckKey, type RolloutProgress } from '../../kruise/progress';
import { adapterFor } from '../../kruise/workloads/index';
import { labelSelectorString } from '../../kruise/revisions';
import { isFinal, statusKey } from '../../printers/rollout-status';

export interface WatchSettings {
  failureGraceMs: number;
  /** Called once per change of state (deduplicated), including the final one. */
  onChange(p: RolloutProgress): void;
}

/** Follows one workload; the owner feeds it workload updates and reads `finished`. */
export class RolloutWatch {
  readonly finished: Promise<RolloutProgress>;
  private resolveFinished!: (p: RolloutProgress) => void;
  private rejectFinished!: (err: unknown) => void;
  private workload: KubeObject | undefined;
  /** Only pods with a failing container: the others cannot change the verdict (5,000-pod rollouts stay cheap). */
  private readonly stuckPods = new Map<string, Pod>();
  private readonly firstSeenStuck = new Map<string, number>();
  private podObservation: Observation | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;
  private lastKey = '';
  private last: RolloutProgress | undefined;
  private done = false;

  constructor(
    private readonly client: KubeClient,
    private readonly podType: ResourceType,
    readonly namespace: string,
    readonly name: string,
    /** Label for messages before the object was seen, e.g. `cloneset "web"`. */
    private readonly label: string,
    private readonly settings: WatchSettings,
  ) {
    this.finished = new Promise((res, rej) => {
      this.resolveFinished = res;
      this.rejectFinished = rej;
    });
  }

  get isDone(): boolean {
    return this.done;
  }

  /** A new version of the workload (from the list or a watch event). */
  updateWorkload(obj: KubeObject): void {
    if (this.done) return;
    this.workload = obj;
    this.evaluate();
  }

  /** The workload disappeared while we waited. */
  deleted(): void {
    if (this.done) return;
    const base = this.last ?? this.placeholder();
    this.finish({ ...base, state: 'Failed', message: `${this.label} was deleted while waiting for its rollout to finish` });
  }

  timedOut(): void {
    if (this.done) return;
    const base = this.last ?? this.placeholder();
    const why = base.message ? `: ${base.message.replace(/\.\.\.$/, '')}` : '';
    this.finish({ ...base, state: 'TimedOut', message: `timed out waiting for ${this.label} rollout to finish${why}` });
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.stopPods();
    this.rejectFinished(err);
  }

  /** Stops watching without a verdict (interrupted). */
  stop(): void {
    this.done = true;
    this.stopPods();
  }

  private evaluate(): void {
    if (this.done || !this.workload) return;
    let p: RolloutProgress;
    try {
      p = evaluateRollout(this.workload, [...this.stuckPods.values()], Date.now(), {
        failureGraceMs: this.settings.failureGraceMs,
        firstSeenStuck: this.firstSeenStuck,
      });
    } catch (err) {
      this.fail(err);
      return;
    }
    if (isFinal(p)) {
      this.finish(p);
      return;
    }
    this.emit(p);
    this.ensurePodWatch();
    this.scheduleRecheck(p.recheckAt);
  }

  private emit(p: RolloutProgress): void {
    this.last = p;
    const key = statusKey(p);
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.settings.onChange(p);
  }

  private finish(p: RolloutProgress): void {
    this.emit(p);
    this.done = true;
    this.stopPods();
    this.resolveFinished(p);
  }

  private scheduleRecheck(at: number | undefined): void {
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = undefined;
    if (at === undefined) return;
    // A stuck pod reaches its grace without any new event: one timer for that moment.
    this.recheckTimer = setTimeout(() => this.evaluate(), Math.max(0, at - Date.now()) + 5);
  }

  private ensurePodWatch(): void {
    if (this.podObservation || !this.workload) return;
    const adapter = adapterFor(this.workload);
    const selector = labelSelectorString(adapter?.selector(this.workload));
    if (!selector) return; // an empty selector would match every pod of the namespace
    this.podObservation = this.client.observe<Pod & KubeObject>(
      this.podType,
      this.namespace,
      {
        labelSelector: selector,
        limit: 500,
        onSync: (items) => {
          this.stuckPods.clear();
          for (const item of items) this.trackPod(item as Pod);
          this.evaluate();
        },
      },
      (ev) => {
        const pod = ev.object as Pod;
        if (ev.type === 'BOOKMARK') return;
        if (ev.type === 'DELETED') this.stuckPods.delete(podKey(pod));
        else this.trackPod(pod);
        this.evaluate();
      },
    );
    this.podObservation.done.catch((err: unknown) => this.fail(err));
  }

  private trackPod(pod: Pod): void {
    const stuck = failingContainer(pod);
    if (!stuck) {
      this.stuckPods.delete(podKey(pod));
      return;
    }
    this.stuckPods.set(podKey(pod), pod);
    const key = stuckKey(pod, stuck.reason);
    if (!this.firstSeenStuck.has(key)) this.firstSeenStuck.set(key, Date.now());
  }

  private stopPods(): void {
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = undefined;
    this.podObservation?.stop();
    this.podObservation = undefined;
  }

  private placeholder(): RolloutProgress {
    const w = this.workload;
    return {
      kind: w?.kind ?? '',
      apiVersion: w?.apiVersion ?? '',
      namespace: this.namespace,
      name: this.name,
      state: 'Progressing',
      replicas: 0,
      expectedUpdatedReplicas: 0,
      updatedReplicas: 0,
      updatedReadyReplicas: 0,
      partition: 0,
      message: '',
      expectedFromStatus: false,
    };
  }
}

function podKey(pod: Pod): string {
  return pod.metadata.uid ?? pod.metadata.name ?? '';
}
