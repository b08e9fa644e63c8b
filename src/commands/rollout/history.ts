// `rollout history TYPE/NAME... | TYPE -l SEL [--revision=N] [--diff=A,B] [-o json|yaml]`: the revision table
// (REVISION / CHANGE-CAUSE / IMAGES / PODS), one revision's pod template, or a unified diff.
import type { Command } from 'commander';
import type { CommandContext } from '../../cli/context';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client';
import { failure, usageError } from '../../cli/exit';
import { adapterFor } from '../../kruise/workloads/index';
import { apiGroupOf } from '../../kruise/api-version';
import { KIND_LABELS } from '../../kruise/progress';
import { historyRows, type HistoryRow, type Revision } from '../../kruise/revisions';
import { rolloutForWorkload } from '../../kruise/rollout/find';
import { rolloutHistoryRelease, type RolloutHistoryRelease } from '../../kruise/rollout/history-release';
import { KubeApiError } from '../../kube/errors';
import { templateDiff, templateYaml } from '../../kruise/revision-diff';
import { formatObjects, parseOutputFormat, resourceName, yamlText, type OutputFormat } from '../../printers/output';
import { historyObject, historyTable } from '../../printers/rollout-history';
import { loadPods, loadRevisions } from './revision-source';
import { noResourcesFound, parseTargets, readTargetObjects, resolveTargets } from './targets';
import { parseRevisionNumber } from './undo';
import { sidecarSetHistoryCommand } from './sidecarset-history';
import { sidecarSetTargets } from './sidecarset-status';

export interface HistoryOptions {
  filename?: string[];
  selector?: string;
  revision?: string;
  diff?: string;
  output?: string;
}

function parseDiff(value: string | undefined): [number, number] | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+),(\d+)$/.exec(value.trim());
  if (!m || Number(m[1]) === 0 || Number(m[2]) === 0) throw usageError(`invalid value "${value}" for --diff: use two revision numbers, e.g. --diff=1,3`);
  return [Number(m[1]), Number(m[2])];
}

export async function run(ctx: CommandContext, args: string[], opts: HistoryOptions, _cmd: Command): Promise<number> {
  const revision = parseRevisionNumber(opts.revision, '--revision');
  const diff = parseDiff(opts.diff);
  if (revision !== undefined && diff) throw usageError('--revision and --diff cannot be combined');
  const format = parseOutputFormat(opts.output, ['default', 'json', 'yaml', 'name', 'jsonpath']);
  if (diff && format.kind !== 'default') throw usageError('--diff prints a unified diff and cannot be combined with -o');
  const refs = parseTargets('rollout history', args, opts.selector, { filenames: opts.filename });
  const client = await ctx.kube();
  try {
    const sidecarSets = await sidecarSetTargets(client, 'rollout history', refs);
    if (sidecarSets) {
      if (revision !== undefined || diff) throw usageError('--revision and --diff do not apply to a SidecarSet: its table lists each revision\'s images');
      return await sidecarSetHistoryCommand(ctx, client, sidecarSets, format);
    }
    // One GET per name, one LIST per selector: each object is read once.
    const objects = await readTargetObjects(client, await resolveTargets(client, 'rollout history', refs), opts.selector);
    if (objects.length === 0) {
      // Only a selector can match nothing: kubectl's line on stderr, exit 0 (an empty List with -o json|yaml).
      ctx.term.stderr.write(`${noResourcesFound(client.namespace)}\n`);
      if (format.kind === 'json' || format.kind === 'yaml') ctx.term.stdout.write(formatObjects([], format, { list: true }));
      return 0;
    }
    if (format.kind === 'name') {
      // kubectl's name form of a history: its revision objects (ReplicaSets of a Deployment, else
      // ControllerRevisions), oldest first, or the one --revision names.
      for (const { obj } of objects) {
        const adapter = adapterFor(obj);
        if (!adapter) throw failure(`no rollout support for ${obj.apiVersion} ${obj.kind} "${obj.metadata.name ?? ''}"`);
        const { revisions } = await loadRevisions(client, obj, adapter);
        const shown = revision === undefined ? revisions : revisions.filter((r) => r.revision === revision);
        if (revision !== undefined && shown.length === 0) throw revisionNotFound(revision, `${KIND_LABELS[adapter.kindName]} "${obj.metadata.name ?? ''}"`);
        for (const r of shown) ctx.term.stdout.write(`${resourceName(r.object.kind ?? '', apiGroupOf(r.object.apiVersion), r.name)}\n`);
      }
      return 0;
    }
    const views: unknown[] = [];
    for (const [i, { rt, obj }] of objects.entries()) {
      // Several objects (kubectl: a blank line between them); -o json|yaml collects them into one List.
      if (i > 0 && format.kind === 'default') ctx.term.stdout.write('\n');
      const view = await historyOf(ctx, client, rt, obj, { revision, diff, format });
      if (view !== undefined) views.push(view);
    }
    if (views.length > 0) {
      const data = views.length === 1 ? views[0] : { apiVersion: 'v1', kind: 'List', items: views, metadata: { resourceVersion: '' } };
      if (format.kind === 'jsonpath') ctx.term.stdout.write(formatObjects([data as KubeObject], format));
      else ctx.term.stdout.write(format.kind === 'json' ? `${JSON.stringify(data, null, 4)}\n` : yamlText(data, format.kind === 'yaml' ? format : {}));
    }
    return 0;
  } finally {
    client.close();
  }
}

