// The `sandbox` command itself: flag validation (exit 2, nothing started), the printed
// instructions, the kubeconfig written when ready and removed on exit, clean exit 0 on SIGINT.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliCommand, kubectl, REPO_ROOT, runCli, testEnv } from '../helpers/cli';
import { startSandbox, waitUntil } from '../helpers/sandbox';

describe('kubectl-kruise sandbox', () => {
  const bad: Array<[string[], RegExp]> = [
    [['--kruise', 'v2.0'], /invalid value "v2\.0" for --kruise: use v1\.3, v1\.8, v1\.9 or master/],
    [['--port', '70000'], /invalid value "70000" for --port/],
    [['--nodes', 'three'], /invalid value "three" for --nodes/],
    [['--ready-delay', 'soon'], /invalid argument "soon" for "--ready-delay" flag: time: invalid duration "soon"/],
    [['--crash-backoff', 'slow'], /invalid value "slow" for --crash-backoff: use kubelet, fast or a duration such as 1s/],
    [['--crash-backoff', '0s'], /invalid value "0s" for --crash-backoff: a duration must be at least 1ms/],
    [['--crds', '/nonexistent/folder'], /--crds \/nonexistent\/folder: not a folder/],
    [['--crds', join(REPO_ROOT, 'test', 'fixtures', 'sandbox', 'not-crds')], /--crds \S+not-crds: no CustomResourceDefinition found/],
    [['--faults', '/nonexistent.yaml'], /--faults \/nonexistent\.yaml: no such file/],
    [['extra-arg'], /too many arguments for 'sandbox'/],
    [['--tls-san', 'api.example.com'], /--tls-san needs --tls/],
    [['--require-client-cert'], /--require-client-cert needs --tls/],
    [['--token-user', 'ci'], /--token-user needs --tls/],
    [['--tls', '--token-user', 'viewer'], /invalid value "viewer" for --token-user: a lowercase name/],
    [['--tls', '--tls-san', 'not a name'], /invalid value "not a name" for --tls-san: must be a DNS name or an IP address/],
  ];
  for (const [args, message] of bad) {
    it(`exits 2 on ${args.join(' ')}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kk-sbcmd-'));
      try {
        const res = await runCli(['sandbox', '--kubeconfig-out', join(dir, 'kc'), ...args], { timeoutMs: 10_000 });
        assert.equal(res.code, 2, res.stderr);
        assert.match(res.stderr, /^error: /);
        assert.match(res.stderr, message);
        assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
        assert.equal(existsSync(join(dir, 'kc')), false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('rejects a faults file with an unknown key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kk-sbcmd-'));
    try {
      writeFileSync(join(dir, 'faults.yaml'), 'latencyMs: 10\nflakiness: 3\n');
      const res = await runCli(['sandbox', '--kubeconfig-out', join(dir, 'kc'), '--faults', join(dir, 'faults.yaml')]);
      assert.equal(res.code, 2);
      assert.match(res.stderr, /unknown key "flakiness"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints how to use it, writes the kubeconfig when ready, and exits 0 on SIGINT removing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kk-sbcmd-'));
    const kc = join(dir, 'sandbox.kubeconfig');
    writeFileSync(kc, 'stale: true\n');
    const child = spawn(...cliCommand(['sandbox', '--port', '0', '--kubeconfig-out', kc, '--nodes', '2']), { cwd: REPO_ROOT, env: testEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    try {
      await waitUntil('kubeconfig written', () => existsSync(kc) && readFileSync(kc, 'utf8').includes('server: http'));
      const nodes = await kubectl(['get', 'nodes', '-o', 'name'], kc);
      assert.equal(nodes.code, 0, nodes.stderr);
      assert.deepEqual(nodes.stdout.trim().split('\n'), ['node/node-1', 'node/node-2']);
      await waitUntil('instructions printed', () => out.includes('Press Ctrl-C to stop.'));
      assert.match(out, new RegExp(`export KUBECONFIG=${kc.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
      child.kill('SIGINT');
      assert.equal(await exited, 0);
      assert.equal(existsSync(kc), false, 'the kubeconfig of a stopped sandbox is removed');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--tour (npm run demo) walks a CloneSet through a partitioned rollout and a rollback, a Kruise Rollout canary, a migration from a Deployment and a BroadcastJob', async () => {
    const res = await runCli(['sandbox', '--tour'], { timeoutMs: 90_000 });
    assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
    assert.match(res.stdout, /\$ kubectl kruise set image cloneset\/web nginx=nginx:1\.25\.4/);
    assert.match(res.stdout, /1 of 8 pods updated \(7 kept at the old revision by the partition\)/);
    assert.match(res.stdout, /\$ kubectl patch cloneset web --type merge -p '\{"spec":\{"updateStrategy":\{"partition":0\}\}\}'/);
    assert.match(res.stdout, /rolled back/);
    // The Kruise Rollout part: stopped at the canary step waiting for approval, approved, completed.
    assert.match(res.stdout, /rollout\.rollouts\.kruise\.io\/rollout-web created/);
    assert.match(res.stdout, /is waiting for approval at step 1\/2 \(2 of 2 canary pods ready\)/);
    assert.match(res.stdout, /rollout\.rollouts\.kruise\.io\/rollout-web approved/);
    assert.match(res.stdout, /rollout "rollout-web" successfully rolled out/);
    // Then a Deployment moved into a CloneSet, and a BroadcastJob awaited on every node of the sandbox.
    assert.match(res.stdout, /deployment\/api moved to cloneset\/api: 4 pods/);
    assert.match(res.stdout, /broadcastjob "warm-cache" completed: 3 of 3 pods succeeded\n\nTour finished/);
  });

  it('imitates the chosen Kruise release in discovery', async () => {
    for (const [release, version] of [['v1.3', 'v1alpha1'], ['master', 'v1beta1']] as const) {
      const sb = await startSandbox({ kruise: release });
      try {
        const res = await kubectl(['api-resources', '--api-group', 'apps.kruise.io', '--no-headers'], sb.kubeconfig);
        assert.match(res.stdout, new RegExp(`clonesets\\s+clone\\s+apps\\.kruise\\.io/${version}\\s`));
        if (release === 'v1.3') assert.doesNotMatch(res.stdout, /imagelistpulljobs/);
      } finally {
        await sb.stop();
      }
    }
  });
});
