// `migrate cloneset/NEW --from deployment/OLD`: the I/O around the pure rules of
// kruise/plans/migrate.ts and kruise/builders/cloneset-from-deployment.ts.
// 1. Read and check everything (exit 2 before any write): the kinds, the Deployment (exit 1 when
//    absent), a CloneSet of that name (absent, or this migration's own: then resume), the mark on
//    the Deployment, the total, the surge, the converted CloneSet (Kruise's webhook rules).
// 2. One run per Deployment (a Lease); mark the Deployment with the CloneSet's name; create the
//    CloneSet at 0 replicas (--copy: at the total) carrying the migration's record.
// 3. Watch both and act on nextMigrationAction: every write a JSON patch whose `test` ops hold the
//    values the decision was made on (a 422 means someone moved: decide again on fresh data).
// Ctrl-C lets a write in flight finish, releases the Lease and says where things are and what to run.
import type { CommandContext } from '../cli/context';
import { CliError, ExitCode, failure, usageError } from '../cli/exit';
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { isNotFound, resourceLabel } from '../kube/errors';
import { isStaleWrite, retryOnConflict } from '../kube/conflict';
import { cloneSetFromDeployment } from '../kruise/builders/cloneset-from-deployment';
import {
  cloneSetScalePatch,
  DEFAULT_MAX_SURGE,
  deploymentScalePatch,
  formatMaxSurge,
  MIGRATION_ANNOTATION,
  MIGRATION_RECORD_POINTER,
  MIGRATION_TARGET_ANNOTATION,
  nextMigrationAction,
  parseMaxSurge,
  parseMigrationRecord,
  planMigration,
  resolveMaxSurge,
  serializeMigrationRecord,
  type MaxSurge,
  type MigrationAction,
  type MigrationRecord,
  type MigrationStep,
  type MigrationView,
} from '../kruise/plans/migrate';
import type { DryRunMode } from '../printers/output';
import { removableNow } from '../kruise/budgets';
import type { ResourceRef } from './targets';
import { watchSet, waitUntil, waitUntilDeadline, WaitAborted, WaitTimeout, type LiveSet } from './live';

export type MigrateMode = 'migrate' | 'create' | 'copy';

export interface MigrateOptions {
  /** migrate: create if needed and move the pods; create: only create at 0; copy: only create at the total. */
  mode: MigrateMode;
  /** --replicas: the total to end with (default: the recorded one, else the Deployment's). */
  replicas?: number;
  /** --max-surge (default: the recorded one, else 1). */
  maxSurge?: MaxSurge;
  /** 0 = no limit. */
  timeoutMs: number;
  dryRun: DryRunMode;
  deleteSource: boolean;
  waitForLock: boolean;
}

export interface MigrateReporter {
  /** Transient status (spinner text on a TTY). */
  progress(text: string): void;
  /** A permanent line on stderr (one per step, notes). */
  log(line: string): void;
  /** The CloneSet was created (the command prints its mutation line at once). */
  created(cloneSet: KubeObject): void;
}

export type MigrateOutcome = 'dry-run' | 'created' | 'copied' | 'migrated' | 'unchanged';

export interface MigrateResult {
  outcome: MigrateOutcome;
  /** The CloneSet as built (dry run) or as last read. */
  cloneSet: KubeObject;
  cloneSetRt: ResourceType;
  /** The steps planned from the state found (dry run) or done by this run. */
  plan: MigrationStep[];
  total: number;
  maxSurge: string;
  deploymentDeleted: boolean;
  /** The CloneSet existed before this run (a resumed or finished migration). */
  existing: boolean;
  message?: string;
}

interface Inspection {
  deployment: KubeObject;
  cloneSet?: KubeObject;
  record?: MigrationRecord;
  /** The CloneSet as it would be created (absent when it exists). */
  built?: KubeObject;
  total: number;
  surge: MaxSurge;
  surgePods: number;
  notes: string[];
}

const DEPLOYMENT_GROUP = 'apps';