/** kubectl's words for a revision a history does not have. */
function revisionNotFound(n: number, label: string): Error {
  return failure(`unable to find the specified revision ${n} in history of ${label}`);
}

/** Prints one object's history (table, one revision or a diff); with -o json|yaml returns the view to print instead. */
async function historyOf(
  ctx: CommandContext,
  client: KubeClient,
  rt: ResourceType,
  obj: KubeObject,
  o: { revision?: number; diff?: [number, number]; format: OutputFormat },
): Promise<unknown> {
  const { revision, diff, format } = o;
  const name = obj.metadata.name ?? '';
  const adapter = adapterFor(obj);
  if (!adapter) throw failure(`no rollout support for ${obj.apiVersion} ${obj.kind} "${name}"`);
  const label = `${KIND_LABELS[adapter.kindName]} "${name}"`;
  const header = resourceName(rt.kind, rt.group, name);
  const { source, revisions } = await loadRevisions(client, obj, adapter);
  const find = (n: number): Revision => {
    const r = revisions.find((x) => x.revision === n);
    if (!r) throw revisionNotFound(n, label);
    return r;
  };

  if (diff) {
    const out = templateDiff(find(diff[0]), find(diff[1]));
    ctx.term.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
    return undefined;
  }
  if (revision !== undefined) {
    const r = find(revision);
    if (format.kind === 'json' || format.kind === 'yaml' || format.kind === 'jsonpath') return r.template;
    ctx.term.stdout.write(`${header} with revision #${r.revision}\nPod Template:\n${indent(templateYaml(r.template))}`);
    return undefined;
  }
  const pods = await loadPods(client, obj, adapter);
  const rows = historyRows(revisions, pods, source);
  const release = await rolloutReleaseOf(client, obj, rows);
  if (format.kind === 'json' || format.kind === 'yaml' || format.kind === 'jsonpath') {
    return historyObject(obj.kind ?? '', obj.apiVersion ?? '', obj.metadata.namespace ?? '', name, rows, release);
  }
  if (rows.length === 0) {
    ctx.term.stdout.write(`${header}: no rollout history found\n`);
    return undefined;
  }
  ctx.term.stdout.write(`${header}\n${release ? `${release.summary}\n` : ''}${historyTable(rows, release)}`);
  return undefined;
}

/**
 * The release a Kruise Rollout makes of this workload (one LIST of the namespace's Rollouts, only when
 * the cluster serves them); none when no Rollout manages it or Rollouts cannot be read by this user.
 */
async function rolloutReleaseOf(client: KubeClient, obj: KubeObject, rows: readonly HistoryRow[]): Promise<RolloutHistoryRelease | undefined> {
  if (!(await client.isServed('rollouts.kruise.io', 'rollouts'))) return undefined;
  let rollouts: KubeObject[];
  try {
    rollouts = (await client.list(await client.resolve('rollouts.rollouts.kruise.io'), obj.metadata.namespace ?? client.namespace)).items;
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  }
  const rollout = rolloutForWorkload(rollouts, { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '', name: obj.metadata.name ?? '' });
  return rollout ? rolloutHistoryRelease(rollout, obj, rows, Date.now()) : undefined;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
}
