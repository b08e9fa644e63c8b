// `describe rollout [NAME] [-w] [-o json|yaml]`: a Kruise Rollout's release as the view model of
// src/kruise/rollout/describe-view.ts, printed by src/printers/rollout-describe.ts. `-w` watches the
// Rollout, its workload, the workload's pods and the BatchRelease (list+watch each, no polling) and
// redraws in place on a terminal, or prints one line (or one JSON document) per change otherwise;
// it ends by itself when the release completes (exit 0) or fails / is cancelled (exit 1).
import type { CommandContext } from '../../cli/context';
import { ExitCode, failure, usageError } from '../../cli/exit';
import type { KubeClient, KubeObject, Observation, ResourceType } from '../../kube/client';
import type { Pod } from '../../kruise/types';
import { describeRollout, type RolloutDescribeView } from '../../kruise/rollout/describe-view';
import { RolloutReadError } from '../../kruise/rollout/read';
import { parseOutputFormat, yamlStreamDocument, yamlText, type OutputFormat } from '../../printers/output';
import { paletteFor, type Palette } from '../../printers/colors';
import { redrawInPlace, renderRolloutDescribe, renderRolloutFrame, rolloutChangeLine, terminalRows, viewChangeKey } from '../../printers/rollout-describe';
import type { DescribeRolloutFlags } from './rollout-type';
import { batchReleaseResourceType, parseRolloutArgs, readRolloutObjects, rolloutResourceType, rolloutWorkloadTarget } from './rollout-source';

export type { DescribeRolloutFlags } from './rollout-type';

function viewOf(rollout: KubeObject, workload: KubeObject | null | undefined, pods: readonly Pod[], br: KubeObject | undefined): RolloutDescribeView {
  try {
    return describeRollout(rollout, workload, pods, br, Date.now());
  } catch (err) {
    if (err instanceof RolloutReadError) throw failure(err.message);
    throw err;
  }
}

/** Colours only when stdout itself is a terminal (the palette follows stderr): `> file` gets plain text. */
function stdoutPalette(ctx: CommandContext): Palette | undefined {
  return (ctx.term.stdout as { isTTY?: boolean }).isTTY === true ? paletteFor(ctx.term) : undefined;
}

function printOnce(ctx: CommandContext, views: RolloutDescribeView[], format: OutputFormat): void {
  const out = ctx.term.stdout;
  if (format.kind === 'json' || format.kind === 'yaml') {
    const data = views.length === 1 ? views[0] : { apiVersion: 'v1', kind: 'List', items: views };
    out.write(format.kind === 'json' ? `${JSON.stringify(data, null, 4)}\n` : yamlText(data, format));
    return;
  }
  const palette = stdoutPalette(ctx);
  out.write(views.map((v) => renderRolloutDescribe(v, { programName: ctx.programName, palette })).join('\n'));
}

export async function run(ctx: CommandContext, args: string[], flags: DescribeRolloutFlags): Promise<number> {
  const { type, name } = parseRolloutArgs(args[0] ?? '', args[1], 'describe');
  const format = parseOutputFormat(flags.output, ['json', 'yaml']);
  const watch = flags.watch === true;
  if (watch && name === undefined) throw usageError('describe rollout -w needs a NAME');
  const client = await ctx.kube();
  try {
    const rt = await rolloutResourceType(client, type);
    if (watch) return await watchRollout(ctx, client, rt, name!, format);
    const rollouts = name === undefined ? (await client.list(rt, client.namespace, { signal: ctx.signal })).items : [await client.get(rt, name, client.namespace, { signal: ctx.signal })];
    if (rollouts.length === 0) {
      ctx.term.stderr.write(`No resources found in ${client.namespace} namespace.\n`);
      return ExitCode.OK;
    }
    const views: RolloutDescribeView[] = [];
    for (const r of rollouts) {
      const o = await readRolloutObjects(client, rt, r, ctx.signal);
      views.push(viewOf(o.rollout, o.workload, o.pods, o.batchRelease));
    }
    printOnce(ctx, views, format);
    return ExitCode.OK;
  } finally {
    client.close();
  }
}

