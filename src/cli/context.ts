// What every command receives: the parsed global flags, the terminal, and lazy
// access to the cluster (the Kubernetes client is only loaded on paths that need it).
import type { GlobalFlags } from './globals';
import type { Terminal } from './terminal';
import type { KubeClient } from '../kube/client';

export interface CommandContext {
  globals: GlobalFlags;
  term: Terminal;
  /** "kubectl kruise" when run as a kubectl plugin, for help and hints. */
  programName: string;
  /** Aborted on the first SIGINT; long waits listen to it. */
  signal: AbortSignal;
  /**
   * Text printed after "interrupted:" if the user presses Ctrl-C now (what was done so far). It may
   * be async (settle requests in flight, release a lease): it is awaited, briefly, before exit.
   */
  setInterruptSummary(summary: () => string | Promise<string>): void;
  /** Connects to the cluster named by the kubeconfig and global flags (loaded on first call). */
  kube(): Promise<KubeClient>;
}
