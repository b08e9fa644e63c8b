// `set ...` against a cluster: read each object once, plan every edit before the first
// write, then send one JSON patch per changed object. A patch whose `test` guards fail
// (the containers moved) or that conflicts is rebuilt from a fresh read, a bounded number of times.
import type { CommandContext } from '../../cli/context';
import { failure, usageError } from '../../cli/exit';
import type { KubeClient, ResourceType } from '../../kube/client';
import { retryOnConflict } from '../../kube/conflict';
import { apiGroupOf, joinApiVersion, splitApiVersion, withTypeMeta } from '../../kruise/api-version';
import { applyJsonPatch, isContainerChange, type JsonPatchOp } from '../../kruise/containers';
import type { KubeObject } from '../../kruise/types';
import { formatOutcomes, objectName, planAll, planObject, type EditOutcome, type EditRequest, type PlannedEdit } from './edit';
import { readManifests } from './manifests';
import { sidecarSetChangeWarnings } from './sidecarset-warning';
import { rolloutHolding } from '../../kruise/rollout/holder';
import { releaseHint, workloadRefText } from '../../printers/release-hints';
import { editableProblem, type SetSelection } from './targets';
import { checkGitOpsWrite } from '../../engine/gitops-writes';

/** Attempts of one object's patch when its guards fail or it conflicts (each retry re-reads). */
export const PATCH_ATTEMPTS = 3;

export interface LiveObject {
  rt: ResourceType;
  namespace: string | undefined;
  obj: KubeObject;
}

function checkEditable(rt: ResourceType, command: string): void {
  const problem = editableProblem(rt.group, rt.kind, rt.resource, command);
  if (problem) throw usageError(problem);
}

/** The type string discovery resolves for an object read from a file, pinned to its version. */
async function resolveManifestType(client: KubeClient, obj: KubeObject): Promise<ResourceType> {
  const { group, version } = splitApiVersion(obj.apiVersion);
  const kind = (obj.kind ?? '').toLowerCase();
  const candidates = group ? [`${kind}.${version}.${group}`, `${kind}.${group}`] : [kind];
  let lastError: unknown;
  for (const type of candidates) {
    try {
      const rt = await client.resolve(type);
      if (rt.group === group && rt.kind === obj.kind) return rt;
    } catch (e) {
      lastError = e;
    }
  }
  if (lastError) throw lastError;
  throw failure(`the server does not serve ${obj.kind} in ${obj.apiVersion ?? ''}`);
}

/** Reads the selected objects (one GET per name, one LIST per selector), each with its apiVersion and kind. */
export async function fetchTargets(client: KubeClient, selection: SetSelection, command: string): Promise<LiveObject[]> {
  const out: LiveObject[] = [];
  if (selection.files.length > 0) {
    const manifests = readManifests(selection.files, command);
    // Every object's kind is checked before the first request.
    for (const { object, source } of manifests) {
      const problem = editableProblem(apiGroupOf(object.apiVersion), object.kind ?? '', `${(object.kind ?? '').toLowerCase()}s`, command);
      if (problem) throw usageError(`${problem} (${object.kind} "${object.metadata.name}" in ${source})`);
    }
    for (const { object } of manifests) {
      const rt = await resolveManifestType(client, object);
      checkEditable(rt, command);
      const namespace = rt.namespaced ? (object.metadata.namespace ?? client.namespace) : undefined;
      out.push({ rt, namespace, obj: withTypeMeta(await client.get(rt, object.metadata.name!, namespace), rt) });
    }
    return out;
  }
  const types = new Map<string, ResourceType>();
  for (const ref of selection.refs) {
    let rt = types.get(ref.type);
    if (!rt) {
      rt = await client.resolve(ref.type);
      checkEditable(rt, command);
      types.set(ref.type, rt);
    }
    const namespace = rt.namespaced ? client.namespace : undefined;
    if (ref.name !== undefined) {
      out.push({ rt, namespace, obj: withTypeMeta(await client.get(rt, ref.name, namespace), rt) });
      continue;
    }
    const list = await client.list(rt, namespace, selection.selector !== undefined ? { labelSelector: selection.selector } : {});
    // A selector (or --all) matching nothing is no object: kubectl exits 0 (runClusterEdit says so).
    // Items of a list carry no apiVersion/kind; the planners need them.
    for (const item of list.items) out.push({ rt, namespace, obj: { ...item, apiVersion: joinApiVersion(rt.group, rt.version), kind: rt.kind } });
  }
  return out;
}

