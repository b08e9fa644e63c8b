// `describe rollout` text: the view model of src/kruise/rollout/describe-view.ts laid out like
// kubectl describe (labelled fields) with the step list and the pods as small trees, like the Argo
// Rollouts plugin's `get rollout`. Also the one-line summary `describe rollout -w` prints per change
// when its output is not a terminal.
import type { DescribePodGroup, DescribeStep, RolloutDescribeView } from '../kruise/rollout/describe-view';
import type { Palette } from './colors';
import { formatSeconds, formatTable } from './table';

/** Kept here for the describe printer's importers; the rule lives in table.ts beside formatAge. */
export { formatSeconds };

export interface RolloutDescribeOptions {
  /** "kubectl kruise": how the approval hint spells the command. */
  programName: string;
  palette?: Palette;
}

const plain: Palette = { ok: (s) => s, warn: (s) => s, bad: (s) => s, dim: (s) => s, bold: (s) => s };

/** Marks in the step list: done, the current step, still to come. */
export const STEP_MARK = { done: '✔', current: '▶', pending: '·' } as const;

/** The command a person runs to end a manual pause. */
export function approveHint(view: RolloutDescribeView, programName: string): string {
  return `waiting for approval: ${programName} rollout approve rollout/${view.name}${view.namespace ? ` -n ${view.namespace}` : ''}`;
}

/** What the current step waits for, in words ("" when nothing). */
export function stepWaitText(view: RolloutDescribeView, step: DescribeStep, programName: string): string {
  if (step.progress !== 'current') return '';
  if (view.verdict.state === 'StepPaused') return approveHint(view, programName);
  if (step.pauseLeftSeconds !== undefined) return `pause ends in ${step.pauseLeftSeconds}s`;
  return '';
}

function pauseText(step: DescribeStep): string {
  if (step.pause === 'manual') return 'manual';
  if (step.pause === 'timed') return `${step.pauseSeconds}s`;
  return '-';
}

function replicasText(step: DescribeStep): string {
  if (step.replicas === undefined) return '-';
  const written = String(step.replicas);
  return step.canaryReplicas !== undefined && written !== String(step.canaryReplicas) ? `${written} (${step.canaryReplicas})` : written;
}

function stateColour(view: RolloutDescribeView, p: Palette): (s: string) => string {
  switch (view.verdict.state) {
    case 'Complete':
      return p.ok;
    case 'Failed':
    case 'Blocked':
      return p.bad;
    case 'StepPaused':
    case 'Paused':
      return p.warn;
    default:
      return (s) => s;
  }
}

function groupTitle(g: DescribePodGroup): string {
  const parts: string[] = [g.role];
  if (g.revision) parts.push(g.revision);
  if (g.batchId) parts.push(`batch ${g.batchId}`);
  return parts.join('  ');
}

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => (l ? `${by}${l}` : l))
    .join('\n');
}

/** Step index of the release as "2/3" ("-/3" before the first step). */
export function stepOfSteps(view: RolloutDescribeView): string {
  return `${view.currentStepIndex ?? '-'}/${view.steps.length}`;
}

export function renderRolloutDescribe(view: RolloutDescribeView, opts: RolloutDescribeOptions): string {
  const p = opts.palette ?? plain;
  const field = (label: string, value: string): string => `${`${label}:`.padEnd(16)}${value}`;
  const lines: string[] = [];
  lines.push(field('Name', view.name));
  lines.push(field('Namespace', view.namespace));
  lines.push(field('API Version', view.apiVersion));
  const wl = view.workload;
  const wlText = wl.kind ? `${wl.kind}/${wl.name}${wl.found ? (wl.replicas !== undefined ? ` (${wl.replicas} replicas)` : '') : ' — not found'}` : '<none>';
  lines.push(field('Workload', wlText));
  lines.push(field('Strategy', view.strategy === 'blueGreen' ? 'blue-green' : 'canary'));
  lines.push(field('Status', stateColour(view, p)(`${view.verdict.state}`) + (view.paused ? ' (spec.strategy.paused)' : '') + (view.disabled ? ' (disabled)' : '')));
  lines.push(field('Phase', view.phase ?? '<none>'));
  lines.push(field('Message', view.verdict.message));
  if (view.message && view.message !== view.verdict.message) lines.push(field('Controller', view.message));
  const current = view.steps.find((s) => s.progress === 'current');
  lines.push(field('Step', `${stepOfSteps(view)}${view.currentStepState ? ` ${view.currentStepState}` : ''}`));
  const wait = current ? stepWaitText(view, current, opts.programName) : '';
  if (wait) lines.push(field('Waiting', p.warn(wait)));
  lines.push(field('Traffic', view.trafficWeight ?? '<none>'));
  if (view.rolloutID) lines.push(field('Rollout ID', `${view.rolloutID}${view.observedRolloutID !== view.rolloutID ? ` (observed ${view.observedRolloutID ?? '<none>'})` : ''}`));
  if (view.batch) {
    const b = view.batch;
    lines.push(field('Batch', `${b.currentBatch}/${b.batches} ${b.batchState ?? ''}`.trimEnd() + ` (updated ${b.updatedReplicas ?? 0}, ready ${b.updatedReadyReplicas ?? 0})`));
  }
  let text = `${lines.join('\n')}\n`;

  text += 'Revisions:\n';
  text += indent(
    formatTable(
      ['ROLE', 'REVISION', 'PODS', 'READY', 'IMAGES'],
      [
        ['stable', view.stable.revision, view.stable.pods, view.stable.readyPods, view.stable.images.join(',')],
        ['canary', view.canary.revision, view.canary.pods, view.canary.readyPods, view.canary.images.join(',')],
      ],
    ),
  );

  text += 'Steps:\n';
  text += indent(
    formatTable(
      ['', 'STEP', 'REPLICAS', 'TRAFFIC', 'PAUSE', 'STATE'],
      view.steps.map((s) => {
        const state = s.progress === 'current' ? [s.state ?? '', stepWaitText(view, s, opts.programName)].filter(Boolean).join(', ') : s.progress;
        return [STEP_MARK[s.progress], s.index, replicasText(s), s.traffic ?? '-', pauseText(s), state];
      }),
    ),
  );

  text += `Pods:${view.podGroups.length === 0 ? ' <none>' : ''}\n`;
  for (const g of view.podGroups) {
    const ready = g.pods.filter((x) => x.ready).length;
    text += `  ${groupTitle(g)}  (${ready}/${g.pods.length} ready)\n`;
    text += indent(
      formatTable(
        ['NAME', 'READY', 'STATUS', 'AGE'],
        g.pods.map((x) => [x.name, x.ready ? p.ok('yes') : p.bad('no'), x.reason ? p.bad(x.reason) : x.phase, x.ageSeconds === undefined ? '<unknown>' : formatSeconds(x.ageSeconds)]),
      ),
      '    ',
    );
  }

  const recent = view.conditions.slice(0, 5);
  text += `Conditions:${recent.length === 0 ? ' <none>' : ''}\n`;
  if (recent.length > 0) {
    text += indent(formatTable(['TYPE', 'STATUS', 'REASON', 'UPDATED', 'MESSAGE'], recent.map((c) => [c.type, c.status, c.reason, c.lastUpdateTime ?? c.lastTransitionTime, c.message])));
  }
  return text;
}

