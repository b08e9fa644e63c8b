// Which objects a `set` verb edits, parsed before any request (exit 2 on bad input):
// `TYPE/NAME...`, `TYPE NAME...`, `TYPE -l SELECTOR`, `TYPE --all`, or `-f FILE...`.
// No cluster access here, so the --local path can use it too.
import { usageError } from '../../cli/exit';
import { lookupType } from '../../kube/aliases';
import { nameMissing } from '../../kube/targets';
import { validateName, validateSelector } from '../../kube/targets';
import { selectorRefusal } from '../../kruise/object-edits';

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

/** The kinds of the `set` verbs that do not edit containers, each with kubectl's refusal of other kinds. */
interface VerbKinds {
  kinds: ReadonlySet<string>;
  refusal(group: string, kind: string, resource: string): string;
  /** Hint after an unknown type. */
  works: string;
}

const VERB_KINDS: Record<string, VerbKinds> = {
  // kubectl's UpdatePodSpecForObject kinds (plus ReplicationController) and Kruise's; a SidecarSet has no pod spec of its own.
  'set serviceaccount': {
    kinds: new Set([...[...EDITABLE_KINDS].filter((k) => k !== 'apps.kruise.io/SidecarSet'), '/ReplicationController']),
    refusal: (group, _kind, resource) => `set serviceaccount is not supported for ${resource}${group ? `.${group}` : ''}: it needs a workload with a pod template, a pod, a job or a cron job`,
    works: 'set serviceaccount works on clonesets, asts, ads, uniteddeployments, deployments, statefulsets, daemonsets, replicasets, replicationcontrollers, pods, jobs and cronjobs',
  },
  'set selector': { kinds: new Set(['/Service']), refusal: (group, kind) => selectorRefusal(group, kind), works: 'set selector works on services' },
  'set subject': {
    kinds: new Set(['rbac.authorization.k8s.io/RoleBinding', 'rbac.authorization.k8s.io/ClusterRoleBinding']),
    refusal: () => 'setting subjects is only supported for RoleBinding/ClusterRoleBinding',
    works: 'set subject works on rolebindings and clusterrolebindings',
  },
};

export function editableProblem(group: string, kind: string, resource: string, verb: string): string | undefined {
  const own = VERB_KINDS[verb];
  if (own) return own.kinds.has(`${group}/${kind}`) ? undefined : own.refusal(group, kind, resource);
  if (EDITABLE_KINDS.has(`${group}/${kind}`)) return undefined;
  return `${verb} is not supported for ${resource}${group ? `.${group}` : ''}: it needs a workload with a pod template, a pod, a job, a cron job or a SidecarSet`;
}

/** Rejects, before any request, a type this CLI does not know or that has no containers. */
function checkType(type: string, verb: string): void {
  const ref = lookupType(type);
  if (!ref) throw usageError(`unknown resource type "${type}"`, `hint: ${VERB_KINDS[verb]?.works ?? `${verb} works on clonesets, asts, ads, sidecarsets, deployments, statefulsets, daemonsets, replicasets, pods, jobs and cronjobs`}`);
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
    if (names.length === 0 && selector === undefined && !all) throw nameMissing(type!, `${verb} needs a name: ${type}/NAME, ${type} NAME, or ${type} with -l SELECTOR or --all`);
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
