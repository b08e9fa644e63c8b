// The line `rollout jump` and `rollout undo --fast` print about where the release lands: the served
// release's rule (src/kruise/rollout/step-jump.ts) applied to the Rollout as read before the write and
// its workload's replicas (one GET; a workload we cannot read leaves percentage steps unresolved).
import type { KubeClient, KubeObject } from '../../kube/client';
import { readRollout, workloadReplicas } from '../../kruise/rollout/read';
import { stepJumpLandingText } from '../../kruise/rollout/step-jump';
import { rolloutText, workloadTypeOf } from './kruise-rollout';

export async function jumpLandingNote(client: KubeClient, rollout: KubeObject, toStep: number, namespace: string): Promise<string | undefined> {
  const rt = workloadTypeOf(rollout);
  const name = readRollout(rollout).workloadRef?.name;
  let replicas: number | undefined;
  if (rt && name) {
    try {
      replicas = workloadReplicas(await client.get(rt, name, namespace));
    } catch {
      // not readable: say what the Rollout alone tells
    }
  }
  const text = stepJumpLandingText(rollout, toStep, replicas);
  return text && `${rolloutText(rollout)}: ${text}`;
}