function replicasOf(obj: KubeObject | undefined, fallback = 1): number {
  const r = (obj?.spec as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === 'number' ? r : fallback;
}

function observed(obj: KubeObject): boolean {
  const status = obj.status as { observedGeneration?: number } | undefined;
  return (status?.observedGeneration ?? 0) >= (obj.metadata.generation ?? 0);
}

function availableOf(obj: KubeObject): number {
  return (obj.status as { availableReplicas?: number } | undefined)?.availableReplicas ?? 0;
}

/** The resource types named on the command line: a CloneSet to make, a Deployment to empty (exit 2 otherwise). */
export async function resolveMigrationTypes(client: KubeClient, target: ResourceRef, from: ResourceRef): Promise<{ cloneSetRt: ResourceType; deploymentRt: ResourceType }> {
  const [cloneSetRt, deploymentRt] = await Promise.all([client.resolve(target.type), client.resolve(from.type)]);
  if (cloneSetRt.group !== 'apps.kruise.io' || cloneSetRt.resource !== 'clonesets') {
    throw usageError(`migrate makes a CloneSet: expected cloneset/NAME, not ${target.type}/${target.name} (${resourceLabel(cloneSetRt)})`);
  }
  if (deploymentRt.group !== DEPLOYMENT_GROUP || deploymentRt.resource !== 'deployments') {
    throw usageError(`migrate moves the pods of a Deployment: expected --from deployment/NAME, not ${from.type}/${from.name} (${resourceLabel(deploymentRt)})`);
  }
  return { cloneSetRt, deploymentRt };
}

/** The command a user runs to go on where this run stopped. */
export function rerunCommand(ctx: CommandContext, ns: string, target: string, from: string): string {
  return `${ctx.programName} migrate cloneset/${target} --from deployment/${from} -n ${ns}`;
}

/**
 * Reads the Deployment and the CloneSet and checks everything knowable before a write. Throws
 * exit 1 for a missing Deployment, exit 2 for anything that makes the migration impossible or unsafe.
 */
async function inspect(
  client: KubeClient,
  rts: { cloneSetRt: ResourceType; deploymentRt: ResourceType },
  names: { target: string; from: string },
  options: MigrateOptions,
  ctx: CommandContext,
  signal: AbortSignal,
): Promise<Inspection> {
  const ns = client.namespace;
  const { target, from } = names;
  const [deployment, cloneSet] = await Promise.all([
    client.get(rts.deploymentRt, from, ns, { signal }),
    client.get(rts.cloneSetRt, target, ns, { signal }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    }),
  ]);
  const src = `deployment/${from}`;
  const dst = `cloneset/${target}`;
  if (deployment.metadata.deletionTimestamp) throw failure(`${src} is being deleted; nothing was changed`);
  const marked = deployment.metadata.annotations?.[MIGRATION_TARGET_ANNOTATION];
  if (marked !== undefined && marked !== target) {
    throw usageError(
      `${src} belongs to the migration to cloneset/${marked} (annotation ${MIGRATION_TARGET_ANNOTATION}), not to ${dst}; nothing was changed`,
      `hint: finish that one with "${rerunCommand(ctx, ns, marked, from)}", or remove the annotation from ${src} to start over`,
    );
  }
  let record: MigrationRecord | undefined;
  if (cloneSet) {
    record = parseMigrationRecord(cloneSet.metadata.annotations?.[MIGRATION_ANNOTATION]);
    if (!record) {
      throw usageError(`cloneset.apps.kruise.io/${target} already exists and is not a migration's (no ${MIGRATION_ANNOTATION} annotation): choose another name; nothing was changed`);
    }
    if (record.from !== from) throw usageError(`${dst} belongs to the migration from deployment/${record.from}, not from ${src}; nothing was changed`);
    if (record.sourceUid !== deployment.metadata.uid) {
      throw usageError(`${dst} was made from an earlier ${src} (uid ${record.sourceUid}; this one is ${deployment.metadata.uid ?? '?'}): it was deleted and created again since; nothing was changed`);
    }
    if (options.mode !== 'migrate' && (record.state === 'migrating' || record.state === 'done')) {
      throw usageError(`${dst} is already ${record.state === 'done' ? 'migrated' : 'being migrated'} from ${src}: --${options.mode} only creates it; run without --${options.mode} to go on`);
    }
  }
  const deploymentReplicas = replicasOf(deployment);
  const total = options.replicas ?? record?.replicas ?? (options.mode === 'create' ? 0 : deploymentReplicas);
  const cloneSetReplicas = cloneSet ? replicasOf(cloneSet) : options.mode === 'copy' ? total : 0;
  if (cloneSetReplicas > total && options.mode === 'migrate') {
    throw usageError(`${dst} already has ${cloneSetReplicas} replicas, more than the ${total} to end with (--replicas): migrate never scales the CloneSet down; nothing was changed`);
  }
  const surge = options.maxSurge ?? parseMaxSurge(record?.maxSurge ?? DEFAULT_MAX_SURGE);
  const surgePods = resolveMaxSurge(surge, total);
  // Raising the CloneSet needs room above the total; lowering the Deployment needs none.
  if (options.mode === 'migrate' && surgePods < 1 && cloneSetReplicas < total) {
    throw usageError(`--max-surge ${formatMaxSurge(surge)} is 0 pods of ${total}: nothing could move (the Deployment is lowered only as new CloneSet pods become available); nothing was changed`);
  }
  const notes: string[] = [];
  let built: KubeObject | undefined;
  if (!cloneSet) {
    const spec = deployment.spec as { progressDeadlineSeconds?: number } | undefined;
    let progressDeadline = true;
    if (spec?.progressDeadlineSeconds !== undefined) {
      const { crdVersionLacksField } = await import('./crd-fields');
      progressDeadline = !(await crdVersionLacksField(client, 'clonesets.apps.kruise.io', rts.cloneSetRt.version, 'progressDeadlineSeconds'));
    }
    const record0: MigrationRecord = {
      from,
      sourceUid: deployment.metadata.uid ?? '',
      sourceReplicas: deploymentReplicas,
      ...(options.mode === 'create' ? {} : { replicas: total, maxSurge: formatMaxSurge(surge) }),
      state: options.mode === 'create' ? 'created' : options.mode === 'copy' ? 'copied' : 'migrating',
      startedAt: new Date().toISOString(),
    };
    const conversion = cloneSetFromDeployment({
      deployment,
      name: target,
      apiVersion: `${rts.cloneSetRt.group}/${rts.cloneSetRt.version}`,
      replicas: cloneSetReplicas,
      record: serializeMigrationRecord(record0),
      progressDeadline,
    });
    if (!conversion.cloneSet) throw usageError(`cannot make a CloneSet of ${src}: ${conversion.problems.join('; ')}; nothing was created`);
    // Kruise's webhook rules, at every size the CloneSet will have (percentages scale with replicas).
    const { validateCloneSet, fieldErrorMessage } = await import('../kruise/rules/cloneset-webhook');
    for (const size of new Set([cloneSetReplicas, total])) {
      const atSize = { ...conversion.cloneSet, spec: { ...(conversion.cloneSet.spec as object), replicas: size } };
      const errors = validateCloneSet(atSize);
      if (errors.length > 0) {
        throw usageError(`cannot make a CloneSet of ${src}: the CloneSet "${target}" would be invalid: ${errors.map((e) => `${e.field}: ${fieldErrorMessage(e)}`).join('; ')}; nothing was created`);
      }
    }
    built = conversion.cloneSet;
    notes.push(...conversion.notes);
    // Pods carry controller-revision-hash=<name>-<hash>: a label value of at most 63 characters.
    if (target.length > 52) notes.push(`warning: the name "${target}" is ${target.length} characters long: unless Kruise runs with the CloneSetShortHash feature gate, its pods' controller-revision-hash label (name-hash) would exceed 63 characters and they could not be created`);
  }
  return {
    deployment,
    ...(cloneSet ? { cloneSet } : {}),
    ...(record ? { record } : {}),
    ...(built ? { built } : {}),
    total,
    surge,
    surgePods,
    notes,
  };
}

