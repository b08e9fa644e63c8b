// One run at a time per operation and object: a coordination.k8s.io/v1 Lease, taken and renewed
// with resourceVersion-guarded writes, released at the end and on Ctrl-C, and left to expire when
// the holder dies. An annotation of the Lease may carry the record of the run (what it did), so
// that a rerun resumes exactly. `restart` (restart-lease.ts) and `migrate` use it.
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { isAlreadyExists, isConflict, isNotFound, KubeApiError } from '../kube/errors';
import { CliError, failure } from '../cli/exit';
import { hashSuffixedName, shortHash } from '../kruise/builders/hash';
import {
  comparableHolderPid,
  formatHolderProcess,
  leaseHolder,
  microTime,
  LEASE_HOLDER_PROCESS_ANNOTATION,
  LEASE_SECONDS,
  type HolderProcess,
  type LeaseSpecShape,
} from '../kruise/plans/lease';
import { WaitAborted, WaitTimeout } from './live';

export const LEASE_RT: ResourceType = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };

/** `kubectl-kruise-<operation>-<kind>-<name>`, hashed down when longer than a name may be. */
export function operationLeaseName(operation: string, kind: string, name: string): string {
  const base = `kubectl-kruise-${operation}-${kind.toLowerCase()}-${name}`;
  return base.length <= 253 ? base : hashSuffixedName(base.slice(0, 200), shortHash(base));
}

/** "alice@build-7 pid 4242 #k3f9": who to ask, and unique per process. */
export function holderIdentity(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    /* no passwd entry (containers) */
  }
  return `${user}@${hostname()} pid ${process.pid} #${shortHash(`${process.pid}|${Date.now()}|${Math.random()}`, 4)}`;
}

/** This process's boot and pid namespace (Linux /proc); undefined elsewhere, where only expiry frees a lease. */
let local: HolderProcess | null | undefined;
function localProcess(): HolderProcess | undefined {
  if (local === undefined) {
    try {
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      const pidNamespace = readlinkSync('/proc/self/ns/pid');
      local = boot && pidNamespace ? { boot, pidNamespace, pid: process.pid } : null;
    } catch {
      local = null;
    }
  }
  return local ?? undefined;
}

/** Whether a pid of this pid namespace is a live process (EPERM: alive, someone else's). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The lease's holder has exited: it ran here, in our pid namespace, and its pid is gone. */
function holderExited(l: LeaseObject): boolean {
  const here = localProcess();
  if (!here) return false;
  const pid = comparableHolderPid(l.metadata.annotations?.[LEASE_HOLDER_PROCESS_ANNOTATION], l.spec?.holderIdentity ?? '', here);
  return pid !== undefined && pid !== process.pid && !processAlive(pid);
}

/** The annotations of a lease we take: our process instead of the previous holder's. */
function withHolderProcess(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
  const here = localProcess();
  const out = { ...(annotations ?? {}) };
  delete out[LEASE_HOLDER_PROCESS_ANNOTATION];
  if (here) out[LEASE_HOLDER_PROCESS_ANNOTATION] = formatHolderProcess(here);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What a lease is for, in the words of its messages. */
export interface LeasePurpose {
  /** The Lease's name (operationLeaseName). */
  name: string;
  /** "restart", "migrate": in "the restart lease ns/name". */
  operation: string;
  /** The object the operation works on, as users write it ("cloneset/web"). */
  what: string;
  /** "restarted", "migrated": in "cloneset/web is being restarted by another run". */
  doing: string;
  /** The annotation carrying the run's record (raw text); none when the run keeps its record elsewhere. */
  recordAnnotation?: string;
}

export interface OperationLease {
  readonly name: string;
  /** The previous run's record (raw annotation text), as found when the lease was taken. */
  readonly previous: string | undefined;
  /** Whether another run held it first (the objects may have changed meanwhile). */
  readonly waited: boolean;
  /** Aborted when the lease was lost (taken over after we failed to renew it). */
  readonly lost: AbortSignal;
  /** Stores the record with the next write (now, queued behind any write in flight). */
  save(record: string): Promise<void>;
  /** Stores the record and gives the lease up; never throws (an unreleased lease expires). */
  release(record?: string): Promise<void>;
}

interface LeaseObject extends KubeObject {
  spec?: LeaseSpecShape;
}

export interface AcquireOptions {
  wait: boolean;
  deadline?: number;
  signal?: AbortSignal;
  /** One line when starting to wait for another run. */
  log(line: string): void;
}

function heldMessage(purpose: LeasePurpose, ns: string, h: { holder: string; renewedMs: number; expiresInMs: number }, now: number): string {
  const ago = Math.max(0, Math.round((now - h.renewedMs) / 1000));
  return `${purpose.what} is being ${purpose.doing} by another run (${h.holder}; lease ${ns}/${purpose.name}, renewed ${ago}s ago, expires in ${Math.ceil(h.expiresInMs / 1000)}s unless renewed)`;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A server or link hiccup (429, 5xx, reset): the same request is worth sending again. */
function transient(err: unknown): boolean {
  if (err instanceof KubeApiError) return err.status === 429 || err.status >= 500;
  if (err instanceof CliError) return /reset|timed out|unreachable/.test(err.message);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT' || code === 'ECONNREFUSED';
}

/** Sends `request` again through transient failures (a few attempts, short backoff). */
export async function steady<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (err) {
      if (attempt >= 8 || !transient(err) || signal?.aborted) throw err;
      await pause(Math.min(1000, 50 * 2 ** attempt), signal);
    }
  }
}

