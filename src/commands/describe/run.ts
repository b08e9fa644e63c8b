// `describe TYPE [NAME]`: PersistentPodStates (./pps) or Kruise Rollouts (./rollout), by the type word.
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { isRolloutType, type DescribeRolloutFlags } from './rollout-type';

export async function run(ctx: CommandContext, args: string[], flags: DescribeRolloutFlags): Promise<number> {
  const type = (args[0] ?? '').split('/')[0] ?? '';
  if (isRolloutType(type)) return (await import('./rollout')).run(ctx, args, flags);
  if (flags.watch || flags.output !== undefined) throw usageError('-w and -o apply to describe rollout only');
  return (await import('./pps')).run(ctx, args);
}
