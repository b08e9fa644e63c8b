// The help of --field-manager and --gitops (spec modules import only this; parsing is gitops-flags.ts).
import type { KruiseCommand } from '../cli/help';

export const GITOPS_HELP =
  'a field the write changes that Argo CD, Flux or a server-side apply manager owns (metadata.managedFields) and will set back: warn (say who and what it will do), refuse (exit 1, nothing written) or ignore';

/** Adds --field-manager (default: kubectl's name for the verb, or kubectl-kruise-<verb>) and --gitops. */
export function writeFlags(cmd: KruiseCommand, defaultManager: string, opts: { fieldManager?: boolean } = {}): KruiseCommand {
  if (opts.fieldManager !== false) cmd.option('--field-manager <name>', 'field manager recorded for the change (metadata.managedFields)', defaultManager);
  return cmd.option('--gitops <mode>', GITOPS_HELP, 'warn');
}

