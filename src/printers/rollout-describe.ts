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

/** Step index of the release as "2/3" ("-/3" before the first step). */
export function stepOfSteps(view: RolloutDescribeView): string {
  return `${view.currentStepIndex ?? '-'}/${view.steps.length}`;
}

/** The text of `describe rollout` by section, each a list of lines (no newlines inside). */
interface DescribeSections {
  header: string[];
  revisions: string[];
  steps: string[];
  pods: { title: string; groups: Array<{ title: string; header: string; rows: string[]; ready: string }>; total: number };
  conditions: string[];
}

function tableLines(text: string, by: string): string[] {
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => `${by}${l}`);
}

/**
 * A labelled field's lines: `Label:` padded to 16 columns, then the value; with `columns`, a value
 * longer than the line folds at spaces onto lines indented as the value (a word longer than the
 * room is cut where the line ends).
 */
function fieldLines(label: string, value: string, columns: number | undefined, colour: (s: string) => string = (s) => s): string[] {
  const pad = 16;
  const head = `${label}:`.padEnd(pad);
  const room = columns ? columns - pad : 0;
  if (room < 20 || value.length <= room) return [`${head}${colour(value)}`];
  const pieces: string[] = [];
  let line = '';
  for (let word of value.split(' ')) {
    while (word.length > room) {
      if (line) pieces.push(line);
      pieces.push(word.slice(0, room));
      word = word.slice(room);
      line = '';
    }
    if (line && line.length + 1 + word.length > room) {
      pieces.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) pieces.push(line);
  return pieces.map((piece, i) => `${i === 0 ? head : ' '.repeat(pad)}${colour(piece)}`);
}

/** `columns`: fold the long fields to that width, and leave the step's wait (the Waiting field says it) out of the Steps table. */
function describeSections(view: RolloutDescribeView, opts: RolloutDescribeOptions, columns?: number): DescribeSections {
  const p = opts.palette ?? plain;
  const header: string[] = [];
  const field = (label: string, value: string, fold = false, colour?: (s: string) => string): void => {
    header.push(...(fold ? fieldLines(label, value, columns, colour) : [`${`${label}:`.padEnd(16)}${colour ? colour(value) : value}`]));
  };
  field('Name', view.name);
  field('Namespace', view.namespace);
  field('API Version', view.apiVersion);
  const wl = view.workload;
  const wlText = wl.kind ? `${wl.kind}/${wl.name}${wl.found ? (wl.replicas !== undefined ? ` (${wl.replicas} replicas)` : '') : ' — not found'}` : '<none>';
  field('Workload', wlText);
  field('Strategy', view.strategy === 'blueGreen' ? 'blue-green' : 'canary');
  field('Status', stateColour(view, p)(`${view.verdict.state}`) + (view.paused ? ' (spec.strategy.paused)' : '') + (view.disabled ? ' (disabled)' : ''));
  field('Phase', view.phase ?? '<none>');
  field('Message', view.verdict.message, true);
  if (view.message && view.message !== view.verdict.message) field('Controller', view.message, true);
  const current = view.steps.find((s) => s.progress === 'current');
  field('Step', `${stepOfSteps(view)}${view.currentStepState ? ` ${view.currentStepState}` : ''}`);
  const wait = current ? stepWaitText(view, current, opts.programName) : '';
  if (wait) field('Waiting', wait, true, p.warn);
  field('Traffic', view.trafficWeight ?? '<none>');
  if (view.rolloutID) field('Rollout ID', `${view.rolloutID}${view.observedRolloutID !== view.rolloutID ? ` (observed ${view.observedRolloutID ?? '<none>'})` : ''}`);
  if (view.batch) {
    const b = view.batch;
    field('Batch', `${b.currentBatch}/${b.batches} ${b.batchState ?? ''}`.trimEnd() + ` (updated ${b.updatedReplicas ?? 0}, ready ${b.updatedReadyReplicas ?? 0})`);
  }

  const revisions = [
    'Revisions:',
    ...tableLines(
      formatTable(
        ['ROLE', 'REVISION', 'PODS', 'READY', 'IMAGES'],
        [
          ['stable', view.stable.revision, view.stable.pods, view.stable.readyPods, view.stable.images.join(',')],
          ['canary', view.canary.revision, view.canary.pods, view.canary.readyPods, view.canary.images.join(',')],
        ],
      ),
      '  ',
    ),
  ];

  const steps = [
    'Steps:',
    ...tableLines(
      formatTable(
        ['', 'STEP', 'REPLICAS', 'TRAFFIC', 'PAUSE', 'STATE'],
        view.steps.map((s) => {
          const waitText = columns ? '' : stepWaitText(view, s, opts.programName);
          const state = s.progress === 'current' ? [s.state ?? '', waitText].filter(Boolean).join(', ') : s.progress;
          return [STEP_MARK[s.progress], s.index, replicasText(s), s.traffic ?? '-', pauseText(s), state];
        }),
      ),
      '  ',
    ),
  ];

  const pods: DescribeSections['pods'] = { title: `Pods:${view.podGroups.length === 0 ? ' <none>' : ''}`, groups: [], total: 0 };
  for (const g of view.podGroups) {
    const ready = g.pods.filter((x) => x.ready).length;
    const [head, ...rows] = tableLines(
      formatTable(
        ['NAME', 'READY', 'STATUS', 'AGE'],
        g.pods.map((x) => [x.name, x.ready ? p.ok('yes') : p.bad('no'), x.reason ? p.bad(x.reason) : x.phase, x.ageSeconds === undefined ? '<unknown>' : formatSeconds(x.ageSeconds)]),
      ),
      '    ',
    );
    pods.groups.push({ title: `  ${groupTitle(g)}  (${ready}/${g.pods.length} ready)`, header: head!, rows, ready: `${g.role} ${ready}/${g.pods.length}` });
    pods.total += g.pods.length;
  }

  const recent = view.conditions.slice(0, 5);
  const conditions = [`Conditions:${recent.length === 0 ? ' <none>' : ''}`];
  if (recent.length > 0) {
    conditions.push(...tableLines(formatTable(['TYPE', 'STATUS', 'REASON', 'UPDATED', 'MESSAGE'], recent.map((c) => [c.type, c.status, c.reason, c.lastUpdateTime ?? c.lastTransitionTime, c.message])), '  '));
  }
  return { header, revisions, steps, pods, conditions };
}

function podLines(pods: DescribeSections['pods']): string[] {
  return [pods.title, ...pods.groups.flatMap((g) => [g.title, g.header, ...g.rows])];
}

function text(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}

export function renderRolloutDescribe(view: RolloutDescribeView, opts: RolloutDescribeOptions): string {
  const s = describeSections(view, opts);
  return text([...s.header, ...s.revisions, ...s.steps, ...podLines(s.pods), ...s.conditions]);
}

const LEFT_OUT = 'a taller terminal shows them';

/**
 * One frame of `describe rollout -w` for a terminal of `rows` × `columns`, in at most rows - 1 rows
 * (one kept for the cursor: a taller frame could not be redrawn in place). The header (long fields
 * folded to the width) and the Steps table always show; then, as room allows, the Revisions table,
 * the pods (cut to what fits, with a `... N more pods` line) and the Conditions. A terminal too
 * small even for the header and steps gets the frame cut from the bottom (fitToTerminal).
 */
export function renderRolloutFrame(view: RolloutDescribeView, opts: RolloutDescribeOptions, size: { columns?: number; rows?: number }): string {
  const { columns, rows } = size;
  const s = describeSections(view, opts, columns);
  const all = [...s.header, ...s.revisions, ...s.steps, ...podLines(s.pods), ...s.conditions];
  const height = (lines: readonly string[]): number => terminalRows(text(lines), columns);
  if (!rows || height(all) < rows) return text(all);
  let room = rows - 1 - height([...s.header, ...s.steps]);
  if (room < 0) return fitToTerminal(text(all), columns, rows);
  const take = (lines: readonly string[]): boolean => {
    const need = height(lines);
    if (need > room) return false;
    room -= need;
    return true;
  };
  const revisions = take(s.revisions) ? s.revisions : [];
  const pods = fitPods(s.pods, room, height);
  room -= height(pods);
  const conditions = take(s.conditions) ? s.conditions : room > 0 && s.conditions.length > 1 ? [`Conditions: ${s.conditions.length - 2} left out (${LEFT_OUT})`] : [];
  return text([...s.header, ...revisions, ...s.steps, ...pods, ...conditions]);
}

/** The pods in `room` rows: whole, or each group's title and header with its first pods and one `... N more pods` line. */
function fitPods(pods: DescribeSections['pods'], room: number, height: (lines: readonly string[]) => number): string[] {
  const whole = podLines(pods);
  if (height(whole) <= room) return whole;
  if (room < 1) return [];
  const more = (n: number): string => `  ... ${n} more pod${n === 1 ? '' : 's'} (${LEFT_OUT})`;
  // Rows for the pods, after the section's title and the closing line.
  let left = room - height([pods.title]) - height([more(pods.total)]);
  if (left < 3) {
    // No room for a table: how many are ready, by role, in one line.
    const counts = `Pods: ${pods.groups.map((g) => g.ready).join(', ')} ready (${LEFT_OUT})`;
    return height([counts]) <= room ? [counts] : [];
  }
  const out = [pods.title];
  let shown = 0;
  for (const g of pods.groups) {
    const head = height([g.title, g.header]);
    if (left - head < height(g.rows.slice(0, 1))) break;
    out.push(g.title, g.header);
    left -= head;
    for (const row of g.rows) {
      const need = height([row]);
      if (need > left) break;
      out.push(row);
      left -= need;
      shown++;
    }
  }
  out.push(more(pods.total - shown));
  return out;
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
