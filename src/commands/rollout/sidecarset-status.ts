// `rollout status sidecarset/NAME...`: a SidecarSet is cluster-scoped and its "replicas" are the
// pods it matched in any namespace, so it has its own watch: the SidecarSet (by name) and the pods
// its selector picks (list+watch, in spec.namespace or every namespace); each event re-decides
// through src/kruise/progress-sidecarset.ts. Same exit codes and JSON Lines as the workload kinds.
import type { CommandContext } from '../../cli/context';
import { ExitCode, failure, usageError } from '../../cli/exit';
import type { KubeClient, KubeObject, Observation, ResourceType } from '../../kube/client';
import type { RolloutProgress } from '../../kruise/progress';
import { stuckKey, failingContainer } from '../../kruise/progress';
import { evaluateSidecarSetRollout } from '../../kruise/progress-sidecarset';
import { isSidecarSet, isSidecarSetType, readSidecarSet } from '../../kruise/workloads/sidecarset';
import { labelSelectorString } from '../../kruise/selectors';
import type { Pod } from '../../kruise/types';
import { isFinal, statusKey } from '../../printers/rollout-status';
import type { TargetRefs } from './targets';

/** How a change of state is shown (status.ts makePrinter). */
export interface ProgressPrinter {
  change(p: RolloutProgress): void;
  tick(p: RolloutProgress): void;
  close(): void;
}

export interface SidecarSetTargets {
  rt: ResourceType;
  /** Named SidecarSets; empty with -l (every match). */
  names: string[];
  selector?: string;
}

const POD_RT: ResourceType = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

/**
 * The SidecarSets among the targets: undefined when none is one; every target must then be one
 * (a SidecarSet's status is read differently, and mixing would interleave two waits' outputs).
 */
export async function sidecarSetTargets(client: KubeClient, verb: string, refs: TargetRefs): Promise<SidecarSetTargets | undefined> {
  let found: SidecarSetTargets | undefined;
  let others = 0;
  for (const spec of refs.specs) {
    if (spec.kind === 'object') {
      if (isSidecarSet(spec.object)) {
        found ??= { rt: await client.resolve('sidecarsets.apps.kruise.io'), names: [] };
        found.names.push(spec.object.metadata.name ?? '');
      } else others++;
      continue;
    }
    const rt = await client.resolve(spec.type);
    if (!isSidecarSetType(rt)) {
      others++;
      continue;
    }
    found ??= { rt, names: [] };
    if (spec.kind === 'named') found.names.push(spec.name);
    else found.selector = spec.kind === 'selector' ? spec.selector : '';
  }
  if (found && others > 0) throw usageError(`${verb}: give SidecarSets alone (sidecarset/NAME...), not mixed with other kinds`);
  return found;
}

/** The named SidecarSets, or those a selector matches (none: exit 1 like the workload kinds). */
async function sidecarSetNames(client: KubeClient, t: SidecarSetTargets): Promise<string[]> {
  if (t.selector === undefined) return t.names;
  const list = await client.list(t.rt, undefined, t.selector ? { labelSelector: t.selector } : {});
  const names = list.items.map((i) => i.metadata.name ?? '');
  if (names.length === 0) throw failure(`no sidecarsets found matching "${t.selector}"`);
  return names;
}

export interface SidecarSetStatusOptions {
  watch: boolean;
  timeoutMs: number;
  failureGraceMs: number;
  printer: ProgressPrinter;
}

const EXIT: Record<RolloutProgress['state'], number> = {
  Complete: ExitCode.OK,
  PartitionComplete: ExitCode.OK,
  Failed: ExitCode.FAILED,
  TimedOut: ExitCode.TIMEOUT,
  Progressing: ExitCode.NOT_FINISHED,
  Paused: ExitCode.NOT_FINISHED,
};

export async function sidecarSetStatus(ctx: CommandContext, client: KubeClient, t: SidecarSetTargets, o: SidecarSetStatusOptions): Promise<number> {
  const names = await sidecarSetNames(client, t);
  const results = o.watch ? await watchAll(ctx, client, t.rt, names, o) : await Promise.all(names.map((n) => checkOnce(client, t.rt, n, o)));
  o.printer.close();
  return Math.max(ExitCode.OK, ...results.map((p) => EXIT[p.state]));
}

