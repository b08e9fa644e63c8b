// Which objects a `set` verb edits, parsed before any request (exit 2 on bad input):
// `TYPE/NAME...`, `TYPE NAME...`, `TYPE -l SELECTOR`, `TYPE --all`, or `-f FILE...`.
// No cluster access here, so the --local path can use it too.
import { usageError } from '../../cli/exit';
import { lookupType } from '../../kube/aliases';
import { validateName, validateSelector } from '../../kube/targets';

/** Kinds with a pod spec that `set` can edit, by API group and kind. */
export const EDITABLE_KINDS: ReadonlySet<string> = new Set([
  '/Pod',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'batch/Job',
  'batch/CronJob',
  'apps.kruise.io/CloneSet',
  'apps.kruise.io/StatefulSet',
  'apps.kruise.io/DaemonSet',
  'apps.kruise.io/SidecarSet',
  'apps.kruise.io/UnitedDeployment',
]);

export function editableProblem(group: string, kind: string, resource: string, verb: string): string | undefined {
  if (EDITABLE_KINDS.has(`${group}/${kind}`)) return undefined;
  return `${verb} is not supported for ${resource}${group ? `.${group}` : ''}: it needs a workload with a pod template, a pod, a job, a cron job or a SidecarSet`;
}

/** Rejects, before any request, a type this CLI does not know or that has no containers. */
function checkType(type: string, verb: string): void {
  const ref = lookupType(type);
  if (!ref) throw usageError(`unknown resource type "${type}"`, `hint: ${verb} works on clonesets, asts, ads, sidecarsets, deployments, statefulsets, daemonsets, replicasets, pods, jobs and cronjobs`);
  const problem = editableProblem(ref.known.group, ref.known.kind, ref.known.resource, verb);
  if (problem) throw usageError(problem);
}

export interface SetTargetRef {
  type: string;
  /** Undefined with -l / --all (every matching object). */
  name?: string;
}

export interface SetSelection {
  refs: SetTargetRef[];
  files: string[];
  selector?: string;
  all: boolean;
  local: boolean;
}

export interface SelectionFlags {
  filename?: string[];
  selector?: string;
  all?: boolean;
  local?: boolean;
}

/**
 * Splits positional arguments into resource arguments and edit arguments: the edits
 * start at the first argument that `isEdit` accepts (kubectl's rule), and every
 * argument after it must be an edit too.
 */
export function splitEditArgs(args: readonly string[], isEdit: (arg: string) => boolean, editLabel: string): { resources: string[]; edits: string[] } {
  const first = args.findIndex(isEdit);
  const resources = first < 0 ? [...args] : args.slice(0, first);
  const edits = first < 0 ? [] : args.slice(first);
  const stray = edits.find((a) => !isEdit(a));
  if (stray !== undefined) throw usageError(`invalid argument "${stray}": resources must come before the ${editLabel} arguments, and every ${editLabel} argument needs the form shown in --help`);
  return { resources, edits };
}

export function parseSelection(verb: string, resources: readonly string[], flags: SelectionFlags): SetSelection {
  const files = flags.filename ?? [];
  const selector = flags.selector;
  const all = Boolean(flags.all);
  const local = Boolean(flags.local);
  if (selector !== undefined) validateSelector(selector);
  if (local) {
    if (files.length === 0) throw usageError(`${verb} --local needs the objects from -f FILE (nothing is read from a cluster)`);
    if (resources.length > 0 || selector !== undefined || all) throw usageError(`${verb} --local takes its objects only from -f FILE, not from TYPE/NAME, -l or --all`);
  }
  if (files.length > 0) {
    if (resources.length > 0) throw usageError(`${verb}: give the objects either with -f FILE or as TYPE/NAME, not both`);
    if (selector !== undefined || all) throw usageError(`${verb}: -l/--selector and --all need a TYPE argument, not -f`);
    for (const f of files) if (f === '') throw usageError('-f/--filename must not be empty');
    return { refs: [], files, selector, all, local };
  }
  if (resources.length === 0) throw usageError(`${verb} needs the objects to change: TYPE/NAME, TYPE NAME, TYPE -l SELECTOR, TYPE --all, or -f FILE`);
  let refs: SetTargetRef[];
  if (resources[0]!.includes('/')) {
    if (selector !== undefined || all) throw usageError('a TYPE/NAME cannot be combined with -l/--selector or --all');
    refs = resources.map((arg) => {
      const parts = arg.split('/');
      if (parts.length !== 2 || !parts[0] || !parts[1]) throw usageError(`invalid resource "${arg}": use TYPE/NAME, e.g. cloneset/web`);
      return { type: parts[0], name: parts[1] };
    });
  } else {
    const [type, ...names] = resources;
    for (const n of names) {
      if (n.includes('/')) throw usageError(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form ("${n}")`);
    }
    if (names.length > 0 && (selector !== undefined || all)) throw usageError('names cannot be combined with -l/--selector or --all');
    if (names.length === 0 && selector === undefined && !all) throw usageError(`${verb} needs a name: ${type}/NAME, ${type} NAME, or ${type} with -l SELECTOR or --all`);
    // kubectl's TYPE1,TYPE2 form: every type with every name (or with the selector / --all).
    const types = type!.split(',');
    refs = types.flatMap((t) => (names.length > 0 ? names.map((name) => ({ type: t, name })) : [{ type: t }]));
  }
  for (const r of refs) {
    checkType(r.type, verb);
    if (r.name !== undefined) validateName(r.name);
  }
  return { refs, files, selector, all, local };
}
