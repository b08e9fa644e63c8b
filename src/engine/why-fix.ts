// `why --fix`: restores what a Kruise Rollout release left on a workload (kruise/why/leftovers.ts) with one
// JSON patch conditional on what was read (its `test` ops), sent as a dry run first, then for real. When the
// workload changed between the read and the write (a `test` failed: 422; or 409), it reads again and decides
// again on what it reads (kube/conflict.ts decideAndWrite), a few times: what was restored meanwhile is not
// restored twice, what changed is not overwritten. A release that is live, or started meanwhile, is refused (exit 1).
import { failure } from '../cli/exit';
import { decideAndWrite, type ConflictRetryOptions } from '../kube/conflict';
import type { JsonPatchOp } from '../kruise/containers';
import type { KubeObject } from '../kruise/types';
import { leftoverPatch, releaseInProgress, type LeftoverPatch } from '../kruise/why/leftovers';

type Obj = Record<string, unknown>;

export interface LeftoverIo {
  /** The workload and the Rollout bound to it (if any), read afresh. */
  read(): Promise<{ workload: KubeObject; rollout?: Obj }>;
  patch(ops: JsonPatchOp[], dryRun: boolean): Promise<unknown>;
}

export interface RestoreResult {
  /** The write made; undefined when nothing was left (or it was restored meanwhile). */
  restored?: LeftoverPatch;
  /** Reads made: more than 1 when the workload changed under a write. */
  reads: number;
}

export async function restoreLeftovers(io: LeftoverIo, ref: string, retry?: ConflictRetryOptions): Promise<RestoreResult> {
  let reads = 0;
  return decideAndWrite<{ workload: KubeObject; rollout?: Obj }, LeftoverPatch | null, RestoreResult>({
    read: async () => {
      reads++;
      return io.read();
    },
    decide: ({ workload, rollout }) => {
      if (releaseInProgress(rollout)) throw failure(`${ref}: a Kruise Rollout release is in progress (rollout/${String((rollout?.metadata as Obj | undefined)?.name)}); --fix refused`);
      return leftoverPatch(workload, rollout) ?? null;
    },
    // Each read is decided on afresh: the leftovers are whatever is still left then (decide refuses a live release).
    moved: () => undefined,
    write: async (fix) => {
      if (!fix) return { reads };
      await io.patch(fix.ops, true);
      await io.patch(fix.ops, false);
      return { restored: fix, reads };
    },
    retry,
  });
}
