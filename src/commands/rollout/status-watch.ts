// The watch loop of `rollout status` for one workload: re-evaluates (src/kruise/progress.ts)
// on every workload or pod event, never polls. Pods are watched only while the rollout is not
// done (failure detection and the check of the status against the pods need them; a finished
// rollout of 5,000 pods must not list them), each kept trimmed to the fields the rules read.
// Once pods are watched, no verdict is given before their list arrived.
import type { KubeClient, KubeObject, Observation, ResourceType } from '../../kube/client';
import type { Pod } from '../../kruise/types';
import { failingContainer, stuckKey, type RolloutProgress } from '../../kruise/progress';
import { heldVerdict } from '../../kruise/rollout/holder';
import { progressKindFor, type ProgressKind } from '../../kruise/progress-kinds';
import { labelSelectorString } from '../../kruise/revisions';
import { failingNote, isFinal, statusKey } from '../../printers/rollout-status';
import { isNoAnswer } from '../../kube/errors';
import { useWaitingJit } from '../../cli/self';

/** How long pod events are gathered before the rollout is evaluated again. */
const POD_BATCH_MS = 50;

export interface WatchSettings {
  failureGraceMs: number;
  /** Called once per change of state (deduplicated), including the final one. */
  onChange(p: RolloutProgress): void;
  /** Called every second while a failing pod's grace runs down (live countdown). */
  onTick?(p: RolloutProgress): void;
  /** The workload is followed without its Kruise Rollout: not done while a release holds it (holder.ts heldVerdict). */
  holdAware?: boolean;
}