/** "cloneset/web 4 (2 available), deployment/web 2": where things stand, for lines and summaries. */
function stateLine(target: string, from: string, cs: KubeObject | undefined, dep: KubeObject | undefined): string {
  const c = cs ? `cloneset/${target} ${replicasOf(cs, 0)} (${availableOf(cs)} available)` : `cloneset/${target} not created`;
  const d = dep ? `deployment/${from} ${replicasOf(dep)}` : `deployment/${from} gone`;
  return `${c}, ${d}`;
}

export async function runMigrate(
  ctx: CommandContext,
  client: KubeClient,
  refs: { target: ResourceRef; from: ResourceRef },
  options: MigrateOptions,
  reporter: MigrateReporter,
): Promise<MigrateResult> {
  const ns = client.namespace;
  const target = refs.target.name;
  const from = refs.from.name;
  const rts = await resolveMigrationTypes(client, refs.target, refs.from);
  const names = { target, from };
  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : undefined;
  let found = await inspect(client, rts, names, options, ctx, ctx.signal);
  for (const note of found.notes) reporter.log(note.startsWith('warning: ') ? note : `note: ${note}`);
  const existing = found.cloneSet !== undefined;
  const baseOf = (f: Inspection) => ({ cloneSetRt: rts.cloneSetRt, total: f.total, maxSurge: formatMaxSurge(f.surge), deploymentDeleted: false, existing });
  const planFrom = (f: Inspection): MigrationStep[] =>
    options.mode === 'migrate' ? planMigration({ cloneSetReplicas: f.cloneSet ? replicasOf(f.cloneSet) : 0, deploymentReplicas: replicasOf(f.deployment) }, f.total, f.surgePods) : [];

  if (options.dryRun !== 'none') {
    let cloneSet = found.cloneSet ?? found.built!;
    if (!found.cloneSet && options.dryRun === 'server') cloneSet = await client.create(rts.cloneSetRt, found.built!, ns, { dryRun: true, signal: ctx.signal });
    return { ...baseOf(found), outcome: 'dry-run', cloneSet, plan: planFrom(found) };
  }
  // Nothing to write: a finished migration, or a CloneSet --create/--copy made before.
  const settled = (f: Inspection): MigrateResult | undefined => {
    if (f.record?.state === 'done' && !options.deleteSource) {
      return { ...baseOf(f), outcome: 'unchanged', cloneSet: f.cloneSet!, plan: [], message: `nothing to do: cloneset/${target} finished its migration from deployment/${from} at ${f.record.finishedAt ?? '?'}` };
    }
    if (options.mode !== 'migrate' && f.cloneSet) {
      return { ...baseOf(f), outcome: 'unchanged', cloneSet: f.cloneSet, plan: [], message: `cloneset/${target} was already ${f.record?.state ?? 'created'} from deployment/${from} (${replicasOf(f.cloneSet)} replicas)` };
    }
    return undefined;
  };
  const early = settled(found);
  if (early) return early;

  const { acquireLease, operationLeaseName, steady } = await import('./lease');
  const lease = await acquireLease(client, ns, { name: operationLeaseName('migrate', 'deployment', from), operation: 'migrate', what: `deployment/${from}`, doing: 'migrated' }, {
    wait: options.waitForLock,
    deadline,
    signal: ctx.signal,
    log: (line) => reporter.log(line),
  });
  const signal = AbortSignal.any([ctx.signal, lease.lost]);
  // Writes stop at the interrupt; one already sent is answered before the summary is written.
  // Each is guarded (test ops, resourceVersion, preconditions), so one whose answer was lost to a
  // 5xx or a reset connection is sent again: if it had landed, the guard refuses the second.
  const stop = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const send = <T>(write: () => Promise<T>): Promise<T> => {
    if (stop.signal.aborted) return new Promise<never>(() => undefined);
    const p = steady(write, signal);
    inFlight.add(p);
    void p.then(
      () => inFlight.delete(p),
      () => inFlight.delete(p),
    );
    return p;
  };
  let latest: { cloneSet?: KubeObject; deployment?: KubeObject } = { cloneSet: found.cloneSet, deployment: found.deployment };
  let where = 'before any change';
  ctx.setInterruptSummary(async () => {
    stop.abort();
    await Promise.race([Promise.allSettled([...inFlight]), new Promise((res) => setTimeout(res, 1500))]);
    await lease.release();
    return `migration of deployment/${from} to cloneset/${target} stopped ${where}: ${stateLine(target, from, latest.cloneSet, latest.deployment)}; run "${rerunCommand(ctx, ns, target, from)}" to continue`;
  });
  try {
    if (lease.waited) {
      // Another run held it: what it did is on the cluster; check and plan from that.
      found = await inspect(client, rts, names, options, ctx, signal);
      latest = { cloneSet: found.cloneSet, deployment: found.deployment };
      const after = settled(found);
      if (after) return after;
    }
    await markDeployment(client, rts.deploymentRt, ns, found.deployment, target, send, signal);
    let cloneSet = found.cloneSet;
    if (!cloneSet) {
      const { createOrAdopt } = await import('./idempotent');
      const made = await send(() => createOrAdopt<KubeObject>(client, rts.cloneSetRt, found.built!, { signal }));
      cloneSet = made.object;
      const record = parseMigrationRecord(cloneSet.metadata.annotations?.[MIGRATION_ANNOTATION]);
      if (!made.created && (!record || record.from !== from || record.sourceUid !== found.deployment.metadata.uid)) {
        throw failure(`cloneset.apps.kruise.io/${target} was created by someone else meanwhile (not from deployment/${from}); nothing more was changed`);
      }
      latest.cloneSet = cloneSet;
      where = `after creating cloneset/${target}`;
      if (made.created) reporter.created(cloneSet);
    }
    if (options.mode !== 'migrate') {
      return { ...baseOf(found), outcome: options.mode === 'create' ? 'created' : 'copied', cloneSet, plan: [] };
    }
    const run = await migrateLoop(ctx, client, rts, names, found, { deadline, signal, send, reporter, onState: (s) => (latest = s), onWhere: (w) => (where = w) });
    let deploymentDeleted = false;
    if (options.deleteSource) deploymentDeleted = await deleteSource(client, rts.deploymentRt, ns, from, found.deployment.metadata.uid ?? '', { deadline, signal, send, reporter });
    return { ...baseOf(found), outcome: 'migrated', cloneSet: run.cloneSet, plan: run.steps, deploymentDeleted };
  } catch (err) {
    if (lease.lost.aborted) throw failure(`migration of deployment/${from}: ${(lease.lost.reason as Error).message}; stopped (${stateLine(target, from, latest.cloneSet, latest.deployment)})`, `hint: run "${rerunCommand(ctx, ns, target, from)}" to continue`);
    throw err;
  } finally {
    await lease.release();
  }
}

