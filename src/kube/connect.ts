// Placeholder replaced by the kube layer implementation.
import type { CommandContext } from '../cli/context';
import type { KubeClient } from './client';
import { failure } from '../cli/exit';

export async function connect(_ctx: CommandContext): Promise<KubeClient> {
  throw failure('cluster access is not available yet');
}
