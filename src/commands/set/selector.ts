// `set selector`: as kubectl, only a Service's spec.selector (key=value requirements), replaced as a
// whole by a guarded JSON patch; other kinds are refused before anything is sent, naming the rule
// that fixes their selector (Kruise's webhooks, apps/v1).
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { failure, usageError } from '../../cli/exit';
import { formatExpressions, parseSelectorExpression, planServiceSelectorChange } from '../../kruise/object-edits';
import type { JsonPatchOp } from '../../kruise/containers';
import { objectName } from './edit';
import { parseCommon, type CommonSetOptions } from './options';
import { runEdit } from './run-edit';

interface SelectorOptions extends CommonSetOptions {
  resourceVersion?: string;
}

export async function run(ctx: CommandContext, args: string[], opts: SelectorOptions, _cmd: Command): Promise<number> {
  if (args.length === 0) throw usageError('one selector is required', 'hint: set selector (-f FILE | TYPE NAME | TYPE/NAME) EXPRESSIONS, e.g. app=web');
  const text = args[args.length - 1]!;
  const parsed = parseSelectorExpression(text);
  if (!parsed.ok) throw usageError(parsed.message);
  const rv = opts.resourceVersion;
  if (rv !== undefined && !/^\S+$/.test(rv)) throw usageError(`invalid --resource-version "${rv}"`);
  // The objects first: a kind other than Service is the more useful error.
  const common = parseCommon('set selector', args.slice(0, -1), opts);
  if (parsed.value.matchExpressions.length > 0) {
    // Only Services take a selector, and theirs is a plain map (kubectl: updateSelectorForObject).
    throw usageError(`match expression ${formatExpressions(parsed.value.matchExpressions)} not supported on this object: a Service's selector takes only key=value requirements`);
  }
  const sel = common.selection;
  if (rv !== undefined && (sel.all || sel.refs.length > 1 || sel.selector !== undefined)) throw usageError('--resource-version applies to a single object');
  const local = sel.local;
  return runEdit(ctx, common, {
    command: 'set selector',
    updatedVerb: 'selector updated',
    unchangedVerb: 'selector unchanged',
    target: 'object',
    plan: (obj) => {
      const ops = planServiceSelectorChange(obj, parsed.value.matchLabels);
      if (rv === undefined) return { ok: true, ops, changes: [] };
      if (local) return { ok: true, ops: ops.length ? [...ops, { op: 'add', path: '/metadata/resourceVersion', value: rv }] : [], changes: [] };
      // kubectl sends the given resourceVersion so that the server refuses a newer object: refused here
      // already when the object read is newer, and the patch tests it in case it changes meanwhile.
      if (obj.metadata.resourceVersion !== rv) {
        throw failure(`${objectName(obj)} has resourceVersion ${obj.metadata.resourceVersion ?? '(none)'}, not ${rv} (--resource-version): the object has been modified; nothing was changed`);
      }
      const guard: JsonPatchOp = { op: 'test', path: '/metadata/resourceVersion', value: rv };
      return { ok: true, ops: ops.length ? [guard, ...ops] : [], changes: [] };
    },
  });
}
