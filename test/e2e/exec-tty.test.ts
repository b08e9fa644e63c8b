// `exec -S POD -c mesh -it -- sh` in a real terminal (tmux): raw mode, the remote prompt and echo, the
// terminal size sent at start and again when the window is resized (stty size in the container),
// Ctrl-C reaching the remote foreground command instead of killing the session, `exit 4` as the exit
// code, and the local terminal back in cooked mode afterwards. Skipped without tmux.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_BIN, kubectl, REPO_ROOT, testEnv } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const CRDS = '/work/shared/kruise-crds/v1.9.0';
const haveTmux = spawnSync('tmux', ['-V']).status === 0;
const skip = !haveTmux ? 'tmux is not installed (scripts/test-deps.sh installs it: apt-get install -y tmux)' : !existsSync(CRDS) ? `no CRDs at ${CRDS}` : false;

describe('exec -it in a terminal (tmux)', { skip }, () => {
  let sb: Sandbox;
  let pod: string;
  const session = `kk-exec-${process.pid}`;
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
  const screen = (): string => tmux('capture-pane', '-p', '-t', session);
  const paneSize = (): string => tmux('display-message', '-p', '-t', session, '#{pane_height} #{pane_width}').trim();
  const keys = (...k: string[]): void => void tmux('send-keys', '-t', session, ...k);
  // capture-pane drops the spaces at the end of a line: the prompt "/ # " reads "/ #".
  const onScreen = async (what: string, re: RegExp): Promise<void> => {
    try {
      await waitUntil(what, () => re.test(screen()) || undefined, 20_000);
    } catch (err) {
      throw new Error(`${(err as Error).message}; the screen:\n${screen()}`);
    }
  };

  before(async () => {
    sb = await startSandbox({ kruise: 'v1.9', crds: CRDS, readyDelay: '200ms' });
    for (const f of ['sidecarset/mesh-hotupgrade.yaml', 'sidecarset/workloads.yaml']) {
      const r = await kubectl(['apply', '-f', join(REPO_ROOT, 'test/fixtures', f)], sb.kubeconfig);
      assert.equal(r.code, 0, r.stderr);
    }
    pod = await waitUntil('a web pod running mesh-1', async () => {
      const items = ((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items ?? []) as Array<{ metadata: { name: string }; status?: { containerStatuses?: Array<{ name: string; state?: { running?: unknown } }> } }>;
      return items.find((p) => p.status?.containerStatuses?.find((s) => s.name === 'mesh-1')?.state?.running)?.metadata.name;
    }, 30_000);
  });
  after(async () => {
    spawnSync('tmux', ['-L', session, 'kill-server']);
    await sb?.stop();
  });

  it('a remote shell in the working sidecar: prompt, size and resize, Ctrl-C, exit code, the terminal restored', async () => {
    const env = { ...testEnv(sb.kubeconfig), LANG: 'C.UTF-8', TERM: 'xterm-256color' };
    const exports = Object.entries(env)
      .filter(([k, v]) => v !== undefined && /^[A-Z_][A-Z0-9_]*$/.test(k))
      .map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'`)
      .join('\n');
    const script = join(sb.dir, 'exec-it.sh');
    writeFileSync(script, `${exports}\n'${CLI_BIN}' exec -S ${pod} -c mesh -it -- sh\necho "EXIT=$?"\nstty -a | grep -o -- '-*icanon' | sed 's/^/MODE=/'\nsleep 60\n`);
    tmux('-u', 'new-session', '-d', '-s', session, '-x', '120', '-y', '40', `bash ${script}`);

    await onScreen('the remote prompt', /^\/ #$/m);
    assert.match(screen(), /Using container "mesh-1", the working one of hot-upgrade sidecar "mesh" \(sidecarset mesh\)/);
    keys('printenv SIDECARSET_VERSION HOSTNAME', 'Enter');
    await onScreen('the version and hostname', new RegExp(`^1\\n${pod}\\n/ #$`, 'm'));

    keys('stty size', 'Enter');
    const [rows, cols] = paneSize().split(' ');
    await onScreen('the initial size', new RegExp(`^${rows} ${cols}$`, 'm'));
    tmux('resize-window', '-t', session, '-x', '90', '-y', '30');
    const resized = await waitUntil('the pane resized', () => (paneSize() !== `${rows} ${cols}` ? paneSize() : undefined));
    keys('clear-not-a-command', 'Enter'); // a line between the two sizes on screen
    // Typed ahead of the prompt, "stty size" would be echoed early and its answer land after "/ # ".
    await onScreen('the remote shell answering', /^sh: clear-not-a-command: not found\n\/ #$/m);
    keys('stty size', 'Enter');
    await onScreen('the new size', new RegExp(`^${resized}$`, 'm'));

    keys('sleep 30', 'Enter');
    await onScreen('sleep running', /^\/ # sleep 30$/m);
    keys('C-c');
    await onScreen('Ctrl-C stops the remote sleep, the session goes on', /^\/ # sleep 30\n\^C\n\/ #$/m);
    keys('exit 4', 'Enter');
    await onScreen('the exit code', /^EXIT=4$/m);
    assert.match(screen(), /command terminated with exit code 4/);
    await onScreen('the local terminal back in canonical mode', /^MODE=icanon$/m);
    assert.match(screen(), /sh: clear-not-a-command: not found/);
  });
});
