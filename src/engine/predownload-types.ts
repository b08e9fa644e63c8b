// What the pre-download dispatcher (predownload.ts) and its two executors (predownload-kruise.ts: ImagePullJobs;
// predownload-client.ts: short-lived pods) share, in a module of their own so the executors do not import the
// dispatcher that loads them.
import type { KubeObject } from '../kube/client';
import type { PullJobOptions, PullTarget } from '../kruise/builders/imagepulljob';
import type { PullJobReport } from '../kruise/plans/pull-progress';
import type { DryRunMode } from '../printers/output';
import type { Via } from './restart-types';

export interface PredownloadOptions extends PullJobOptions {
  parallelism: number;
  wait: boolean;
  /** Overall wait (exit 3); 0 = none. */
  timeoutMs: number;
  via: Via;
  dryRun: DryRunMode;
}

/** What to pull where, and a base for job names. */
export interface PredownloadRequest {
  images: string[];
  target: PullTarget;
  /** Nodes known up front (workload plan / --nodes), for the client engine and messages. */
  nodes?: string[];
  nameBase: string;
  namespace: string;
  /** e.g. "cloneset/web" for messages. */
  what: string;
}

export interface PredownloadReporter {
  /** Progress counts: spinner text on a TTY, a line per change otherwise. */
  progress(text: string): void;
  log(line: string): void;
}

/** One row of the report (kruise/plans/pull-progress.ts). */
export type JobReport = PullJobReport;

export interface PredownloadResult {
  via: 'kruise' | 'client';
  objects: KubeObject[];
  jobs: JobReport[];
  outcome: 'succeeded' | 'failed' | 'created' | 'dry-run' | 'timeout' | 'nothing';
  message?: string;
}