/** Pods a SidecarSet may match: its selector, in spec.namespace or in every namespace. */
function podScope(obj: KubeObject): { namespace: string | undefined; labelSelector: string } {
  const view = readSidecarSet(obj);
  return { namespace: view.namespace, labelSelector: labelSelectorString(view.selector) };
}

/**
 * Labels of every namespace (kubernetes.io/metadata.name included, as the API server sets it), read
 * only for a SidecarSet with a namespaceSelector: pods of namespaces it no longer selects are not matched.
 */
async function namespaceLabels(client: KubeClient, obj: KubeObject): Promise<Map<string, Record<string, string>> | undefined> {
  if (!readSidecarSet(obj).namespaceSelector) return undefined;
  const list = await client.list(await client.resolve('namespaces'), undefined, { limit: 500 });
  return new Map(list.items.map((n) => [n.metadata.name ?? '', { ...(n.metadata.labels ?? {}), 'kubernetes.io/metadata.name': n.metadata.name ?? '' }]));
}

/** --watch=false: one read; the pods are listed only when the status alone does not say done. */
async function checkOnce(client: KubeClient, rt: ResourceType, name: string, o: SidecarSetStatusOptions): Promise<RolloutProgress> {
  const obj = await client.get(rt, name);
  let p = evaluateSidecarSetRollout(obj, [], Date.now(), { failureGraceMs: o.failureGraceMs });
  const scope = podScope(obj);
  if (!isFinal(p) || p.state === 'Complete' || p.state === 'PartitionComplete') {
    const pods = (await client.list<Pod>(POD_RT, scope.namespace, { labelSelector: scope.labelSelector || undefined, limit: 500 })).items;
    p = evaluateSidecarSetRollout(obj, pods, Date.now(), { failureGraceMs: o.failureGraceMs, podsListed: true, namespaceLabels: await namespaceLabels(client, obj) });
  }
  o.printer.change(p);
  return p;
}

/** One SidecarSet followed until its rollout is done, failed, or the time is up. */
class SidecarSetWatch {
  readonly finished: Promise<RolloutProgress>;
  private resolve!: (p: RolloutProgress) => void;
  private reject!: (err: unknown) => void;
  private obj?: KubeObject;
  private readonly pods = new Map<string, Pod>();
  private nsLabels?: Map<string, Record<string, string>>;
  private podsSynced = false;
  private podObs?: Observation;
  private podScopeKey = '';
  private last?: RolloutProgress;
  private lastKey = '';
  private recheck?: ReturnType<typeof setTimeout>;
  private readonly firstSeen = new Map<string, number>();
  done = false;

