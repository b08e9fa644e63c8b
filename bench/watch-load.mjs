// Sandbox responsiveness under watch load (not part of `npm test`): 20 label-selected pod
// watches (as `rollout status` opens them) follow the update of a 5,000-replica CloneSet while
// `kubectl get cloneset` is timed again and again; the sandbox's RSS is sampled throughout.
//
//   npm run build && node bench/watch-load.mjs            (REPLICAS=5000 WATCHERS=20 SLOW=2)
//   SANDBOX_CLI=/path/to/other/bin/kubectl-kruise node bench/watch-load.mjs   (compare a build)
//   SANDBOX_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node bench/watch-load.mjs   (profile the sandbox)
//
// SLOW watchers stop reading after their first chunk (a stuck client): kube-apiserver closes
// such a watch instead of buffering for it; the figures show whether the sandbox does too (seen
// on the socket: a paused response never emits 'end'). On loopback the kernel's buffers take tens
// of MB (tcp_rmem) before the server's queue feels the stuck reader, so a short rollout may end
// before the server's bound (8 MB) and grace period (5 s) close it.
// Only loopback traffic; every loop is bounded in time.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cloneSetYaml, kubectlBin, median } from './lib.mjs';

const REPLICAS = Number(process.env.REPLICAS ?? 5000);
const WATCHERS = Number(process.env.WATCHERS ?? 20);
const SLOW = Number(process.env.SLOW ?? 2);
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS ?? 600_000);
const sandboxCli = process.env.SANDBOX_CLI ?? cli;

const dir = mkdtempSync(join(tmpdir(), 'kk-watch-load-'));
const kubeconfig = join(dir, 'kubeconfig');
const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache'), CI: 'true', NO_COLOR: '1' };
const nodeArgs = (process.env.SANDBOX_NODE_ARGS ?? '').split(' ').filter(Boolean);
const child = spawn(process.execPath, [...nodeArgs, sandboxCli, 'sandbox', '--port=0', `--kubeconfig-out=${kubeconfig}`, '--ready-delay=50ms'], { env, stdio: ['ignore', 'ignore', 'inherit'] });

const rssMb = () => {
  try {
    const s = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return { rss: Number(/VmRSS:\s+(\d+)/.exec(s)[1]) / 1024, hwm: Number(/VmHWM:\s+(\d+)/.exec(s)[1]) / 1024 };
  } catch {
    return { rss: 0, hwm: 0 };
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Runs a command without blocking this process's event loop (the watchers keep reading). */
const exec = (args, input) =>
  new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn(kubectlBin, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? resolve({ out, ms: performance.now() - t }) : reject(new Error(`kubectl ${args.join(' ')}: ${err}`))));
    p.stdin.end(input ?? '');
  });