/** Writes the CloneSet's name on the Deployment (resourceVersion-guarded), so no other migration starts from it. */
async function markDeployment(
  client: KubeClient,
  rt: ResourceType,
  ns: string,
  deployment: KubeObject,
  target: string,
  send: <T>(w: () => Promise<T>) => Promise<T>,
  signal: AbortSignal,
): Promise<void> {
  let current = deployment;
  await retryOnConflict(
    async (attempt) => {
      if (attempt > 1) current = await client.get(rt, deployment.metadata.name ?? '', ns, { signal });
      if (current.metadata.uid !== deployment.metadata.uid) throw failure(`deployment/${deployment.metadata.name} was deleted and created again meanwhile; nothing more was changed`);
      const marked = current.metadata.annotations?.[MIGRATION_TARGET_ANNOTATION];
      if (marked === target) return;
      if (marked !== undefined) throw failure(`deployment/${deployment.metadata.name} was marked for a migration to cloneset/${marked} meanwhile; nothing more was changed`);
      const patch = { metadata: { resourceVersion: current.metadata.resourceVersion, annotations: { [MIGRATION_TARGET_ANNOTATION]: target } } };
      await send(() => client.patch(rt, deployment.metadata.name ?? '', 'merge', patch, ns, { signal }));
    },
    { signal },
  );
}

