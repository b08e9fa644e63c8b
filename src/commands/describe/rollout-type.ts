// Which type words name a Kruise Rollout (rollouts.kruise.io), without loading the cluster layer:
// the dispatchers of `describe` and `get` ask before choosing an implementation.
const ROLLOUT_TYPE_RE = /^rollouts?(?:\.v1(?:alpha1|beta1))?\.rollouts\.kruise\.io$|^rollouts?$/;

export function isRolloutType(type: string): boolean {
  return ROLLOUT_TYPE_RE.test(type.toLowerCase());
}

export interface DescribeRolloutFlags {
  watch?: boolean;
  output?: string;
}
