// What a user who changes a workload a Kruise Rollout releases should know next (stderr lines): the
// change goes out in the Rollout's steps, not at once; pausing the workload itself stalls the step.
import type { ResourceType } from '../kube/client';

/** "cloneset/web", "asts/db", "deployment/api": how the user most likely typed it. */
export function workloadRefText(rt: Pick<ResourceType, 'group' | 'kind'>, name: string): string {
  if (rt.group === 'apps.kruise.io' && rt.kind === 'StatefulSet') return `asts/${name}`;
  if (rt.group === 'apps.kruise.io' && rt.kind === 'DaemonSet') return `ads/${name}`;
  return `${rt.kind.toLowerCase()}/${name}`;
}

export type ReleaseHintFor = 'change' | 'pause' | 'resume';

/** The hint for `workload` (workloadRefText) held by `rollout` ('' when unnamed), after a change, pause or resume. */
export function releaseHint(program: string, workload: string, rollout: string, what: ReleaseHintFor): string {
  const ro = rollout ? `rollout/${rollout}` : 'its Kruise Rollout';
  const roArg = rollout ? `rollout/${rollout}` : workload;
  switch (what) {
    case 'change':
      return `${workload} is released by ${ro}: the change goes out in its steps; follow it with '${program} rollout status ${workload}', approve a paused step with '${program} rollout approve ${roArg}'`;
    case 'pause':
      return `warning: ${workload} is being released by ${ro}, which drives its partition: pausing the workload stalls the release's step; '${program} rollout pause ${roArg}' pauses the release itself`;
    case 'resume':
      return `${workload} is being released by ${ro}: a paused release resumes with '${program} rollout resume ${roArg}'`;
  }
}