  constructor(
    private readonly client: KubeClient,
    readonly name: string,
    private readonly o: SidecarSetStatusOptions,
  ) {
    this.finished = new Promise((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
    this.finished.catch(() => undefined);
  }

  update(obj: KubeObject): void {
    this.obj = obj;
    const scope = podScope(obj);
    const key = `${scope.namespace ?? ''}\u0000${scope.labelSelector}`;
    // A selector change means other pods: watch those instead.
    if (key !== this.podScopeKey) {
      this.podScopeKey = key;
      this.podObs?.stop();
      this.pods.clear();
      this.podsSynced = false;
      const podKey = (p: Pod): string => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;
      this.podObs = this.client.observe<Pod>(
        POD_RT,
        scope.namespace,
        {
          labelSelector: scope.labelSelector || undefined,
          onSync: async (items) => {
            this.pods.clear();
            for (const p of items as Pod[]) this.pods.set(podKey(p), p);
            try {
              // Read with each (re-)list of the pods: a namespace relabelled since is seen then.
              this.nsLabels = await namespaceLabels(this.client, obj);
            } catch (err) {
              this.fail(err);
              return;
            }
            this.podsSynced = true;
            this.evaluate();
          },
        },
        (ev) => {
          if (ev.type === 'BOOKMARK') return;
          const p = ev.object as Pod;
          if (ev.type === 'DELETED') this.pods.delete(podKey(p));
          else this.pods.set(podKey(p), p);
          this.evaluate();
        },
      );
      this.podObs.done.catch((err: unknown) => this.fail(err));
    }
    this.evaluate();
  }

  private evaluate(): void {
    if (this.done || !this.obj || !this.podsSynced) return;
    const now = Date.now();
    const pods = [...this.pods.values()];
    for (const pod of pods) {
      const stuck = failingContainer(pod);
      if (stuck && !this.firstSeen.has(stuckKey(pod, stuck.reason))) this.firstSeen.set(stuckKey(pod, stuck.reason), now);
    }
    const p = evaluateSidecarSetRollout(this.obj, pods, now, { failureGraceMs: this.o.failureGraceMs, firstSeenStuck: this.firstSeen, podsListed: true, namespaceLabels: this.nsLabels });
    this.last = p;
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = p.recheckAt !== undefined ? setTimeout(() => this.evaluate(), Math.max(0, p.recheckAt - now) + 5) : undefined;
    const key = statusKey(p);
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.o.printer.change(p);
    } else this.o.printer.tick(p);
    if (isFinal(p)) this.finish(p, false);
  }

  deleted(): void {
    if (this.done) return;
    this.finish(this.placeholder('Failed', `sidecarset "${this.name}" was deleted while waiting for its rollout to finish`), true);
  }

  timedOut(): void {
    if (this.done) return;
    const base = this.last;
    const why = base?.detail ? `: ${base.detail}` : '';
    this.finish({ ...(base ?? this.placeholder('TimedOut', '')), state: 'TimedOut', message: `timed out waiting for sidecarset "${this.name}" rollout to finish${why}` }, true);
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.stop();
    this.reject(err);
  }

  stop(): void {
    this.done = true;
    if (this.recheck) clearTimeout(this.recheck);
    this.podObs?.stop();
  }

  private finish(p: RolloutProgress, print: boolean): void {
    if (print) this.o.printer.change(p);
    this.stop();
    this.resolve(p);
  }

  private placeholder(state: RolloutProgress['state'], message: string): RolloutProgress {
    return {
      kind: 'SidecarSet', apiVersion: this.obj?.apiVersion ?? '', namespace: '', name: this.name, state, message,
      replicas: 0, expectedUpdatedReplicas: 0, updatedReplicas: 0, updatedReadyReplicas: 0, updatedAvailableReplicas: 0, partition: 0, expectedFromStatus: false,
    };
  }
}

async function watchAll(ctx: CommandContext, client: KubeClient, rt: ResourceType, names: string[], o: SidecarSetStatusOptions): Promise<RolloutProgress[]> {
  const watches = names.map((n) => new SidecarSetWatch(client, n, o));
  const observations: Observation[] = [];
  for (const w of watches) {
    let synced = false;
    const obs = client.observe(
      rt,
      undefined,
      {
        name: w.name,
        onSync: (items) => {
          const obj = items.find((i) => i.metadata.name === w.name);
          if (obj) w.update(obj);
          else if (!synced) w.fail(failure(`sidecarset.apps.kruise.io "${w.name}" not found`));
          else w.deleted();
          synced = true;
        },
      },
      (ev) => {
        if (ev.object.metadata.name !== w.name) return;
        if (ev.type === 'DELETED') w.deleted();
        else if (ev.type !== 'BOOKMARK') w.update(ev.object);
      },
    );
    obs.done.catch((err: unknown) => w.fail(err));
    observations.push(obs);
  }
  const timer = o.timeoutMs > 0 ? setTimeout(() => watches.forEach((w) => w.timedOut()), o.timeoutMs) : undefined;
  const onAbort = (): void => watches.forEach((w) => w.stop());
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  ctx.setInterruptSummary(() => {
    const n = watches.filter((w) => !w.done).length;
    return `stopped waiting for ${n} ${n === 1 ? 'rollout' : 'rollouts'}`;
  });
  try {
    // The first error (not found, forbidden) ends the whole wait, like the workload kinds.
    return await Promise.all(watches.map((w) => w.finished));
  } finally {
    if (timer) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    watches.forEach((w) => w.stop());
    observations.forEach((obs) => obs.stop());
  }
}
