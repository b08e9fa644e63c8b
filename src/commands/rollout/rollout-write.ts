// One write on a Kruise Rollout (approve, jump, pause, resume, undo --fast): read, decide with a pure
// patch builder (src/kruise/rollout/patches.ts), send a resourceVersion-guarded merge patch; on a 409
// read again and write again only if the Rollout is still in the state decided on (patches.ts movedSince:
// two CI jobs approving at once promote one step, the other exits 1 saying where the release is). Nothing to write
// is an error (exit 1) with the builder's reason; invalid input (a step out of range) exit 2; a 403
// says which permission is missing.
import { CliError, ExitCode, failure, usageError } from '../../cli/exit';
import type { KubeClient, KubeObject } from '../../kube/client';
import { retryOnConflict } from '../../kube/conflict';
import { isForbidden } from '../../kube/errors';
import { movedSince, type RolloutIntent, type RolloutPatchResult } from '../../kruise/rollout/patches';
import type { DryRunMode } from '../../printers/output';
import { rolloutOfTarget, rolloutText } from './kruise-rollout';
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
  // The state the first decision was made on: after a conflict the write is made again only while the Rollout is
  // still in it (another approval, or the controller, may have moved it: never promote a step nobody looked at).
  let intent: RolloutIntent | undefined;
  return retryOnConflict(async () => {
    const { rollout, rolloutRt, via } = await rolloutOfTarget(client, t, o.verb);
    if (intent) {
      const moved = movedSince(intent, rollout);
      if (moved) throw failure(moved);
    }
    const decision = o.decide(rollout);
    if (!decision.patch) {
      const message = o.nothing(rollout, decision.reason);
      throw decision.invalid ? usageError(message) : failure(message);
    }
    const name = rollout.metadata.name ?? '';
    intent ??= decision.intent;
    if (o.dryRun === 'client') return { rollout, result: rollout, description: decision.description, via };
    try {
      const result = await client.patch(rolloutRt, name, 'merge', decision.patch, t.namespace, {
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
  });
}

function pastTense(verb: string): string {
  if (verb === 'undo') return 'rolled back';
  if (verb === 'jump') return 'moved';
  return verb.endsWith('e') ? `${verb}d` : `${verb}ed`;
}
