// --field-manager and --gitops, the flags every mutating command shares: parsing (help: gitops-help.ts).
import { usageError } from '../cli/exit';
import { GITOPS_MODES, type GitOpsMode } from '../kruise/gitops/owners';
import type { WritePolicy } from '../engine/gitops-writes';
import { fieldManagerFlag } from './restart/flags';

export function gitopsModeFlag(value: string | undefined): GitOpsMode {
  const mode = value ?? 'warn';
  if (!(GITOPS_MODES as readonly string[]).includes(mode)) throw usageError(`--gitops must be one of ${GITOPS_MODES.join(', ')}, not "${mode}"`);
  return mode as GitOpsMode;
}

/** The write policy of a command's flags (usage errors before any request). */
export function writePolicy(flags: { fieldManager?: string; gitops?: string }, defaultManager: string, warn: (line: string) => void): WritePolicy {
  return { fieldManager: fieldManagerFlag(flags.fieldManager, defaultManager), gitops: gitopsModeFlag(flags.gitops), warn };
}