interface LoopIo {
  deadline?: number;
  signal: AbortSignal;
  send: <T>(w: () => Promise<T>) => Promise<T>;
  reporter: MigrateReporter;
  onState(s: { cloneSet?: KubeObject; deployment?: KubeObject }): void;
  onWhere(w: string): void;
}

/** What a wait is for, in words (progress text and the timeout message). */
function waitText(action: Extract<MigrationAction, { kind: 'wait' }>, target: string, from: string): string {
  switch (action.reason) {
    case 'cloneset-observed':
      return `cloneset/${target} to observe its new replicas`;
    case 'deployment-observed':
      return `deployment/${from} to observe its new replicas`;
    case 'cloneset-available':
      return `cloneset/${target}: ${action.available} of ${action.wanted} pods available`;
  }
}

/** The generation our last write gave a watched object: no decision on a view older than that. */
interface Expectation {
  generation: number;
}

function satisfies(obj: KubeObject, e: Expectation | undefined): boolean {
  return !e || (obj.metadata.generation ?? 0) >= e.generation;
}

/** Consecutive refused writes before giving up (someone keeps changing the objects). */
const MAX_STALE_WRITES = 8;
/** After a refused write, how long to wait for the watch to show what changed before deciding again anyway. */
const STALE_SETTLE_MS = 1000;