/** Who holds the lease now (the message a second run prints) and the last run's record, read only. */
export async function leaseState(client: KubeClient, ns: string, purpose: LeasePurpose, signal?: AbortSignal): Promise<{ holder?: string; previous?: string }> {
  try {
    const current = await steady(() => client.get<LeaseObject>(LEASE_RT, purpose.name, ns, { signal }), signal);
    const now = Date.now();
    const held = leaseHolder(current.spec, now);
    const previous = purpose.recordAnnotation ? current.metadata.annotations?.[purpose.recordAnnotation] : undefined;
    return { ...(held ? { holder: heldMessage(purpose, ns, held, now) } : {}), ...(previous !== undefined ? { previous } : {}) };
  } catch {
    // Absent or unreadable: nothing to add to the caller's own error.
    return {};
  }
}

export async function acquireLease(client: KubeClient, ns: string, purpose: LeasePurpose, opts: AcquireOptions): Promise<OperationLease> {
  const me = holderIdentity();
  const recordOf = (l: LeaseObject): string | undefined => (purpose.recordAnnotation ? l.metadata.annotations?.[purpose.recordAnnotation] : undefined);
  let said = false;
  // The lease as last seen and since when (our clock) it has not changed.
  let seen: { rv: string; since: number } | undefined;
  for (;;) {
    if (opts.signal?.aborted) throw new WaitAborted();
    const now = Date.now();
    let current: LeaseObject | undefined;
    try {
      current = await steady(() => client.get<LeaseObject>(LEASE_RT, purpose.name, ns, { signal: opts.signal }), opts.signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const spec: LeaseSpecShape = { holderIdentity: me, leaseDurationSeconds: LEASE_SECONDS, acquireTime: microTime(now), renewTime: microTime(now) };
    try {
      if (!current) {
        const annotations = withHolderProcess(undefined);
        const body: LeaseObject = {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: purpose.name, namespace: ns, ...(annotations ? { annotations } : {}) },
          spec: { ...spec, leaseTransitions: 0 },
        };
        const created = await steady(() => client.create<LeaseObject>(LEASE_RT, body, ns, { signal: opts.signal }), opts.signal);
        return heldLease(client, ns, purpose, created, me, undefined, said);
      }
      const rv = current.metadata.resourceVersion ?? '';
      if (seen?.rv !== rv) seen = { rv, since: now };
      let held = leaseHolder(current.spec, now, seen.since);
      // Ours already: a write of ours whose answer was lost landed after all.
      if (current.spec?.holderIdentity === me) return heldLease(client, ns, purpose, current, me, recordOf(current), said);
      if (held && holderExited(current)) {
        opts.log(`note: the run holding the lease (${held.holder}) has exited; taking the lease over`);
        held = undefined;
      }
      if (!held) {
        const annotations = withHolderProcess(current.metadata.annotations);
        const metadata = { ...current.metadata, annotations };
        if (!annotations) delete metadata.annotations;
        const taken: LeaseObject = { ...current, metadata, spec: { ...spec, leaseTransitions: (current.spec?.leaseTransitions ?? 0) + 1 } };
        const updated = await steady(() => client.update<LeaseObject>(LEASE_RT, taken, ns, { signal: opts.signal }), opts.signal);
        return heldLease(client, ns, purpose, updated, me, recordOf(current), said);
      }
      if (!opts.wait) throw failure(heldMessage(purpose, ns, held, now), 'hint: --wait-for-lock waits until it is released or expires');
      if (!said) opts.log(`waiting for the lease: ${heldMessage(purpose, ns, held, now)}`);
      said = true;
      if (opts.deadline !== undefined && Date.now() + 1000 > opts.deadline) {
        throw new WaitTimeout(`timed out waiting for the ${purpose.operation} lease of ${purpose.what} (held by ${held.holder})`);
      }
      await pause(1000, opts.signal);
    } catch (err) {
      // Another run wrote first (created or took it over): look again.
      if (!isAlreadyExists(err) && !isConflict(err)) throw err;
    }
  }
}

function heldLease(client: KubeClient, ns: string, purpose: LeasePurpose, initial: LeaseObject, me: string, previous: string | undefined, waited: boolean): OperationLease {
  let lease = initial;
  let record: string | undefined;
  let released = false;
  let renewedAt = Date.now();
  const lostCtl = new AbortController();
  // Writes one at a time: each carries the resourceVersion the previous one returned.
  let chain: Promise<void> = Promise.resolve();
  const write = (holder: string | undefined): Promise<void> => {
    const next = chain.then(async () => {
      if (lostCtl.signal.aborted) return;
      for (let attempt = 0; attempt < 5; attempt++) {
        const now = Date.now();
        const annotations = { ...(lease.metadata.annotations ?? {}) };
        if (record !== undefined && purpose.recordAnnotation) annotations[purpose.recordAnnotation] = record;
        const spec: LeaseSpecShape = { ...lease.spec, renewTime: microTime(now) };
        if (holder === undefined) {
          delete spec.holderIdentity;
          delete annotations[LEASE_HOLDER_PROCESS_ANNOTATION];
        }
        const body: LeaseObject = { ...lease, metadata: { ...lease.metadata, annotations }, spec };
        try {
          lease = await steady(() => client.update<LeaseObject>(LEASE_RT, body, ns));
          renewedAt = Date.now();
          return;
        } catch (err) {
          if (!isConflict(err)) throw err;
          // Changed under us: still ours (a retried write landed) or taken over by another run.
          const fresh = await steady(() => client.get<LeaseObject>(LEASE_RT, lease.metadata.name ?? '', ns));
          if (fresh.spec?.holderIdentity !== me) {
            lostCtl.abort(new Error(`lost the ${purpose.operation} lease ${ns}/${lease.metadata.name} to ${fresh.spec?.holderIdentity ?? 'nobody'} (not renewed in time)`));
            return;
          }
          lease = fresh;
        }
      }
    });
    chain = next.catch(() => undefined);
    return next;
  };
  // Renewal: a failed renewal is retried on the next tick; the lease lasts three of them. Past
  // half its duration without a renewal another run may soon take it: stop driving rather than race it.
  const timer = setInterval(() => {
    if (released) return;
    if (Date.now() - renewedAt > (LEASE_SECONDS * 1000) / 2 && !lostCtl.signal.aborted) {
      lostCtl.abort(new Error(`could not renew the ${purpose.operation} lease ${ns}/${lease.metadata.name} for ${Math.round((Date.now() - renewedAt) / 1000)}s`));
      return;
    }
    write(me).catch(() => undefined);
  }, (LEASE_SECONDS * 1000) / 3);
  timer.unref();
  return {
    name: lease.metadata.name ?? '',
    previous,
    waited,
    lost: lostCtl.signal,
    save(r) {
      record = r;
      return write(released ? undefined : me).catch(() => undefined);
    },
    async release(r) {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (r !== undefined) record = r;
      await write(undefined).catch(() => undefined);
    },
  };
}
