// `set subject`: appends users, groups and service accounts a RoleBinding or ClusterRoleBinding
// does not hold yet (kubectl's addSubjects), with a JSON patch guarded by a test of the old list.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import { usageError } from '../../cli/exit';
import { checkSubjectFlags, hasNamespacelessServiceAccount, planSubjectChange, subjectsFromFlags, type SubjectFlags } from '../../kruise/object-edits';
import { lookupType } from '../../kube/aliases';
import { objectName } from './edit';
import { parseCommon, type CommonSetOptions } from './options';
import { runEdit } from './run-edit';

interface SubjectOptions extends CommonSetOptions {
  user?: string[];
  group?: string[];
  serviceaccount?: string[];
}

const NAMESPACELESS = 'serviceaccount must be <namespace>:<name>, namespace must be specified';

export async function run(ctx: CommandContext, args: string[], opts: SubjectOptions, _cmd: Command): Promise<number> {
  const flags: SubjectFlags = { users: opts.user ?? [], groups: opts.group ?? [], serviceAccounts: opts.serviceaccount ?? [] };
  const common = parseCommon('set subject', args, opts);
  if (opts.all && opts.selector !== undefined) throw usageError('cannot set --all and --selector at the same time');
  const problem = checkSubjectFlags(flags);
  if (problem) throw usageError(problem);
  // A ClusterRoleBinding has no namespace to default to: known from the type, before any request.
  const clusterWide = common.selection.refs.some((r) => lookupType(r.type)?.known.kind === 'ClusterRoleBinding');
  if (clusterWide && hasNamespacelessServiceAccount(flags)) throw usageError(NAMESPACELESS);
  // kubectl fills an empty namespace with the current one; offline that is -n, else the binding's own.
  const current = common.selection.local ? ctx.globals.namespace : (await ctx.kube()).namespace;
  return runEdit(ctx, common, {
    command: 'set subject',
    updatedVerb: 'subjects updated',
    unchangedVerb: 'subjects unchanged',
    target: 'object',
    plan: (obj) => {
      if (obj.kind === 'ClusterRoleBinding' && hasNamespacelessServiceAccount(flags)) throw usageError(`${objectName(obj)}: ${NAMESPACELESS}`);
      const subjects = subjectsFromFlags(flags, current ?? obj.metadata.namespace ?? 'default');
      return { ok: true, ops: planSubjectChange(obj, subjects), changes: [] };
    },
  });
}
