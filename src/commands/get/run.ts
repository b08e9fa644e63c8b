// `get TYPE [NAME]`: PersistentPodStates (./pps), Kruise Rollouts (./rollouts) or every Kruise kind (./all), by the type word.
import type { CommandContext } from '../../cli/context';
import { isRolloutType } from '../describe/rollout-type';

export async function run(ctx: CommandContext, args: string[], flags: { output?: string; allNamespaces?: boolean; selector?: string }): Promise<number> {
  const type = (args[0] ?? '').split('/')[0] ?? '';
  if (type === 'all') return (await import('./all')).run(ctx, args, flags);
  if (isRolloutType(type)) return (await import('./rollouts')).run(ctx, args, flags);
  return (await import('./pps')).run(ctx, args, flags);
}
