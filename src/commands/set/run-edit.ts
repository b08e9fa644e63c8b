// The last step every `set` verb takes: its edit plus the common flags, run on the --local files
// or against the cluster. The two runners are imported lazily so `--local` never loads cluster code.
import type { CommandContext } from '../../cli/context';
import type { EditRequest } from './edit';
import type { CommonSettings } from './options';

export async function runEdit(ctx: CommandContext, common: CommonSettings, edit: Pick<EditRequest, 'command' | 'updatedVerb' | 'unchangedVerb' | 'plan' | 'target'>): Promise<number> {
  const req: EditRequest = { ...edit, dryRun: common.dryRun, output: common.output, fieldManager: common.fieldManager, gitops: common.gitops };
  if (common.preview) return (await import('./preview')).runEditPreview(ctx, common, req, common.preview);
  if (common.selection.local) return (await import('./local')).runLocalEdit(ctx, common.selection.files, { ...req, local: true });
  return (await import('./cluster')).runClusterEdit(ctx, common.selection, req);
}