async function watchRollout(ctx: CommandContext, client: KubeClient, rt: ResourceType, name: string, format: OutputFormat): Promise<number> {
  const namespace = client.namespace;
  const out = ctx.term.stdout;
  const tty = (out as { isTTY?: boolean }).isTTY === true && ctx.term.env.TERM !== 'dumb' && format.kind === 'default';
  const palette = stdoutPalette(ctx);

  let rollout: KubeObject | undefined;
  let workload: KubeObject | null | undefined;
  const pods = new Map<string, Pod>();
  let br: KubeObject | undefined;
  let podsSynced = false;

  let workloadObs: Observation | undefined;
  let workloadKey = '';
  let podObs: Observation | undefined;
  /** The selector pods are watched with ('' none; the initial value matches no selector). */
  let podSelector = '\u0000';
  const observations: Observation[] = [];

  let settle!: (code: number) => void;
  let fail!: (err: unknown) => void;
  const finished = new Promise<number>((res, rej) => {
    settle = res;
    fail = rej;
  });
  let ended = false;
  const end = (code: number): void => {
    if (ended) return;
    ended = true;
    settle(code);
  };
  const watchFailed = (err: unknown): void => {
    if (!ended && !ctx.signal.aborted) {
      ended = true;
      fail(err);
    }
  };
  const track = (o: Observation): Observation => {
    o.done.catch(watchFailed);
    return o;
  };

  let shownRows = 0;
  let sawRelease = false;
  let lastKey = '';
  let lastView: RolloutDescribeView | undefined;
  /** Redraws the view: fitted to the screen while watching; the last frame (the watch ends) whole, as nothing redraws it. */
  const paint = (view: RolloutDescribeView, last: boolean): void => {
    // The size now (the terminal may have been resized since the start).
    const size = out as { columns?: number; rows?: number };
    const columns = size.columns ?? ctx.term.columns;
    const text = renderRolloutFrame(view, { programName: ctx.programName, palette }, { columns, rows: last ? undefined : size.rows });
    out.write(redrawInPlace(text, shownRows));
    shownRows = terminalRows(text, columns);
  };
  const draw = (): void => {
    if (!rollout || workload === undefined || (workload && !podsSynced)) return;
    const view = viewOf(rollout, workload, [...pods.values()], br);
    lastView = view;
    // Ends when a release seen in progress completes or fails; a Rollout already at rest when the watch
    // starts is watched for the next release (like `kubectl get -w`), not reported as done at once.
    const state = view.verdict.state;
    const atRest = state === 'Complete' || state === 'Failed';
    const ending = atRest && sawRelease;
    if (tty) paint(view, ending);
    else {
      const key = format.kind === 'default' ? rolloutChangeLine(view, ctx.programName) : viewChangeKey(view);
      if (key !== lastKey) {
        lastKey = key;
        if (format.kind === 'default') out.write(`${key}\n`);
        else if (format.kind === 'json') out.write(`${JSON.stringify(view)}\n`);
        else out.write(yamlStreamDocument(view, format.kind === 'yaml' ? format : {}, 1));
      }
    }
    if (!atRest) sawRelease = true;
    else if (ending) end(state === 'Complete' ? ExitCode.OK : ExitCode.FAILED);
  };
  // Events come in bursts (a status write moves pods and the workload): draw once per burst.
  let pending: NodeJS.Immediate | undefined;
  const schedule = (): void => {
    if (pending || ended) return;
    pending = setImmediate(() => {
      pending = undefined;
      if (ended) return;
      try {
        draw();
      } catch (err) {
        watchFailed(err);
      }
    });
  };

  const watchPods = (selector: string): void => {
    if (selector === podSelector) return;
    podObs?.stop();
    podObs = undefined;
    podSelector = selector;
    pods.clear();
    podsSynced = !selector;
    if (!selector) return;
    void client.resolve('pods').then((podRt) => {
      if (ended || podSelector !== selector) return;
      podObs = track(
        client.observe<Pod & KubeObject>(
          podRt,
          namespace,
          {
            labelSelector: selector,
            signal: ctx.signal,
            onSync: (items) => {
              pods.clear();
              for (const p of items) pods.set(p.metadata.name ?? '', p as Pod);
              podsSynced = true;
              schedule();
            },
          },
          (ev) => {
            if (ev.type === 'BOOKMARK') return;
            if (ev.type === 'DELETED') pods.delete(ev.object.metadata.name ?? '');
            else pods.set(ev.object.metadata.name ?? '', ev.object);
            schedule();
          },
        ),
      );
    }, watchFailed);
  };

  const watchWorkload = async (ro: KubeObject): Promise<void> => {
    const target = await rolloutWorkloadTarget(client, ro);
    const key = target ? `${target.rt.group}/${target.rt.resource}/${target.name}` : '';
    if (key === workloadKey) return;
    workloadKey = key;
    workloadObs?.stop();
    workload = undefined;
    watchPods('');
    if (!target) {
      workload = null;
      schedule();
      return;
    }
    workloadObs = track(
      client.observe(
        target.rt,
        namespace,
        {
          name: target.name,
          signal: ctx.signal,
          onSync: (items) => {
            workload = items[0] ?? null;
            watchPods(workload ? target.podSelector(workload) : '');
            schedule();
          },
        },
        (ev) => {
          if (ev.type === 'BOOKMARK') return;
          workload = ev.type === 'DELETED' ? null : ev.object;
          watchPods(workload ? target.podSelector(workload) : '');
          schedule();
        },
      ),
    );
  };

  const onRollout = (obj: KubeObject | undefined, deleted: boolean): void => {
    if (!obj) {
      watchFailed(failure(deleted ? `rollout "${name}" was deleted while watching it` : `rollouts.rollouts.kruise.io "${name}" not found in namespace "${namespace}"`));
      return;
    }
    rollout = obj;
    watchWorkload(obj).then(schedule, watchFailed);
  };

  observations.push(
    track(
      client.observe(rt, namespace, { name, signal: ctx.signal, onSync: (items) => onRollout(items[0], rollout !== undefined) }, (ev) => {
        if (ev.type === 'BOOKMARK') return;
        onRollout(ev.type === 'DELETED' ? undefined : ev.object, true);
      }),
    ),
  );
  observations.push(
    track(
      client.observe(batchReleaseResourceType(rt), namespace, {
        name,
        signal: ctx.signal,
        onSync: (items) => {
          br = items[0];
          schedule();
        },
      }, (ev) => {
        if (ev.type === 'BOOKMARK') return;
        br = ev.type === 'DELETED' ? undefined : ev.object;
        schedule();
      }),
    ),
  );
  // On a terminal ages and pause countdowns move every second: redraw (no request is made).
  const ticker = tty ? setInterval(schedule, 1000) : undefined;
  if (tty) out.on('resize', schedule);
  // Ctrl-C: the last view drawn whole before the process exits (synchronously: cli.ts exits right after the abort).
  const onAbort = (): void => {
    if (tty && lastView && !ended) paint(lastView, true);
    end(ExitCode.INTERRUPTED);
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const code = await finished;
    return code;
  } finally {
    if (ticker) clearInterval(ticker);
    if (tty) out.removeListener('resize', schedule);
    if (pending) clearImmediate(pending);
    ctx.signal.removeEventListener('abort', onAbort);
    for (const o of [...observations, workloadObs, podObs]) o?.stop();
  }
}