async function migrateLoop(
  ctx: CommandContext,
  client: KubeClient,
  rts: { cloneSetRt: ResourceType; deploymentRt: ResourceType },
  names: { target: string; from: string },
  found: Inspection,
  io: LoopIo,
): Promise<{ cloneSet: KubeObject; steps: MigrationStep[] }> {
  const ns = client.namespace;
  const { target, from } = names;
  const uid = found.deployment.metadata.uid ?? '';
  const csSet = watchSet<KubeObject>(client, rts.cloneSetRt, ns, { fieldSelector: `metadata.name=${target}`, signal: io.signal });
  const depSet = watchSet<KubeObject>(client, rts.deploymentRt, ns, { fieldSelector: `metadata.name=${from}`, signal: io.signal });
  // PodUnavailableBudgets guarding the Deployment's pods: its drain steps go only as far as they admit
  const pubRt = await client.discovered('policy.kruise.io', 'podunavailablebudgets').catch(() => undefined);
  const pubSet = pubRt ? watchSet<KubeObject>(client, pubRt, ns, { signal: io.signal }) : undefined;
  const sets = [csSet, depSet, ...(pubSet ? [pubSet] : [])] as Array<LiveSet<KubeObject>>;
  const budgetNotes = new Set<string>();
  /** The drain narrowed to what the budgets admit now; undefined (and a wait line) when they admit none. */
  // The watch may show a PUB older than the Deployment it is compared with: Kruise's pod webhook spends
  // the budget before the drained pod goes, but the PUB's event can arrive after the Deployment's
  // (another stream), and a drain decided on it would spend the budget twice (seen in CI: a budget of
  // 1 drained 2). So every drain is decided again on a fresh read of the PUBs; that read stands in for
  // the watch until the watch next moves, so a wait costs one read per PUB change, not a busy loop.
  let freshPubs: KubeObject[] | undefined;
  pubSet?.onChange(() => {
    freshPubs = undefined;
  });
  const currentPubs = (): KubeObject[] => freshPubs ?? [...(pubSet?.objects.values() ?? [])];
  const drainWithinBudget = (action: Extract<MigrationAction, { kind: 'scale-deployment' }>, dep: KubeObject, pubs: KubeObject[]): Extract<MigrationAction, { kind: 'scale-deployment' }> | undefined => {
    if (pubs.length === 0) return action;
    const labels = ((dep.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template?.metadata?.labels) ?? {};
    // pods an earlier drain still has to delete will spend the budget first (the PUB status may not show it yet)
    const pending = Math.max(0, ((dep.status as { replicas?: number } | undefined)?.replicas ?? 0) - replicasOf(dep));
    const want = action.from - action.to;
    const r = removableNow(pubs, { kind: 'Deployment', name: from, labels }, want + pending, { release: pubRt?.version === 'v1beta1' ? 'master' : 'v1.9' });
    if (!r.limitedBy) return action;
    const count = Math.min(want, Math.max(0, r.count - pending));
    const b = r.limitedBy;
    const why = `PodUnavailableBudget ${b.name} (unavailableAllowed ${b.unavailableAllowed}${pending > 0 ? `, ${pending} pod${pending === 1 ? '' : 's'} of the last step still going` : ''}: ${b.currentAvailable} available, ${b.desiredAvailable} desired)`;
    if (count === 0) {
      lastWait = `${why} to let a pod of deployment/${from} go`;
      io.reporter.progress(`step ${steps.length + (open ? 0 : 1)}: waiting for ${lastWait}`);
      return undefined;
    }
    if (count === want) return action;
    const line = `note: deployment/${from} drained by ${count} of ${want} pods in this step: ${why}`;
    if (!budgetNotes.has(line)) (budgetNotes.add(line), io.reporter.log(line));
    return { ...action, to: action.from - count };
  };
  const expect: { cs?: Expectation; dep?: Expectation } = {};
  const steps: MigrationStep[] = [];
  let open: { step: MigrationStep; started: number } | undefined;
  let stale = 0;
  let lastWait = '';
  const view = (cs: KubeObject, dep: KubeObject): MigrationView => ({
    cloneSet: { replicas: replicasOf(cs, 0), available: availableOf(cs), observed: observed(cs) },
    deployment: { replicas: replicasOf(dep), observed: observed(dep) },
    total: found.total,
    maxSurge: found.surgePods,
  });
  const remaining = (cs: KubeObject, dep: KubeObject): number => {
    try {
      return planMigration({ cloneSetReplicas: replicasOf(cs, 0), deploymentReplicas: replicasOf(dep) }, found.total, found.surgePods).length;
    } catch {
      // Changed by hand into a state no plan leads out of (the waits say what is missing).
      return 0;
    }
  };
  const finishStep = (cs: KubeObject, dep: KubeObject): void => {
    if (!open) return;
    const { step, started } = open;
    open = undefined;
    const n = steps.length + remaining(cs, dep);
    const c = step.cloneSet.from === step.cloneSet.to ? `cloneset/${target} ${step.cloneSet.to}` : `cloneset/${target} ${step.cloneSet.from} -> ${step.cloneSet.to}`;
    const d = step.deployment.from === step.deployment.to ? `deployment/${from} ${step.deployment.to}` : `deployment/${from} ${step.deployment.from} -> ${step.deployment.to}`;
    io.reporter.log(`step ${steps.length}/${n}: ${c} (${availableOf(cs)} available), ${d} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  };
  try {
    {
      await Promise.all([csSet.synced, depSet.synced]);
      const cs = csSet.objects.get(target);
      const dep = depSet.objects.get(from);
      if (cs && dep) {
        const n = remaining(cs, dep);
        const resumed = found.record && found.record.state === 'migrating' && found.cloneSet;
        io.reporter.log(
          `${resumed ? `resuming the migration started at ${found.record!.startedAt}` : 'migrating'}: deployment/${from} (${replicasOf(dep)}) to cloneset/${target} (${replicasOf(cs, 0)}), ${found.total} pods in the end, max surge ${formatMaxSurge(found.surge)} (${found.surgePods} pod${found.surgePods === 1 ? '' : 's'}): ${n} step${n === 1 ? '' : 's'}${n === 0 ? ' left' : ''}`,
        );
      }
    }
    for (;;) {
      let decided: { action: Exclude<MigrationAction, { kind: 'wait' }>; cs: KubeObject; dep: KubeObject; planned?: Extract<MigrationAction, { kind: 'scale-deployment' }> };
      try {
        decided = await waitUntil(
          sets,
          () => {
            const cs = csSet.objects.get(target);
            const dep = depSet.objects.get(from);
            io.onState({ cloneSet: cs, deployment: dep });
            if (!cs) throw failure(`cloneset/${target} was deleted during the migration (deployment/${from} is at ${dep ? replicasOf(dep) : '?'} replicas)`);
            if (!dep || dep.metadata.uid !== uid) throw failure(`deployment/${from} was deleted during the migration (cloneset/${target} is at ${replicasOf(cs, 0)} replicas)`);
            if (!satisfies(cs, expect.cs) || !satisfies(dep, expect.dep)) return undefined;
            const action = nextMigrationAction(view(cs, dep));
            if (action.kind === 'wait') {
              lastWait = waitText(action, target, from);
              io.reporter.progress(`step ${steps.length + (open ? 0 : 1)}: waiting for ${lastWait}`);
              return undefined;
            }
            if (action.kind === 'scale-deployment') {
              const within = drainWithinBudget(action, dep, currentPubs());
              return within ? { action: within, cs, dep, planned: action } : undefined;
            }
            return { action, cs, dep };
          },
          { deadline: io.deadline, signal: io.signal, what: 'the migration' },
        );
      } catch (err) {
        if (err instanceof WaitTimeout) {
          const cs = csSet.objects.get(target);
          const dep = depSet.objects.get(from);
          throw new CliError(
            `timed out during the migration of deployment/${from} to cloneset/${target}${lastWait ? `, waiting for ${lastWait}` : ''}: ${stateLine(target, from, cs, dep)}`,
            ExitCode.TIMEOUT,
            `hint: run "${rerunCommand(ctx, ns, target, from)}" to continue where it stopped`,
          );
        }
        throw err;
      }
      const { cs, dep, planned } = decided;
      let action = decided.action;
      if (planned && pubSet && pubSet.objects.size > 0) {
        const fresh = (await client.list(pubRt!, ns, { signal: io.signal })).items;
        freshPubs = fresh;
        const within = drainWithinBudget(planned, dep, fresh);
        if (!within) continue;
        action = within;
      }
      if (action.kind === 'done') {
        finishStep(cs, dep);
        const finished = await recordDone(client, rts.cloneSetRt, ns, cs, io);
        io.onState({ cloneSet: finished, deployment: dep });
        return { cloneSet: finished, steps };
      }
      try {
        if (action.kind === 'scale-cloneset') {
          finishStep(cs, dep);
          const before = cs.metadata.annotations?.[MIGRATION_ANNOTATION] ?? '';
          const record = parseMigrationRecord(before);
          if (!record) throw failure(`cloneset/${target} lost its ${MIGRATION_ANNOTATION} annotation during the migration; stopped: ${stateLine(target, from, cs, dep)}`);
          const after = serializeMigrationRecord({ ...record, state: 'migrating', replicas: found.total, maxSurge: formatMaxSurge(found.surge) });
          io.onWhere(`at step ${steps.length + 1} (cloneset/${target} raised to ${action.to}, its new pods not yet available)`);
          const written = await io.send(() => client.patch(rts.cloneSetRt, target, 'json', cloneSetScalePatch(action.from, action.to, before, after), ns, { signal: io.signal }));
          expect.cs = { generation: written.metadata.generation ?? 0 };
          const step: MigrationStep = { cloneSet: { from: action.from, to: action.to }, deployment: { from: replicasOf(dep), to: replicasOf(dep) }, peakPods: action.to + replicasOf(dep) };
          steps.push(step);
          open = { step, started: Date.now() };
        } else {
          const written = await io.send(() => client.patch(rts.deploymentRt, from, 'json', deploymentScalePatch(uid, action.from, action.to, target), ns, { signal: io.signal }));
          expect.dep = { generation: written.metadata.generation ?? 0 };
          if (!open) {
            const step: MigrationStep = { cloneSet: { from: replicasOf(cs, 0), to: replicasOf(cs, 0) }, deployment: { from: action.from, to: action.to }, peakPods: replicasOf(cs, 0) + action.from };
            steps.push(step);
            open = { step, started: Date.now() };
          } else open.step.deployment.to = action.to;
          // A step ends with the Deployment as low as the CloneSet's size allows. Lowered less (the
          // surge's pods available one after the other, or a budget admitting fewer), the step goes on:
          // the steps announced are the steps printed.
          if (action.to <= Math.max(0, found.total - replicasOf(cs, 0))) {
            io.onWhere(`after step ${steps.length}`);
            finishStep(cs, { ...written });
          } else {
            io.onWhere(`at step ${steps.length} (deployment/${from} lowered to ${action.to}, the rest waiting for cloneset/${target}'s pods or a budget)`);
            io.reporter.progress(`step ${steps.length}: deployment/${from} ${action.from} -> ${action.to} (${availableOf(cs)} of ${replicasOf(cs, 0)} available)`);
          }
        }
        stale = 0;
      } catch (err) {
        if (!isStaleWrite(err)) throw err;
        // Someone else moved one of them: decide again once the watch shows what changed.
        if (++stale > MAX_STALE_WRITES) throw failure(`cloneset/${target} or deployment/${from} keeps changing under the migration (${stale} writes refused); stopped: ${stateLine(target, from, cs, dep)}`);
        // The refusal says the object moved on from the one decided on; the watch usually shows it
        // within milliseconds. A server may also refuse without a change (409 from a busy store):
        // then decide again after a moment on the same view, sending the same guarded patch.
        const [set, name, seen] = action.kind === 'scale-cloneset' ? [csSet, target, cs] : [depSet, from, dep];
        await waitUntilDeadline(sets, () => set.objects.get(name)?.metadata.resourceVersion !== seen.metadata.resourceVersion || undefined, {
          deadline: Math.min(Date.now() + STALE_SETTLE_MS, io.deadline ?? Number.POSITIVE_INFINITY),
          signal: io.signal,
          what: `${action.kind === 'scale-cloneset' ? 'cloneset' : 'deployment'}/${name} to change`,
        });
      }
    }
  } catch (err) {
    if (err instanceof WaitAborted && io.signal.aborted && !ctx.signal.aborted) throw failure('the migration lost its lease');
    throw err;
  } finally {
    csSet.stop();
    depSet.stop();
    pubSet?.stop();
  }
}

