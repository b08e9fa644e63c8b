// `set serviceaccount` (alias `sa`): spec.serviceAccountName of the pod template with a guarded
// JSON patch. Not an in-place field for Kruise: warns for InPlaceIfPossible, refuses InPlaceOnly.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { failure, usageError } from '../../cli/exit';
import { planServiceAccountChange, serviceAccountNameProblem } from '../../kruise/object-edits';
import { objectName } from './edit';
import { parseCommon, type CommonSetOptions } from './options';
import { runEdit } from './run-edit';

export async function run(ctx: CommandContext, args: string[], opts: CommonSetOptions, _cmd: Command): Promise<number> {
  if (args.length === 0) throw usageError('serviceaccount is required', 'hint: set serviceaccount (-f FILE | TYPE NAME | TYPE/NAME) SERVICE_ACCOUNT');
  const serviceAccount = args[args.length - 1]!;
  const problem = serviceAccountNameProblem(serviceAccount);
  if (problem) throw usageError(`invalid service account name "${serviceAccount.length > 80 ? `${serviceAccount.slice(0, 80)}...` : serviceAccount}": ${problem}`);
  const common = parseCommon('set serviceaccount', args.slice(0, -1), opts);
  const local = common.selection.local;
  return runEdit(ctx, common, {
    command: 'set serviceaccount',
    updatedVerb: 'serviceaccount updated',
    unchangedVerb: 'serviceaccount unchanged',
    plan: (obj) => {
      const plan = planServiceAccountChange(obj, serviceAccount);
      // An existing pod keeps its service account (the API server allows pod updates only to images,
      // activeDeadlineSeconds, tolerations and terminationGracePeriodSeconds); a manifest may still be created.
      if (obj.kind === 'Pod' && !local && plan.ok && plan.ops.length > 0) {
        throw failure(`${objectName(obj)}: the service account of an existing pod cannot change (pod updates may not change spec.serviceAccountName); nothing was changed`, 'hint: set it on the workload that owns the pod, or recreate the pod');
      }
      return plan;
    },
  });
}
