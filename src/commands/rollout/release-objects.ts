// Which objects of a release (a rendered manifest, a Helm release's manifest) a gate follows: every
// object with a rollout (a workload kind, a job kind, a Kruise Rollout, a SidecarSet); the others
// (Services, ConfigMaps, RBAC...) are counted by kind and said in the summary. A release with nothing
// to follow is an error: a gate must not pass on nothing.
import { failure } from '../../cli/exit';
import { apiGroupOf } from '../../kruise/api-version';
import { hasProgressKind } from '../../kruise/progress-kinds';
import type { TargetRefs } from './targets';

function followed(group: string, kind: string): boolean {
  if (hasProgressKind(group, kind)) return true;
  if (group === 'rollouts.kruise.io' && kind === 'Rollout') return true;
  return group === 'apps.kruise.io' && kind === 'SidecarSet';
}

export function releaseObjects(refs: TargetRefs, subject: string): { refs: TargetRefs; skipped: Record<string, number> } {
  const skipped: Record<string, number> = {};
  const specs = refs.specs.filter((spec) => {
    if (spec.kind !== 'object') return true;
    const kind = spec.object.kind ?? '';
    if (followed(apiGroupOf(spec.object.apiVersion), kind)) return true;
    skipped[kind] = (skipped[kind] ?? 0) + 1;
    return false;
  });
  if (specs.length === 0) {
    const kinds = Object.entries(skipped).map(([k, n]) => (n > 1 ? `${k} x${n}` : k)).join(', ');
    throw failure(`${subject} holds no object with a rollout to wait for (only ${kinds})`);
  }
  return { refs: { ...refs, specs }, skipped };
}
