// What the restart dispatcher (restart.ts) and its two executors (restart-kruise.ts: ContainerRecreateRequests;
// restart-client.ts: pod recreation) share, in a module of their own so the executors do not import the
// dispatcher that loads them: the options, the reporter, the result, and the wording of a batch's pods.
import type { KubeObject } from '../kube/client';
import type { CrrStrategy } from '../kruise/builders/crr';
import type { DryRunMode } from '../printers/output';

export type Via = 'auto' | 'kruise' | 'client';

export interface RestartOptions {
  /** Containers named with -c; empty = every container of each pod. */
  containers: string[];
  /** "1", "3" or "25%" of the workload's pods (rounded down, at least 1). */
  maxUnavailable: string;
  strategy: CrrStrategy;
  activeDeadlineSeconds?: number;
  /** Undefined: the CLI's default (DEFAULT_CRR_TTL_SECONDS); null: no TTL, the CRRs are kept. */
  ttlSecondsAfterFinished?: number | null;
  /** false: return once the first batch (all CRRs when one batch) is created. */
  wait: boolean;
  /** 0 = no limit. */
  timeoutMs: number;
  via: Via;
  dryRun: DryRunMode;
  /** Requests in flight at once (default 16). */
  concurrency?: number;
  /** Wait for another run's lease on the workload instead of exiting 1. */
  waitForLock?: boolean;
  /** This run is one namespace of a run over several (a SidecarSet's pods): recorded with it (restart-run.ts). */
  parent?: { id: string; namespaces: string[] };
}

/** How the engine talks to the user; the command decides TTY spinner vs plain lines. */
export interface RestartReporter {
  /** Transient status (spinner text on a TTY; ignored in logs). */
  progress(text: string): void;
  /** A permanent line (one per batch, notes). */
  log(line: string): void;
}

export interface RestartRow {
  pod: string;
  containers: string[];
  /** Succeeded, Failed, Recreating, Pending, Replaced, Created... */
  phase: string;
  /** restartCount per container before and after (kruise executor). */
  restartsBeforeByContainer?: Record<string, number>;
  restartsAfterByContainer?: Record<string, number>;
  durationMs?: number;
  message?: string;
  /** The CRR's name (kruise executor). */
  crr?: string;
}

export type RestartOutcome = 'succeeded' | 'failed' | 'created' | 'dry-run' | 'timeout';

export interface RestartResult {
  via: 'kruise' | 'client';
  runId?: string;
  rows: RestartRow[];
  /** CRRs built or created, for -o yaml|json|name. */
  objects: KubeObject[];
  batches: number;
  outcome: RestartOutcome;
  message?: string;
}

/** "a, b, c" or "a, b, c, d, e and 95 more" (batch lines stay one readable line). */
export function podList(names: ReadonlyArray<string | undefined>, max = 5): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown || 'none new';
}
