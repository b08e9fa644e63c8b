// `describe rollout -w` in a real terminal (tmux): the view is redrawn in place (one "Name:" line in the
// whole scrollback, however many changes), the step marker moves between captures, and the command
// ends by itself with exit 0 when the release completes. Skipped when tmux is not installed
// (scripts/test-deps.sh installs it).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_BIN, testEnv } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { haveRealCrds, webCanaryPausedAtStep1, writeRolloutStatus, type CanaryRevisions } from './describe-rollout-helpers';
import { startWithRolloutCrds } from './rollout-kruise-helpers';

const haveTmux = spawnSync('tmux', ['-V']).status === 0;
const skip = !haveTmux ? 'tmux is not installed (scripts/test-deps.sh installs it: apt-get install -y tmux)' : !haveRealCrds ? 'no ../shared CRDs' : false;

describe('describe rollout -w in a terminal (tmux)', { skip }, () => {
  let sb: Sandbox;
  let rev: CanaryRevisions;
  const session = `kk-describe-${process.pid}`;
  // A private tmux server: the test never touches the developer's sessions.
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
  const screen = (target = session): string => tmux('capture-pane', '-p', '-t', target);
  const scrollback = (): string => tmux('capture-pane', '-p', '-S', '-', '-t', session);

  /** A shell script running `command` with the sandbox's environment (plus `extra`, undefined removes). */
  const script = (name: string, command: string, extra: Record<string, string | undefined> = {}): string => {
    const env = { ...testEnv(sb.kubeconfig, extra), LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm-256color' };
    const exports = Object.entries(env)
      .filter(([k, v]) => v !== undefined && /^[A-Z_][A-Z0-9_]*$/.test(k))
      .map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'`)
      .join('\n');
    // The tmux server inherits this process's environment (CI=true under CI): unset what `extra` removes.
    const unsets = Object.entries(extra)
      .filter(([, v]) => v === undefined)
      .map(([k]) => `unset ${k}`)
      .join('\n');
    const file = join(sb.dir, `${name}.sh`);
    writeFileSync(file, `${exports}\n${unsets}\n${command}\necho "EXIT=$?"\nsleep 60\n`);
    return file;
  };

  before(async () => {
    sb = await startWithRolloutCrds('v0.6.2');
    rev = await webCanaryPausedAtStep1(sb);
  });
  after(async () => {
    spawnSync('tmux', ['-L', session, 'kill-server']);
    await sb?.stop();
  });

  it('redraws in place, the step marker moves, exits 0 by itself at completion', async () => {
    tmux('-u', 'new-session', '-d', '-s', session, '-x', '200', '-y', '60', `bash ${script('describe-w', `'${CLI_BIN}' describe rollout rollout-web -w`)}`);

    const marker = (step: number) => new RegExp(`^\\s+▶\\s+${step}\\s`, 'm');
    await waitUntil('step 1 marked current on the screen', () => marker(1).test(screen()), 20_000);
    assert.match(screen(), /waiting for approval: kubectl kruise rollout approve rollout\/rollout-web/);

    await writeRolloutStatus(sb, 'v1beta1', rev, { step: 2, state: 'StepPaused', canaryReplicas: 4 });
    await waitUntil('the marker moves to step 2', () => marker(2).test(screen()), 20_000);
    const atStep2 = screen();
    assert.match(atStep2, /^\s+✔\s+1\s/m);
    assert.doesNotMatch(atStep2, marker(1));

    await writeRolloutStatus(sb, 'v1beta1', rev, { step: 3, state: 'Completed', canaryReplicas: 8, phase: 'Healthy', succeeded: 'True', message: 'Rollout progressing has been completed' });
    const end = await waitUntil('the command exits by itself', () => /EXIT=(\d+)/.exec(screen()), 20_000);
    assert.equal(end[1], '0');
    const all = scrollback();
    assert.match(all, /^Status:\s+Complete$/m);
    // Redrawn in place: one view on the terminal, not one per change.
    assert.equal(all.match(/^Name:/gm)?.length, 1, all);
  });

  it('a Rollout at rest is watched for its next release; Ctrl-C ends the watch cleanly (exit 130)', async () => {
    const win = `${session}:rest`;
    tmux('new-window', '-t', session, '-n', 'rest', `bash ${script('describe-w-rest', `'${CLI_BIN}' describe rollout rollout-web -w`)}`);
    await waitUntil('the completed release on the screen', () => /^Status:\s+Complete$/m.test(screen(win)), 20_000);
    // Still watching: the pods' ages move on the screen (redrawn by the clock), and it has not ended.
    const first = screen(win);
    await waitUntil('a redraw by the clock', () => screen(win) !== first, 10_000);
    assert.doesNotMatch(screen(win), /EXIT=/);
    tmux('send-keys', '-t', win, 'C-c');
    const end = await waitUntil('the command ends on Ctrl-C', () => /EXIT=(\d+)/.exec(screen(win)), 10_000);
    assert.equal(end[1], '130');
    assert.match(screen(win), /^interrupted$/m);
  });

  it('at 80×24: the header and every step stay on the screen, the pods are shortened, redraws stay in place; Ctrl-C leaves the whole last view', async () => {
    const small = `${session}-small`;
    tmux('-u', 'new-session', '-d', '-s', small, '-x', '80', '-y', '24', `bash ${script('describe-w-small', `'${CLI_BIN}' describe rollout rollout-web -w`)}`);
    const podRows = (text: string): number => text.match(/^ {4}web-\S+\s+(?:yes|no)\s/gm)?.length ?? 0;
    await waitUntil('the fitted frame on the screen', () => /^Steps:$/m.test(screen(small)), 20_000);
    const fitted = screen(small);
    // The header and the whole Steps table; the pods cut to what fits, never the steps.
    assert.match(fitted, /^Name:\s+rollout-web$/m);
    assert.match(fitted, /^Status:\s+Complete$/m);
    const steps = fitted.slice(fitted.indexOf('Steps:\n')).split('\n').slice(2).filter((l) => /^ {2}\S\s+\d+\s/.test(l));
    assert.ok(steps.length >= 2 && steps.every((l) => l.startsWith('  ✔')), fitted);
    assert.ok(podRows(fitted) < 8, fitted);
    assert.match(fitted, /^(?:Pods: canary \d+\/\d+, stable \d+\/\d+ ready|  \.\.\. \d+ more pods?) \(a taller terminal shows them\)$/m);
    assert.doesNotMatch(fitted, /more lines/);
    assert.ok(fitted.split('\n').every((l) => [...l].length <= 80), fitted);
    // Three changes of the Rollout's message, each redrawn; then the scrollback still holds no earlier frame.
    for (let i = 1; i <= 3; i++) {
      await writeRolloutStatus(sb, 'v1beta1', rev, { step: 3, state: 'Completed', canaryReplicas: 8, phase: 'Healthy', succeeded: 'True', message: `Rollout progressing has been completed (${i})` });
      await waitUntil(`redraw ${i}`, () => screen(small).includes(`completed (${i})`), 10_000);
    }
    assert.equal(tmux('capture-pane', '-p', '-S', '-', '-t', small).match(/^Name:/gm)?.length, 1);
    tmux('send-keys', '-t', small, 'C-c');
    await waitUntil('the command ends on Ctrl-C', () => /EXIT=130/.test(screen(small)), 10_000);
    // The last view whole: every pod and the conditions, once.
    const all = tmux('capture-pane', '-p', '-S', '-', '-t', small);
    assert.equal(all.match(/^Name:/gm)?.length, 1, all);
    assert.equal(podRows(all), 8, all);
    assert.match(all, /^Conditions:\n\s+TYPE\s+STATUS/m);
    assert.match(all, /^interrupted$/m);
  });

  it('colours on the terminal only: with stdout redirected to a file (stderr still a terminal) the text is plain', async () => {
    const out = join(sb.dir, 'describe.txt');
    const colour = { CI: undefined, NO_COLOR: undefined };
    tmux('new-window', '-t', session, '-n', 'colour', `bash ${script('colour', `'${CLI_BIN}' describe rollout rollout-web > '${out}'`, colour)}`);
    await waitUntil('the redirected describe', () => /EXIT=0/.test(screen(`${session}:colour`)), 20_000);
    const text = readFileSync(out, 'utf8');
    assert.match(text, /^Status:\s+Complete$/m);
    assert.doesNotMatch(text, /\x1b\[/);
    tmux('new-window', '-t', session, '-n', 'tty', `bash ${script('tty', `'${CLI_BIN}' describe rollout rollout-web`, colour)}`);
    await waitUntil('the describe on the terminal', () => /EXIT=0/.test(screen(`${session}:tty`)), 20_000);
    // capture-pane -e keeps the colour escapes: the status is coloured on the terminal.
    assert.match(tmux('capture-pane', '-p', '-e', '-t', `${session}:tty`), /Status:\s+\x1b\[32mComplete/);
  });
});