/**
 * One line per change for `describe rollout -w` into a pipe or file: no ages or countdowns (they
 * change every second), so a line differs from the last one only when the release moved.
 */
export function rolloutChangeLine(view: RolloutDescribeView, programName: string): string {
  const parts = [`rollout/${view.name}`, view.verdict.state, `step ${stepOfSteps(view)}`];
  if (view.currentStepState) parts.push(view.currentStepState);
  parts.push(`canary ${view.canary.readyPods}/${view.canary.pods} ready`, `stable ${view.stable.readyPods}/${view.stable.pods} ready`);
  if (view.trafficWeight) parts.push(`traffic ${view.trafficWeight}`);
  const wait = view.verdict.state === 'StepPaused' ? approveHint(view, programName) : view.verdict.state === 'Complete' || view.verdict.state === 'Failed' || view.verdict.state === 'Blocked' ? view.verdict.message : '';
  return `${parts.join('  ')}${wait ? `  (${wait})` : ''}`;
}

/** Rows a text takes on a terminal `columns` wide (long lines wrap). */
export function terminalRows(text: string, columns: number | undefined): number {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  // eslint-disable-next-line no-control-regex
  const visible = (l: string): number => [...l.replace(/\x1b\[[0-9;]*m/g, '')].length;
  return lines.reduce((n, l) => n + (columns && columns > 0 ? Math.max(1, Math.ceil(visible(l) / columns)) : 1), 0);
}

/** The view without what changes with the clock alone (ages, countdowns): equal keys, nothing to print. */
export function viewChangeKey(view: RolloutDescribeView): string {
  // The gate's message of a timed pause carries the countdown too ("(25s left)").
  return JSON.stringify({ ...view, verdict: { ...view.verdict, message: view.verdict.message.replace(/ \(\d+s left\)/, '') } }, (k, v: unknown) =>
    k === 'ageSeconds' || k === 'pauseLeftSeconds' ? undefined : v,
  );
}

/**
 * What to write to replace the last drawing (`previousRows` terminal rows) by `text`: cursor up, each
 * line overwritten and cleared to its end, then the rest of the screen cleared. Clearing from the top
 * left corner instead would make terminals such as tmux (scroll-on-clear) push every frame into the
 * scrollback: a wall of old views.
 */
export function redrawInPlace(text: string, previousRows: number): string {
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  return `${previousRows > 0 ? `\x1b[${previousRows}A\r` : ''}${lines.map((l) => `${l}\x1b[K`).join('\n')}\n\x1b[J`;
}

/**
 * The part of `text` a terminal of `rows` × `columns` shows without scrolling (one row kept for the
 * cursor), the rest replaced by a line saying how much was left out. A frame taller than the screen
 * could not be redrawn in place: the cursor cannot go above the top row, so every redraw would leave
 * the frame's top in the scrollback.
 */
export function fitToTerminal(text: string, columns: number | undefined, rows: number | undefined): string {
  if (!rows || rows < 3 || terminalRows(text, columns) < rows) return text;
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const note = (left: number): string => `… ${left} more line${left === 1 ? '' : 's'} (a taller terminal shows them; -o json has everything)`;
  // Rows for the frame: all but the cursor's and the note's (sized for the longest count it may show).
  const room = rows - 1 - terminalRows(`${note(lines.length)}\n`, columns);
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const need = terminalRows(`${line}\n`, columns);
    if (used + need > room) break;
    kept.push(line);
    used += need;
  }
  return `${kept.map((l) => `${l}\n`).join('')}${note(lines.length - kept.length)}\n`;
}
