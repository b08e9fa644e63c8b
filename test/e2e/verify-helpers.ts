// The world of the `rollout verify` e2e tests (rollout-verify*.test.ts): a sandbox with Kruise's CRDs and a Kruise
// Rollout release's, CloneSet "web" of 10 released by rollout-web in steps [20% manual, 50% manual, 100%], a small
// exporter of the test serving each pod's error ratio (set per image, labelled with the pod-template-hash) and
// /health?hash=H, and a real Prometheus (Debian's, on 127.0.0.1) scraping it every second.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliCommand, kubectl, REPO_ROOT, testEnv, type RunResult } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyRolloutFixtures, startWithRolloutCrds } from './rollout-kruise-helpers';

export const PROMETHEUS = '/usr/bin/prometheus';
export const VERIFY_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'verify');
export const RO = '/apis/rollouts.kruise.io/v1beta1/namespaces/default/rollouts/rollout-web';
export const CS = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';
const PODS = '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb';
export const QUERY = 'max(app_error_ratio{pod_template_hash="{{canaryHash}}"})';

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { containers: Array<{ image: string }> };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** The CLI as a child process, its stdout readable while it runs (killed after 60 s). */
export function start(args: string[], kubeconfig: string, extraEnv: NodeJS.ProcessEnv = {}): { child: ChildProcess; result: Promise<RunResult>; stdout: () => string } {
  const [file, argv] = cliCommand(args);
  const child = spawn(file, argv, { env: { ...testEnv(kubeconfig), ...extraEnv }, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const result = new Promise<RunResult>((resolve) => child.on('close', (code, signal) => {
    clearTimeout(timer);
    resolve({ code: code ?? 128, stdout, stderr, signal });
  }));
  return { child, result, stdout: () => stdout };
}

export interface VerifyWorld {
  sb: Sandbox;
  dir: string;
  promUrl: string;
  exporterUrl: string;
  /** The error ratio the exporter reports for the pods of each image. */
  ratio: Record<string, number>;
  pods(): Promise<Pod[]>;
  /** A new release: the template's image changes, the canary's pods report `errorRatio`. */
  release(image: string, errorRatio: number): Promise<void>;
  podImages(): Promise<Record<string, number>>;
  allOn(image: string): Promise<void>;
  /** --prometheus URL --query QUERY --condition 'result < 0.05' --count 3 --interval 1s --initial-delay 2s */
  prom(): string[];
  stop(): Promise<void>;
}

/** Starts the world on the CRDs of Kruise Rollout `rolloutRelease` (v0.6.2, master), the Rollout Healthy and Prometheus scraping. */
export async function startVerifyWorld(rolloutRelease: string, sandboxArgs: string[] = []): Promise<VerifyWorld> {
  assert.ok(existsSync(PROMETHEUS), `${PROMETHEUS} is missing: scripts/test-deps.sh installs Debian's prometheus`);
  const dir = mkdtempSync(join(tmpdir(), 'kk-verify-'));
  const sb = await startWithRolloutCrds(rolloutRelease, sandboxArgs);
  const ratio: Record<string, number> = { 'nginx:1.25': 0.01 };
  const pods = async (): Promise<Pod[]> => ((await sb.api('GET', PODS)).body.items as Pod[]).filter((p) => !p.metadata.deletionTimestamp);
  const exporter: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const live = await pods();
      if (url.pathname === '/metrics') {
        const lines = ['# TYPE app_error_ratio gauge'];
        for (const p of live) lines.push(`app_error_ratio{pod="${p.metadata.name}",pod_template_hash="${p.metadata.labels?.['pod-template-hash'] ?? ''}"} ${ratio[p.spec.containers[0]!.image] ?? 0}`);
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(`${lines.join('\n')}\n`);
      } else if (url.pathname === '/health') {
        const canary = live.find((p) => p.metadata.labels?.['pod-template-hash'] === url.searchParams.get('hash'));
        const errorRate = canary ? (ratio[canary.spec.containers[0]!.image] ?? 0) : 1;
        res.writeHead(errorRate < 0.5 ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ errorRate }));
      } else res.writeHead(404).end();
    })().catch((err) => res.writeHead(500).end(String(err)));
  });
  await new Promise<void>((r) => exporter.listen(0, '127.0.0.1', () => r()));
  const exporterUrl = `http://127.0.0.1:${(exporter.address() as AddressInfo).port}`;
  const promPort = await freePort();
  const promUrl = `http://127.0.0.1:${promPort}`;
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n- job_name: web\n  static_configs:\n  - targets: ['${exporterUrl.slice('http://'.length)}']\n`);
  const prometheus = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`], { stdio: 'ignore' });
  const stop = async (): Promise<void> => {
    prometheus.kill('SIGKILL');
    exporter.close();
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await applyRolloutFixtures(sb, ['sandbox-cloneset-web-10.yaml']);
    const applied = await kubectl(['apply', '-f', join(VERIFY_FIXTURES, 'sandbox-rollout-web-verify.yaml')], sb.kubeconfig);
    assert.equal(applied.code, 0, applied.stderr);
    await waitUntil('the Rollout to be Healthy before the releases', async () => (await sb.api('GET', RO)).body.status?.phase === 'Healthy' || undefined, 20_000);
    await waitUntil('Prometheus to be ready and scraping', async () => {
      const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent('count(app_error_ratio)')}`).catch(() => undefined);
      const body = res?.ok ? ((await res.json()) as { data: { result: unknown[] } }) : undefined;
      return (body?.data.result.length ?? 0) > 0 || undefined;
    }, 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const podImages = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const p of await pods()) out[p.spec.containers[0]!.image] = (out[p.spec.containers[0]!.image] ?? 0) + 1;
    return out;
  };
  return {
    sb,
    dir,
    promUrl,
    exporterUrl,
    ratio,
    pods,
    async release(image, errorRatio) {
      ratio[image] = errorRatio;
      // A template changed while the last release is still finalising loses the webhook's in-progressing
      // mark to the finaliser and is released by nobody (unreleased-template.ts): a pipeline waits for
      // phase Healthy first, and so do the tests.
      await waitUntil('the last release finalised (phase Healthy)', async () => (await sb.api('GET', RO)).body.status?.phase === 'Healthy' || undefined, 20_000);
      const r = await sb.api('PATCH', CS, [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }], { contentType: 'application/json-patch+json' });
      assert.equal(r.status, 200, r.text);
    },
    podImages,
    async allOn(image) {
      await waitUntil(`every pod on ${image}`, async () => {
        const live = await pods();
        return (live.length === 10 && live.every((p) => p.spec.containers[0]!.image === image)) || undefined;
      }, 30_000);
    },
    prom: () => ['--prometheus', promUrl, '--query', QUERY, '--condition', 'result < 0.05', '--count', '3', '--interval', '1s', '--initial-delay', '2s'],
    stop,
  };
}
