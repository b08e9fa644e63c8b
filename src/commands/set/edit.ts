// What `set image|env|resources` share once the objects are in hand: plan the edit on
// every object first (all-or-nothing: an unknown container or a change the update policy
// would reject stops everything before the first write), warn about changes that will
// recreate pods, and print the outcome the kubectl way. No cluster code here.
import { failure, usageError } from '../../cli/exit';
import {
  allContainers,
  applyJsonPatch,
  inPlaceVerdict,
  locatePodSpec,
  type TemplateChange,
  type EditPlan,
  type JsonPatchOp,
} from '../../kruise/containers';
import { apiGroupOf } from '../../kruise/api-version';
import type { GitOpsMode } from '../../kruise/gitops/owners';
import type { KubeObject } from '../../kruise/types';
import { describeRejections, webhookRejections } from '../../kruise/rules/webhook-precheck';
import { formatObjects, mutationLine, resourceName, type DryRunMode, type OutputFormat } from '../../printers/output';

export interface EditRequest {
  /** "set image", for messages. */
  command: string;
  /** Mutation line verb: "image updated", "env updated", "resource requirements updated". */
  updatedVerb: string;
  /** Mutation line verb when nothing changed: "image unchanged". */
  unchangedVerb: string;
  plan(obj: KubeObject): EditPlan<TemplateChange> & { violations?: string[] };
  /**
   * What the edit changes: a pod template (the default: containers located, in-place policies and
   * Kruise's webhook checked) or fields of the object itself (a Service's selector, a binding's subjects).
   */
  target?: 'pod-template' | 'object';
  dryRun: DryRunMode;
  output: OutputFormat;
  fieldManager: string;
  /** --gitops: fields a GitOps manager owns (absent: ignore, as offline edits do). */
  gitops?: GitOpsMode;
  /**
   * --local: the manifest may be created rather than update an existing object, and Kruise's
   * InPlaceOnly webhook only checks updates (ValidateCloneSetUpdate): warn instead of refusing.
   */
  local?: boolean;
}

export interface PlannedEdit {
  obj: KubeObject;
  ops: JsonPatchOp[];
  changes: TemplateChange[];
}

export interface EditOutcome {
  obj: KubeObject;
  changed: boolean;
}

/** "cloneset.apps.kruise.io/web" */
export function objectName(obj: KubeObject): string {
  return resourceName(obj.kind ?? '', apiGroupOf(obj.apiVersion), obj.metadata.name ?? '');
}

/** `cloneset "web"`, `advanced statefulset "db"`: how people name the workload in prose. */
export function objectLabel(obj: KubeObject): string {
  const kruise = apiGroupOf(obj.apiVersion) === 'apps.kruise.io';
  const kind = obj.kind ?? '';
  const label = kruise && (kind === 'StatefulSet' || kind === 'DaemonSet') ? `advanced ${kind.toLowerCase()}` : kind.toLowerCase();
  return `${label} "${obj.metadata.name ?? ''}"`;
}

function containerInventory(obj: KubeObject): string {
  const all = allContainers(obj);
  const names = (list: string): string => all.filter((c) => c.list === list).map((c) => c.name).join(', ');
  const init = names('initContainers');
  return `${objectName(obj)} has containers ${names('containers') || '(none)'}${init ? ` and init containers ${init}` : ''}`;
}

/**
 * Plans the edit on one object, or throws (exit 1) for an unknown container, a kind without
 * containers, a change the InPlaceOnly webhook would reject, or a request above its limit.
 * `warn` receives the stderr warning for changes that will recreate pods.
 */
export function planObject(obj: KubeObject, req: EditRequest, warn: (line: string) => void): PlannedEdit {
  if (req.target === 'object') {
    const plan = req.plan(obj);
    return plan.ok ? { obj, ops: plan.ops, changes: plan.changes } : { obj, ops: [], changes: [] };
  }
  if (!locatePodSpec(obj)) throw failure(`${objectName(obj)} has no pod template: ${req.command} works on workloads, pods, jobs, cron jobs and SidecarSets`);
  const plan = req.plan(obj);
  if (!plan.ok) {
    const missing = plan.missingContainers[0]!;
    // A SidecarSet names only its sidecars: a wrong name is bad input (exit 2), not a cluster failure.
    throw (obj.kind === 'SidecarSet' ? usageError : failure)(
      missing === '*' ? `${objectName(obj)} has no containers` : `unable to find container named "${missing}" in ${objectName(obj)}`,
      `hint: ${containerInventory(obj)}; nothing was changed`,
    );
  }
  if (plan.violations?.length) {
    throw failure(`${objectName(obj)}: ${plan.violations[0]}`, 'hint: requests must not exceed limits (the API server would reject it); nothing was changed');
  }
  const verdict = inPlaceVerdict(obj, plan.changes);
  if (verdict?.rejected && req.local) {
    warn(
      `Warning: ${objectLabel(obj)} uses InPlaceOnly: its webhook would reject ${verdict.what} ("only allowed to update images") when applied to an existing ${obj.kind ?? 'object'}; creating it is fine`,
    );
    return { obj, ops: plan.ops, changes: plan.changes };
  }
  if (verdict?.rejected) {
    throw failure(
      `${objectLabel(obj)} uses InPlaceOnly, which only allows container image updates: its webhook would reject ${verdict.what} ("only allowed to update images"); nothing was changed`,
      'hint: switch its update policy to InPlaceIfPossible or ReCreate first if the pods may be recreated',
    );
  }
  // Anything else Kruise's validating webhook would refuse for the edited object: exit 2, nothing sent.
  const rejected = plan.ops.length > 0 ? webhookRejections(obj, applyJsonPatch(obj, plan.ops)) : [];
  if (rejected.length > 0) {
    throw usageError(`${objectLabel(obj)}: ${req.command} would be rejected by Kruise's webhook: ${describeRejections(rejected)}; nothing was changed`);
  }
  if (verdict && plan.ops.length > 0) {
    // cpu/memory may be resized in place when kruise-manager runs InPlaceWorkloadVerticalScaling (not visible from here)
    const gate = verdict.what.includes('resource') ? ' (cpu/memory are resized in place instead if kruise-manager has InPlaceWorkloadVerticalScaling on; see --preview)' : '';
    warn(`Warning: ${verdict.what} cannot be applied in place; ${objectLabel(obj)} (${verdict.policy}) will recreate its pods${gate}`);
  }
  return { obj, ops: plan.ops, changes: plan.changes };
}

/** Plans every object before anything is written; the first problem stops all of them. */
export function planAll(objects: readonly KubeObject[], req: EditRequest, warn: (line: string) => void): PlannedEdit[] {
  const warnings: string[] = [];
  const planned = objects.map((obj) => planObject(obj, req, (w) => warnings.push(w)));
  // Warnings only once every object passed, so a refused run prints just the error.
  for (const w of warnings) warn(w);
  return planned;
}

/** Mutation lines, or the resulting objects with -o. */
export function formatOutcomes(outcomes: readonly EditOutcome[], req: EditRequest): string {
  if (req.output.kind !== 'default') return formatObjects(outcomes.map((o) => o.obj), req.output);
  return outcomes
    .map((o) => `${mutationLine(o.obj.kind ?? '', apiGroupOf(o.obj.apiVersion), o.obj.metadata.name ?? '', o.changed ? req.updatedVerb : req.unchangedVerb, req.dryRun)}\n`)
    .join('');
}
