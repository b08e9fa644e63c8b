// `set resources`: change requests/limits with per-quantity JSON patch ops. Resources are
// not updated in place by Kruise: warns for in-place policies, refuses InPlaceOnly.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { parseResourceList, planResourcesChange, type ResourceEdits } from '../../kruise/containers';
import { parseCommon, parseContainerSelector, type CommonSetOptions } from './options';
import { runEdit } from './run-edit';

interface ResourcesOptions extends CommonSetOptions {
  containers?: string;
  limits?: string;
  requests?: string;
}

export async function run(ctx: CommandContext, args: string[], opts: ResourcesOptions, _cmd: Command): Promise<number> {
  const edits: ResourceEdits = {};
  for (const [flag, value] of [['--limits', opts.limits], ['--requests', opts.requests]] as const) {
    if (value === undefined) continue;
    const parsed = parseResourceList(value, flag);
    if (!parsed.ok) throw usageError(parsed.message);
    edits[flag === '--limits' ? 'limits' : 'requests'] = parsed.list;
  }
  if (!edits.limits && !edits.requests) throw usageError('set resources needs --limits and/or --requests, e.g. --limits=cpu=500m,memory=512Mi');
  const selector = parseContainerSelector(opts.containers);
  const common = parseCommon('set resources', args, opts);
  return runEdit(ctx, common, {
    command: 'set resources',
    updatedVerb: 'resource requirements updated',
    unchangedVerb: 'resource requirements unchanged',
    plan: (obj) => planResourcesChange(obj, selector, edits),
  });
}