async function writeOne(client: KubeClient, live: LiveObject, first: PlannedEdit, req: EditRequest, warn: (line: string) => void): Promise<EditOutcome> {
  let planned = first;
  const name = live.obj.metadata.name!;
  return retryOnConflict(
    async (attempt) => {
      if (attempt > 1) {
        // The containers moved or the object changed: rebuild the patch from what is there now.
        planned = planObject(withTypeMeta(await client.get(live.rt, name, live.namespace), live.rt), req, warn);
      }
      if (planned.ops.length === 0) return { obj: planned.obj, changed: false };
      if (req.dryRun === 'client') return { obj: applyJsonPatch(planned.obj, planned.ops), changed: true };
      const result = await client.patch(live.rt, name, 'json', planned.ops satisfies JsonPatchOp[], live.namespace, {
        dryRun: req.dryRun === 'server',
        fieldManager: req.fieldManager,
      });
      return { obj: withTypeMeta(result, live.rt), changed: true };
    },
    {
      attempts: PATCH_ATTEMPTS,
      exhausted: (last, attempts) =>
        failure(`${objectName(planned.obj)} kept changing while it was being patched (${attempts} attempts); this object was not changed`, `hint: last server answer: ${last.message}`),
    },
  );
}

export async function runClusterEdit(ctx: CommandContext, selection: SetSelection, req: EditRequest): Promise<number> {
  const client = await ctx.kube();
  const warn = (line: string): void => void ctx.term.stderr.write(`${line}\n`);
  try {
    const live = await fetchTargets(client, selection, req.command);
    if (live.length === 0) {
      // Only -l/--all can match nothing: kubectl's `set image -l` exits 0 (silently); we say so.
      ctx.term.stderr.write(`No resources found in ${client.namespace} namespace.\n`);
      return 0;
    }
    const planned = planAll(
      live.map((l) => l.obj),
      req,
      warn,
    );
    // A SidecarSet's change reaches other workloads' pods: say which before writing.
    for (let i = 0; i < live.length; i++) {
      const p = planned[i]!;
      if (live[i]!.obj.kind !== 'SidecarSet' || p.ops.length === 0) continue;
      for (const line of await sidecarSetChangeWarnings(client, p.obj, p.changes.filter(isContainerChange))) warn(line);
    }
    // Fields Argo CD / Flux / server-side apply own: refused before the first write (no object is
    // half done); the client's write guard warns as each patch goes out, and this check for a client dry run.
    const gitops = req.gitops === 'refuse' || req.dryRun === 'client' ? (req.gitops ?? 'ignore') : 'ignore';
    for (let i = 0; i < live.length; i++) {
      const p = planned[i]!;
      if (p.ops.length === 0) continue;
      checkGitOpsWrite({ fieldManager: req.fieldManager, gitops, warn }, live[i]!.obj, applyJsonPatch(live[i]!.obj, p.ops));
    }
    const outcomes: EditOutcome[] = [];
    const done: string[] = [];
    ctx.setInterruptSummary(() => (done.length ? `updated ${done.join(', ')}` : 'nothing was changed'));
    for (let i = 0; i < live.length; i++) {
      try {
        const outcome = await writeOne(client, live[i]!, planned[i]!, req, warn);
        outcomes.push(outcome);
        if (outcome.changed) done.push(objectName(outcome.obj));
      } catch (err) {
        // Earlier objects are already written: say so before failing.
        if (outcomes.length > 0) ctx.term.stdout.write(formatOutcomes(outcomes, req));
        throw err;
      }
    }
    ctx.term.stdout.write(formatOutcomes(outcomes, req));
    // A template change under a Kruise Rollout goes out in the Rollout's steps: the write's answer says which one holds it.
    for (let i = 0; i < outcomes.length; i++) {
      const { obj, changed } = outcomes[i]!;
      const holder = changed ? (rolloutHolding(obj) ?? rolloutHolding(live[i]!.obj)) : undefined;
      if (holder !== undefined) warn(releaseHint(ctx.programName, workloadRefText(live[i]!.rt, obj.metadata.name ?? ''), holder, 'change'));
    }
    return 0;
  } finally {
    client.close();
  }
}

/** Reads the selected objects only (set env --list). */
export async function readTargets(ctx: CommandContext, selection: SetSelection, command: string): Promise<LiveObject[]> {
  const client = await ctx.kube();
  try {
    const live = await fetchTargets(client, selection, command);
    if (live.length === 0) ctx.term.stderr.write(`No resources found in ${client.namespace} namespace.\n`);
    return live;
  } finally {
    client.close();
  }
}

/** Keys of a ConfigMap (data and binaryData) or Secret, for `set env --from`. */
export async function readSourceKeys(ctx: CommandContext, kind: 'configmap' | 'secret', name: string): Promise<string[]> {
  // Not closed here: ctx.kube() hands out one shared client, and the edit that follows (runClusterEdit) uses and closes it.
  const client = await ctx.kube();
  const rt = await client.resolve(kind);
  const obj = await client.get(rt, name, client.namespace);
  const keys = new Set<string>();
  for (const field of ['data', 'binaryData', 'stringData']) {
    const value = obj[field];
    if (value && typeof value === 'object') for (const k of Object.keys(value)) keys.add(k);
  }
  return [...keys];
}
