// Placeholder until the Helm release reader lands (same commit series); not registered as a flag yet.
import type { KubeClient } from '../../kube/client';
import { usageError } from '../../cli/exit';
import type { TargetRefs } from './targets';

export async function helmReleaseTargets(_client: KubeClient, name: string, _signal: AbortSignal): Promise<{ refs: TargetRefs; subject: string }> {
  throw usageError(`--helm-release ${name}: not supported`);
}