async function main() {
  const deadline = Date.now() + 30_000;
  while (!existsSync(kubeconfig)) {
    if (Date.now() > deadline) throw new Error('sandbox did not start');
    await sleep(10);
  }
  const server = /server: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))[1];
  const yaml = cloneSetYaml('huge', REPLICAS, '{type: InPlaceIfPossible, maxUnavailable: "20%"}');
  writeFileSync(join(dir, 'cs.yaml'), yaml);
  const tReady = performance.now();
  await exec(['apply', '-f', join(dir, 'cs.yaml')]);
  const status = async () => JSON.parse((await exec(['get', 'cloneset', 'huge', '-o', 'json'])).out).status ?? {};
  for (;;) {
    const s = await status();
    if ((s.readyReplicas ?? 0) >= REPLICAS) break;
    if (performance.now() - tReady > TIMEOUT_MS) throw new Error(`not ready: ${JSON.stringify(s)}`);
    await sleep(500);
  }
  console.log(`${REPLICAS} pods ready in ${Math.round(performance.now() - tReady)} ms; sandbox RSS ${rssMb().rss.toFixed(0)} MB`);

  // Watchers from the list's resourceVersion, like rollout status after its first read.
  const rv = JSON.parse((await exec(['get', '--raw', '/api/v1/namespaces/default/pods?labelSelector=app%3Dhuge&limit=1'])).out).metadata.resourceVersion;
  const watchers = [];
  for (let i = 0; i < WATCHERS; i++) {
    const w = { bytes: 0, events: 0, closedByServer: false, done: false, slow: i < SLOW };
    const req = http.get(`${server}/api/v1/namespaces/default/pods?labelSelector=app%3Dhuge&watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=1800`, (res) => {
      let tail = '';
      res.on('data', (d) => {
        w.bytes += d.length;
        const text = tail + d.toString('utf8');
        const parts = text.split('\n');
        tail = parts.pop();
        w.events += parts.length;
        if (w.slow) res.pause();
      });
      // A clean end or a cut connection, before this script closes the watch itself. A paused
      // response never emits 'end' while data is unread, so a stuck watcher's close shows only
      // on its socket.
      res.on('end', () => (w.closedByServer = true));
      res.on('error', () => (w.closedByServer ||= !w.done));
      res.socket.on('close', () => (w.closedByServer ||= !w.done));
    });
    req.on('error', () => {});
    w.req = req;
    watchers.push(w);
  }
  await sleep(500);

  const rssSamples = [];
  const sampler = setInterval(() => rssSamples.push(rssMb().rss), 200);
  // Probes start on a fixed clock, not one after another, so a stalled server shows in every
  // probe that waits on it: `kubectl get cloneset` each second, a raw GET of the CloneSet every 200 ms.
  const latencies = [];
  const rawLatencies = [];
  const inflight = new Set();
  const csPath = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/huge';
  const rawGet = (path) =>
    new Promise((resolve, reject) => {
      const t = performance.now();
      http
        .get(`${server}${path}`, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ body, ms: performance.now() - t }));
        })
        .on('error', reject);
    });
  const probe = (p, into) => {
    inflight.add(p);
    p.then((r) => into.push(r.ms)).catch(() => {}).finally(() => inflight.delete(p));
  };
  const tRoll = performance.now();
  await exec(['patch', 'cloneset', 'huge', '--type=merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.26"}]}}}}']);
  const kubectlProbe = setInterval(() => inflight.size < 40 && probe(exec(['get', 'cloneset', 'huge']), latencies), 1000);
  const rawProbe = setInterval(() => inflight.size < 40 && probe(rawGet(csPath), rawLatencies), 200);
  for (;;) {
    const s = JSON.parse((await rawGet(csPath)).body).status ?? {};
    if ((s.updatedReadyReplicas ?? s.updatedReplicas ?? 0) >= REPLICAS && (s.readyReplicas ?? 0) >= REPLICAS) break;
    if (performance.now() - tRoll > TIMEOUT_MS) throw new Error(`rollout not done: ${JSON.stringify(s)}`);
    await sleep(250);
  }
  clearInterval(kubectlProbe);
  clearInterval(rawProbe);
  await Promise.allSettled([...inflight]);
  const rollMs = performance.now() - tRoll;
  clearInterval(sampler);
  const mem = rssMb();
  const sorted = [...latencies].sort((a, b) => a - b);
  const fast = watchers.filter((w) => !w.slow);
  const fmt = (x) => x.toFixed(0);
  console.log(`rollout of ${REPLICAS} pods with ${WATCHERS} pod watchers (${SLOW} stuck): ${fmt(rollMs)} ms`);
  const rawSorted = [...rawLatencies].sort((a, b) => a - b);
  console.log(`kubectl get cloneset: n=${latencies.length} median ${fmt(median(latencies))} ms, p95 ${fmt(sorted[Math.floor(sorted.length * 0.95)] ?? 0)} ms, worst ${fmt(sorted[sorted.length - 1] ?? 0)} ms`);
  console.log(`raw GET of the CloneSet: n=${rawLatencies.length} median ${fmt(median(rawLatencies))} ms, p95 ${fmt(rawSorted[Math.floor(rawSorted.length * 0.95)] ?? 0)} ms, worst ${fmt(rawSorted[rawSorted.length - 1] ?? 0)} ms`);
  console.log(`sandbox RSS: peak ${fmt(mem.hwm)} MB (VmHWM), max sampled during rollout ${fmt(Math.max(...rssSamples))} MB, at end ${fmt(mem.rss)} MB`);
  console.log(`fast watchers: median ${median(fast.map((w) => w.events))} events, ${fast.filter((w) => w.closedByServer).length} closed by the server; stuck watchers closed by the server: ${watchers.filter((w) => w.slow && w.closedByServer).length}/${SLOW}`);
  for (const w of watchers) {
    w.done = true;
    w.req.destroy();
  }
}

main()
  .catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  })
  .finally(() => {
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  });