/** Follows one workload; the owner feeds it workload updates and reads `finished`. */
export class RolloutWatch {
  readonly finished: Promise<RolloutProgress>;
  private resolveFinished!: (p: RolloutProgress) => void;
  private rejectFinished!: (err: unknown) => void;
  private workload: KubeObject | undefined;
  /** The workload's pods at its update revision (the only ones a verdict reads), trimmed (trimPod), by uid; complete once `podsSynced`. */
  private readonly pods = new Map<string, Pod>();
  private isUpdatedPod: ReturnType<ProgressKind['podTest']> | undefined;
  /** How the object's kind is judged (src/kruise/progress-kinds.ts). */
  private kind: ProgressKind | undefined;
  private podsSynced = false;
  private readonly firstSeenStuck = new Map<string, number>();
  private podObservation: Observation | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private batchTimer: NodeJS.Timeout | undefined;
  /** The last failed request while the server could not be read (cleared when a request works). */
  private trouble_: unknown;
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
    this.kind = progressKindFor(obj);
    if (this.kind) {
      const test = this.kind.podTest(obj);
      // Another revision is rolled out: the pods kept so far are the wrong ones; list again.
      if (this.podObservation && test.key !== this.isUpdatedPod?.key) this.restartPodWatch();
      this.isUpdatedPod = test;
    }
    this.evaluate();
  }

  private restartPodWatch(): void {
    this.podObservation?.stop();
    this.podObservation = undefined;
    this.podsSynced = false;
    this.pods.clear();
  }

  /** The workload disappeared while we waited. */
  deleted(): void {
    if (this.done) return;
    const base = this.last ?? this.placeholder();
    this.finish({ ...base, state: 'Failed', message: `${this.label} was deleted while waiting for ${this.kind?.awaited.deleted ?? 'its rollout to finish'}` });
  }

  /** A request of this workload's watches failed and is being retried (undefined: working again). */
  trouble(err: unknown): void {
    this.trouble_ = err;
  }

  /** The last failed request of this watch, while it is retried (undefined once a request works). */
  get apiTrouble(): unknown {
    return this.trouble_;
  }

  timedOut(): void {
    if (this.done) return;
    // Not a slow rollout but a server answering with errors (or refusing): report its error (exit 1), not a timeout.
    if (this.trouble_ !== undefined && !isNoAnswer(this.trouble_)) {
      this.fail(this.trouble_);
      return;
    }
    const base = this.last ?? this.placeholder();
    // The final line is what a CI log keeps: it names the failing pod the countdown showed, or the server that did not answer.
    const lastError = this.trouble_ instanceof Error ? ` (last error: ${this.trouble_.message})` : '';
    const unread = this.workload && this.trouble_ === undefined ? undefined : `no answer from the server at ${this.client.server}${lastError}`;
    const why = [unread ?? base.detail, failingNote(base, Date.now())].filter(Boolean).join('; ');
    this.finish({ ...base, state: 'TimedOut', failing: undefined, message: `timed out waiting for ${this.label} ${this.kind?.awaited.after ?? 'rollout to finish'}${why ? `: ${why}` : ''}` });
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
      if (!this.kind) throw new Error(`no rollout rules for ${this.workload.apiVersion ?? '?'} ${this.workload.kind ?? '?'}`);
      p = this.kind.evaluate(this.workload, [...this.pods.values()], Date.now(), {
        failureGraceMs: this.settings.failureGraceMs,
        firstSeenStuck: this.firstSeenStuck,
        podsListed: this.podsSynced,
      });
      if (this.settings.holdAware) p = heldVerdict(this.workload, p);
    } catch (err) {
      this.fail(err);
      return;
    }
    // Pods are being listed: a success waits for them (the status may be ahead of the pods we know);
    // a verdict that would say more with the pods (a failed job's failed pod) lists them first.
    const waitForPods = !this.podsSynced && ((this.podObservation !== undefined && (p.state === 'Complete' || p.state === 'PartitionComplete')) || p.needsPods === true);
    if (isFinal(p) && !waitForPods) {
      this.finish(p);
      return;
    }
    if (!waitForPods) this.emit(p);
    this.ensurePodWatch();
    this.scheduleRecheck(p.recheckAt);
    this.scheduleTick(p);
  }

  /**
   * Pod events come in bursts (thousands during a big rollout): the cache is updated at once, the
   * verdict at most every POD_BATCH_MS, so a 5,000-pod rollout is not re-evaluated per event.
   */
  private evaluateSoon(): void {
    if (this.batchTimer || this.done) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = undefined;
      this.evaluate();
    }, POD_BATCH_MS);
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

  /** While a failing pod's grace runs down, a live countdown once a second (only with onTick). */
  private scheduleTick(p: RolloutProgress): void {
    if (!p.failing || !this.settings.onTick) {
      if (this.ticker) clearInterval(this.ticker);
      this.ticker = undefined;
      return;
    }
    if (this.ticker) return;
    this.ticker = setInterval(() => {
      if (this.last?.failing && !this.done) this.settings.onTick?.(this.last);
    }, 1000);
  }

  private ensurePodWatch(): void {
    if (this.podObservation || !this.workload || !this.kind) return;
    const kind = this.kind;
    const selector = labelSelectorString(kind.selector(this.workload));
    if (!selector) return; // an empty selector would match every pod of the namespace
    useWaitingJit();
    this.podObservation = this.client.observe<Pod & KubeObject>(
      this.podType,
      this.namespace,
      {
        labelSelector: selector,
        // kubectl's pages of 500, each pod decoded on its own as it arrives (src/kube/list-decoder.ts)
        // and kept only when a verdict reads it, trimmed: a 5,000-pod list never holds a page's
        // objects (bench/rollout-status-memory.mjs).
        limit: 500,
        mapItem: (item) => (this.isUpdatedPod && !this.isUpdatedPod(item as Pod) ? undefined : kind.trimPod(item as Pod)),
        onTrouble: (err) => this.trouble(err),
        onSync: (items) => {
          this.pods.clear();
          for (const item of items) this.trackPod(item as Pod, true);
          this.podsSynced = true;
          this.evaluate();
        },
      },
      (ev) => {
        const pod = ev.object as Pod;
        if (ev.type === 'BOOKMARK') return;
        if (ev.type === 'DELETED') this.pods.delete(podKey(pod));
        else this.trackPod(pod);
        this.evaluateSoon();
      },
    );
    this.podObservation.done.catch((err: unknown) => this.fail(err));
  }

  /** A listed pod (`trimmed`: mapItem made it) or a watch event's, kept trimmed when a verdict reads it. */
  private trackPod(pod: Pod, trimmed = false): void {
    if (this.isUpdatedPod && !this.isUpdatedPod(pod)) {
      this.pods.delete(podKey(pod));
      return;
    }
    this.pods.set(podKey(pod), trimmed || !this.kind ? pod : this.kind.trimPod(pod));
    const stuck = failingContainer(pod);
    if (!stuck) return;
    const key = stuckKey(pod, stuck.reason);
    if (!this.firstSeenStuck.has(key)) this.firstSeenStuck.set(key, Date.now());
  }

  private stopPods(): void {
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    this.recheckTimer = undefined;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    this.pods.clear();
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
      updatedAvailableReplicas: 0,
      partition: 0,
      message: '',
      expectedFromStatus: false,
    };
  }
}

function podKey(pod: Pod): string {
  return pod.metadata.uid ?? pod.metadata.name ?? '';
}
