// One write on a Kruise Rollout (approve, jump, pause, resume, undo --fast): read, decide with a pure
// patch builder (src/kruise/rollout/patches.ts), send its JSON patch, conditional on the fields decided on;
// when the server refuses it (the Rollout changed) read again and write again only while the Rollout is
// still in the state decided on (kube/conflict.ts decideAndWrite, patches.ts movedSince: two CI jobs
// approving at once promote one step, the other exits 1 saying where the release is). Nothing to write
// is an error (exit 1) with the builder's reason; invalid input (a step out of range) exit 2; a 403
// says which permission is missing.
import { CliError, ExitCode, failure, usageError } from '../../cli/exit';
import type { KubeClient, KubeObject } from '../../kube/client';
import { decideAndWrite } from '../../kube/conflict';
import { isForbidden } from '../../kube/errors';
import { movedSince, type RolloutPatchResult } from '../../kruise/rollout/patches';
import type { DryRunMode } from '../../printers/output';
import { rolloutOfTarget, rolloutText, type RolloutOfTarget } from './kruise-rollout';
import type { ResolvedTarget } from './targets';

export interface RolloutWriteResult {
  rollout: KubeObject;
  /** The patched object (the read one with --dry-run=client). */
  result: KubeObject;
  description: string;
  /** "cloneset/web" when the user named the workload. */
  via?: string;
}

/** `rollout "demo" is not waiting for approval (step 2/3 is StepUpgrade)` → `step 2/3 is StepUpgrade`. */
export function reasonDetail(reason: string): string {
  const m = /\(([^()]*)\)$/.exec(reason);
  return m ? m[1]! : reason.replace(/^rollout "[^"]*":? /, '');
}

/** A decision on one read of the Rollout: the write to make. */
type Decided = RolloutOfTarget & { decision: Extract<RolloutPatchResult, { patch: unknown[] }> };

export async function writeRollout(
  client: KubeClient,
  t: ResolvedTarget,
  o: {
    verb: string;
    dryRun: DryRunMode;
    /** The patch, or why there is none, from a fresh read. */
    decide: (rollout: KubeObject) => RolloutPatchResult;
    /** The error line when there is nothing to write. */
    nothing: (rollout: KubeObject, reason: string) => string;
    /** The permission a 403 lacks, e.g. "patch" on "rollouts/status". */
    permission: (subresource: 'status' | 'main') => string;
  },
): Promise<RolloutWriteResult> {
  return decideAndWrite<RolloutOfTarget, Decided, RolloutWriteResult>({
    read: () => rolloutOfTarget(client, t, o.verb),
    decide: ({ rollout, rolloutRt, via }) => {
      const decision = o.decide(rollout);
      if (!decision.patch) {
        const message = o.nothing(rollout, decision.reason);
        throw decision.invalid ? usageError(message) : failure(message);
      }
      return { rollout, rolloutRt, via, decision };
    },
    // The first decision is the state the user asked about: never act on whatever the Rollout became since.
    moved: (first, fresh) => movedSince(first.decision, fresh.rollout),
    write: async ({ rollout, rolloutRt, via, decision }) => {
      if (o.dryRun === 'client') return { rollout, result: rollout, description: decision.description, via };
      try {
        const result = await client.patch(rolloutRt, rollout.metadata.name ?? '', 'json', decision.patch, t.namespace, {
          subresource: decision.subresource === 'status' ? 'status' : undefined,
          dryRun: o.dryRun === 'server',
        });
        return { rollout, result, description: decision.description, via };
      } catch (err) {
        if (isForbidden(err)) {
          throw new CliError(`${rolloutText(rollout)}: not ${pastTense(o.verb)}: ${err.message}`, ExitCode.FAILED, `hint: this needs ${o.permission(decision.subresource)} (group rollouts.kruise.io) in namespace "${t.namespace}"`);
        }
        throw err;
      }
    },
  });
}

function pastTense(verb: string): string {
  if (verb === 'undo') return 'rolled back';
  if (verb === 'jump') return 'moved';
  return verb.endsWith('e') ? `${verb}d` : `${verb}ed`;
}
