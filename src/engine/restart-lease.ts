// One `restart` at a time per workload: a coordination.k8s.io/v1 Lease, taken and renewed with
// resourceVersion-guarded writes, released at the end and on Ctrl-C, and left to expire when
// the holder dies. Its annotation carries the record of the run (what it did), so that a rerun
// resumes exactly instead of restarting pods twice.
import { hostname, userInfo } from 'node:os';
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { isAlreadyExists, isConflict, isNotFound, KubeApiError } from '../kube/errors';
import { CliError, failure } from '../cli/exit';
import { hashSuffixedName, shortHash } from '../kruise/builders/hash';
import {
  leaseHolder,
  microTime,
  parseRunRecord,
  RESTART_LEASE_SECONDS,
  RESTART_RUN_ANNOTATION,
  serializeRunRecord,
  type LeaseSpecShape,
  type RestartRunRecord,
} from '../kruise/plans/restart-run';
import { WaitAborted, WaitTimeout } from './live';

export const LEASE_RT: ResourceType = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };

export function restartLeaseName(kind: string, name: string): string {
  const base = `kubectl-kruise-restart-${kind.toLowerCase()}-${name}`;
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

export interface RestartLease {
  readonly name: string;
  /** The record of the previous run, as found when the lease was taken. */
  readonly previous: RestartRunRecord | undefined;
  /** Whether another run held it first (the pods may have changed meanwhile). */
  readonly waited: boolean;
  /** Aborted when the lease was lost (taken over after we failed to renew it). */
  readonly lost: AbortSignal;
  /** Stores the record with the next write (now, queued behind any write in flight). */
  save(record: RestartRunRecord): Promise<void>;
  /** Stores the record and gives the lease up; never throws (an unreleased lease expires). */
  release(record?: RestartRunRecord): Promise<void>;
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
  what: string;
}

function heldMessage(what: string, ns: string, leaseName: string, h: { holder: string; renewedMs: number; expiresInMs: number }, now: number): string {
  const ago = Math.max(0, Math.round((now - h.renewedMs) / 1000));
  return `${what} is being restarted by another run (${h.holder}; lease ${ns}/${leaseName}, renewed ${ago}s ago, expires in ${Math.ceil(h.expiresInMs / 1000)}s unless renewed)`;
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
async function steady<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (err) {
      if (attempt >= 8 || !transient(err) || signal?.aborted) throw err;
      await pause(Math.min(1000, 50 * 2 ** attempt), signal);
    }
  }
}

/**
 * Who holds the workload's restart lease now (the message a second run prints) and the record of
 * the last run it carries, read only.
 */
export async function restartLeaseState(
  client: KubeClient,
  ns: string,
  kind: string,
  name: string,
  what: string,
  signal?: AbortSignal,
): Promise<{ holder?: string; previous?: RestartRunRecord }> {
  const leaseName = restartLeaseName(kind, name);
  try {
    const current = await steady(() => client.get<LeaseObject>(LEASE_RT, leaseName, ns, { signal }), signal);
    const now = Date.now();
    const held = leaseHolder(current.spec, now);
    const previous = parseRunRecord(current.metadata.annotations?.[RESTART_RUN_ANNOTATION]);
    return { ...(held ? { holder: heldMessage(what, ns, leaseName, held, now) } : {}), ...(previous ? { previous } : {}) };
  } catch {
    // Absent or unreadable: nothing to add to the caller's own error.
    return {};
  }
}

export async function acquireRestartLease(client: KubeClient, ns: string, kind: string, name: string, opts: AcquireOptions): Promise<RestartLease> {
  const leaseName = restartLeaseName(kind, name);
  const me = holderIdentity();
  let said = false;
  // The lease as last seen and since when (our clock) it has not changed.
  let seen: { rv: string; since: number } | undefined;
  for (;;) {
    if (opts.signal?.aborted) throw new WaitAborted();
    const now = Date.now();
    let current: LeaseObject | undefined;
    try {
      current = await steady(() => client.get<LeaseObject>(LEASE_RT, leaseName, ns, { signal: opts.signal }), opts.signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const spec: LeaseSpecShape = { holderIdentity: me, leaseDurationSeconds: RESTART_LEASE_SECONDS, acquireTime: microTime(now), renewTime: microTime(now) };
    try {
      if (!current) {
        const body: LeaseObject = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: leaseName, namespace: ns }, spec: { ...spec, leaseTransitions: 0 } };
        const created = await steady(() => client.create<LeaseObject>(LEASE_RT, body, ns, { signal: opts.signal }), opts.signal);
        return heldLease(client, ns, created, me, undefined, said);
      }
      const rv = current.metadata.resourceVersion ?? '';
      if (seen?.rv !== rv) seen = { rv, since: now };
      const held = leaseHolder(current.spec, now, seen.since);
      // Ours already: a write of ours whose answer was lost landed after all.
      if (current.spec?.holderIdentity === me) return heldLease(client, ns, current, me, parseRunRecord(current.metadata.annotations?.[RESTART_RUN_ANNOTATION]), said);
      if (!held) {
        const previous = parseRunRecord(current.metadata.annotations?.[RESTART_RUN_ANNOTATION]);
        const taken: LeaseObject = { ...current, spec: { ...spec, leaseTransitions: (current.spec?.leaseTransitions ?? 0) + 1 } };
        const updated = await steady(() => client.update<LeaseObject>(LEASE_RT, taken, ns, { signal: opts.signal }), opts.signal);
        return heldLease(client, ns, updated, me, previous, said);
      }
      if (!opts.wait) throw failure(heldMessage(opts.what, ns, leaseName, held, now), 'hint: --wait-for-lock waits until it is released or expires');
      if (!said) opts.log(`waiting for the lease: ${heldMessage(opts.what, ns, leaseName, held, now)}`);
      said = true;
      if (opts.deadline !== undefined && Date.now() + 1000 > opts.deadline) throw new WaitTimeout(`timed out waiting for the restart lease of ${opts.what} (held by ${held.holder})`);
      await pause(1000, opts.signal);
    } catch (err) {
      // Another run wrote first (created or took it over): look again.
      if (!isAlreadyExists(err) && !isConflict(err)) throw err;
    }
  }
}

function heldLease(client: KubeClient, ns: string, initial: LeaseObject, me: string, previous: RestartRunRecord | undefined, waited: boolean): RestartLease {
  let lease = initial;
  let record: RestartRunRecord | undefined;
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
        if (record) annotations[RESTART_RUN_ANNOTATION] = serializeRunRecord(record);
        const spec: LeaseSpecShape = { ...lease.spec, renewTime: microTime(now) };
        if (holder === undefined) delete spec.holderIdentity;
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
            lostCtl.abort(new Error(`lost the restart lease ${ns}/${lease.metadata.name} to ${fresh.spec?.holderIdentity ?? 'nobody'} (not renewed in time)`));
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
    if (Date.now() - renewedAt > (RESTART_LEASE_SECONDS * 1000) / 2 && !lostCtl.signal.aborted) {
      lostCtl.abort(new Error(`could not renew the restart lease ${ns}/${lease.metadata.name} for ${Math.round((Date.now() - renewedAt) / 1000)}s`));
      return;
    }
    write(me).catch(() => undefined);
  }, (RESTART_LEASE_SECONDS * 1000) / 3);
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
      if (r) record = r;
      await write(undefined).catch(() => undefined);
    },
  };
}
