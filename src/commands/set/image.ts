// `set image`: change container images with a JSON patch of the image fields only, so an
// InPlaceOnly CloneSet accepts it and pods are updated in place.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { parseImageAssignments, planImageChange } from '../../kruise/containers';
import { parseImageReference } from '../../kruise/rules/imagepull';
import { parseCommon, type CommonSetOptions } from './options';
import { runEdit } from './run-edit';
import { splitEditArgs } from './targets';

export async function run(ctx: CommandContext, args: string[], opts: CommonSetOptions, _cmd: Command): Promise<number> {
  const { resources, edits } = splitEditArgs(args, (a) => a.includes('='), 'CONTAINER=IMAGE');
  if (edits.length === 0) {
    const bare = resources.find((a) => !a.includes('/'));
    throw usageError(
      bare !== undefined && resources.length > 1
        ? `invalid image assignment "${resources[resources.length - 1]}": expected CONTAINER=IMAGE`
        : 'set image needs at least one CONTAINER=IMAGE argument, e.g. app=nginx:1.27',
    );
  }
  const parsed = parseImageAssignments(edits);
  if (!parsed.ok) throw usageError(parsed.message);
  for (const pair of parsed.pairs) {
    const image = parseImageReference(pair.image);
    if (!image.ok) throw usageError(`invalid image reference "${pair.image}" for container "${pair.container}": ${image.reason}`);
  }
  const common = parseCommon('set image', resources, opts);
  return runEdit(ctx, common, {
    command: 'set image',
    updatedVerb: 'image updated',
    unchangedVerb: 'image unchanged',
    plan: (obj) => planImageChange(obj, parsed.pairs),
  });
}