/** The record marked done (test-guarded on the record read; re-read and retried when it moved). */
async function recordDone(client: KubeClient, rt: ResourceType, ns: string, cs: KubeObject, io: LoopIo): Promise<KubeObject> {
  let current = cs;
  const name = cs.metadata.name ?? '';
  const path = MIGRATION_RECORD_POINTER;
  return retryOnConflict(
    async (attempt) => {
      if (attempt > 1) current = await client.get(rt, name, ns, { signal: io.signal });
      const before = current.metadata.annotations?.[MIGRATION_ANNOTATION] ?? '';
      const record = parseMigrationRecord(before);
      if (!record) throw failure(`cloneset/${name} lost its ${MIGRATION_ANNOTATION} annotation during the migration`);
      if (record.state === 'done') return current;
      const after = serializeMigrationRecord({ ...record, state: 'done', finishedAt: new Date().toISOString() });
      return io.send(() => client.patch(rt, name, 'json', [{ op: 'test', path, value: before }, { op: 'replace', path, value: after }], ns, { signal: io.signal }));
    },
    { signal: io.signal },
  );
}

/** --delete-source: once the Deployment has no pods left, delete exactly that Deployment (UID and state preconditions). */
async function deleteSource(
  client: KubeClient,
  rt: ResourceType,
  ns: string,
  from: string,
  uid: string,
  io: { deadline?: number; signal: AbortSignal; send: <T>(w: () => Promise<T>) => Promise<T>; reporter: MigrateReporter },
): Promise<boolean> {
  const set = watchSet<KubeObject>(client, rt, ns, { fieldSelector: `metadata.name=${from}`, signal: io.signal });
  try {
    for (let attempt = 1; ; attempt++) {
      const dep = await waitUntil(
        [set],
        () => {
          const d = set.objects.get(from);
          if (!d || d.metadata.uid !== uid) return { gone: true as const };
          if (replicasOf(d) !== 0) throw failure(`deployment/${from} was scaled to ${replicasOf(d)} again: not deleted`);
          const pods = (d.status as { replicas?: number } | undefined)?.replicas ?? 0;
          if (!observed(d) || pods > 0) {
            io.reporter.progress(`waiting for the last ${pods} pod${pods === 1 ? '' : 's'} of deployment/${from} to go`);
            return undefined;
          }
          return { gone: false as const, d };
        },
        { deadline: io.deadline, signal: io.signal, what: `the pods of deployment/${from} to go` },
      );
      if (dep.gone) return false;
      try {
        await io.send(() => client.delete(rt, from, ns, { propagationPolicy: 'Background', preconditions: { uid, resourceVersion: dep.d.metadata.resourceVersion }, signal: io.signal }));
        return true;
      } catch (err) {
        // Gone, as asked (a resent delete whose first answer was lost finds it so too).
        if (isNotFound(err)) return true;
        // Its status moved since we read it: look again (still at 0, no pods?).
        if (!isStaleWrite(err) || attempt >= MAX_STALE_WRITES) throw err;
      }
    }
  } finally {
    set.stop();
  }
}
