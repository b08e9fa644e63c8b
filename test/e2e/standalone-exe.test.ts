// The standalone executable as a krew user has it: the one file copied alone into an empty folder,
// run with a PATH holding that folder and kubectl only (no node anywhere: a command that needed
// Node.js or a file beside the executable would fail), from a working folder whose .env and
// bunfig.toml try to change its settings. Runs when KUBECTL_KRUISE_BIN names the executable
// (`node scripts/run-tests.mjs --exe`).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXE, KUBECTL_BIN, REPO_ROOT } from '../helpers/cli';
import { waitUntil } from '../helpers/sandbox';

const skip = EXE ? false : 'standalone executable only: run `node scripts/run-tests.mjs --exe` (after `npm run build:exe`)';

describe('the standalone executable, alone in a folder, with no Node.js on PATH', { skip }, () => {
  const work = mkdtempSync(join(tmpdir(), 'kk-exe-alone-'));
  const exeDir = join(work, 'plugin');
  const kubectlDir = join(work, 'kubectl-only');
  const cwd = join(work, 'project');
  const home = join(work, 'home');
  const kc = join(work, 'sandbox.kubeconfig');
  const marker = join(work, 'bunfig-preload-ran');
  const PATH = `${exeDir}:${kubectlDir}`;

  /** Runs `cmd args` from the project folder; KUBECONFIG only when given. */
  function run(cmd: string, args: string[], kubeconfig?: string, input?: string): { code: number | null; stdout: string; stderr: string } {
    const env: NodeJS.ProcessEnv = { PATH, HOME: home, CI: 'true', NO_COLOR: '1', KUBECACHEDIR: join(home, '.kube', 'cache') };
    if (kubeconfig) env.KUBECONFIG = kubeconfig;
    const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 60_000, input });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  let sandbox: ReturnType<typeof spawn> | undefined;
  let sandboxOut = '';
  let sandboxExit: Promise<number | null> | undefined;

  before(async () => {
    for (const d of [exeDir, kubectlDir, cwd, home]) mkdirSync(d, { recursive: true });
    copyFileSync(EXE!, join(exeDir, 'kubectl-kruise'));
    symlinkSync(KUBECTL_BIN, join(kubectlDir, 'kubectl'));
    // What a project folder may hold. Bun executables read both by default; ours must read neither.
    writeFileSync(join(cwd, '.env'), `KUBECONFIG=${join(work, 'bogus.kubeconfig')}\n`);
    writeFileSync(join(work, 'bogus.kubeconfig'), 'apiVersion: v1\nkind: Config\nclusters: []\n');
    writeFileSync(join(cwd, 'preload.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    writeFileSync(join(cwd, 'bunfig.toml'), 'preload = ["./preload.js"]\n');

    sandbox = spawn('kubectl-kruise', ['sandbox', '--port', '0', '--kubeconfig-out', kc], {
      cwd,
      env: { PATH, HOME: home, CI: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    sandbox.stdout!.setEncoding('utf8').on('data', (d: string) => (sandboxOut += d));
    sandbox.stderr!.setEncoding('utf8').on('data', (d: string) => (sandboxOut += d));
    const child = sandbox;
    sandboxExit = new Promise((res) => child.on('exit', (code) => res(code)));
    await waitUntil("the sandbox's kubeconfig", () => existsSync(kc) && readFileSync(kc, 'utf8').includes('server: http'), 30_000).catch((err: Error) => {
      throw new Error(`${err.message}; sandbox output: ${sandboxOut}`);
    });
  });

  after(() => {
    sandbox?.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('is one file, and nothing on PATH is Node.js', () => {
    assert.deepEqual(readdirSync(exeDir), ['kubectl-kruise']);
    assert.equal(run('/bin/sh', ['-c', 'command -v node || echo none']).stdout.trim(), 'none');
  });

  it('version --client and --help, directly and through kubectl', () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const cmd of [['kubectl-kruise'], ['kubectl', 'kruise']]) {
      const v = run(cmd[0]!, [...cmd.slice(1), 'version', '--client']);
      assert.equal(v.code, 0, v.stderr);
      assert.equal(v.stdout, `Plugin Version: v${version}\n`);
      const help = run(cmd[0]!, [...cmd.slice(1), '--help']);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /\nUsage:\n {2}kubectl kruise \[flags\] \[options\]\n/);
      assert.equal(help.stderr, '');
    }
    const list = run('kubectl', ['plugin', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(list.stdout.split('\n').filter((l) => l.startsWith('/')), [join(exeDir, 'kubectl-kruise')]);
  });

  it('explain partition, offline', () => {
    const text = run('kubectl', ['kruise', 'explain', 'partition', '--replicas', '8', '--partition', '90%']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /7 pods stay at the old revision → expectedUpdatedReplicas 1/);
    const json = run('kubectl-kruise', ['explain', 'partition', '--replicas', '8', '--partition', '90%', '-o', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { replicas: number }).replicas, 8);
  });

  it('its sandbox serves a CloneSet whose `kubectl kruise rollout status` completes and whose pod `kubectl kruise exec` runs in', () => {
    const apply = run('kubectl', ['apply', '-f', '-'], kc, readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'npm-package', 'cloneset-web.yaml'), 'utf8'));
    assert.equal(apply.code, 0, apply.stderr);
    const status = run('kubectl', ['kruise', 'rollout', 'status', 'cloneset/web', '--timeout', '60s'], kc);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /cloneset "web" successfully rolled out/);
    // The embedded WebSocket library on both sides (the client's exec, the sandbox's kubelet); stdin too.
    const exec = run('kubectl', ['kruise', 'exec', '-i', 'cloneset/web', '--', 'sh', '-c', 'cat; exit 3'], kc, 'from the executable\n');
    assert.equal(exec.code, 3, exec.stderr);
    assert.equal(exec.stdout, 'from the executable\n');
    assert.match(exec.stderr, /command terminated with exit code 3\n$/);
  });

  it('ignores .env and bunfig.toml in the working folder', () => {
    // Without KUBECONFIG, a .env naming the sandbox's kubeconfig must not connect to it (Bun's .env
    // never overrides a variable that is set, so only its absence shows whether .env was read).
    writeFileSync(join(cwd, '.env'), `KUBECONFIG=${kc}\n`);
    const v = run('kubectl-kruise', ['version']);
    assert.equal(v.code, 1, v.stderr); // as kubectl version: the client part, then the error
    assert.doesNotMatch(v.stdout, /Server Version/);
    assert.match(v.stderr, /^error: could not get the server version: no kubeconfig found/m);
    const withCluster = run('kubectl-kruise', ['version'], kc);
    assert.match(withCluster.stdout, /Server Version: v\d/, 'the same command with KUBECONFIG exported reaches the sandbox');
    assert.equal(existsSync(marker), false, "bunfig.toml's preload ran");
  });

  it('stops its sandbox on SIGINT with exit 0 and removes the kubeconfig', async () => {
    sandbox!.kill('SIGINT');
    assert.equal(await sandboxExit, 0, sandboxOut);
    assert.equal(existsSync(kc), false);
  });
});
