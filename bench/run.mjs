// `npm run bench`: startup and API commands of every form (npm form on the system Node and on Node 26,
// the standalone executable) vs kubectl, the same with 20 ms per request, requests per command, Kruise
// Rollout commands, scale, a release-level gate of 40 workloads, the executable's size and reproducibility,
// and the candidates for its runtime.
// Prints each figure next to its budget and exits 1 when any budget is missed.
// Sections can be picked: `node bench/run.mjs startup requests` (default: all).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostBun } from '../scripts/build-exe.mjs';
import { buildSeaCandidates } from './candidates.mjs';
import { ACTIVE_REPLICAS, BUDGET as GATE_BUDGET, FINISHED_REPLICAS, measureGateMemory, summarize as summarizeGate } from './rollout-status-memory.mjs';
import { cli, cloneSetYaml as cloneSetYamlOf, root, kubectlBin, wallMs, wallMsInterleaved, peakMb, peakMbOf, startSandbox, run, waitFor, isDiscovery, median, FORMS, chain, exe } from './lib.mjs';

const wanted = new Set(process.argv.slice(2));
const want = (s) => wanted.size === 0 || wanted.has(s);
// `npm run bench` builds both forms first; a single section run builds what is missing.
if (!existsSync(cli.replace(/bin\/kubectl-kruise$/, 'dist/cli.cjs'))) run('npm', ['run', 'build'], process.env);
if (!existsSync(exe)) run('npm', ['run', 'build:exe'], process.env);
const results = [];
function report(name, value, unit, budget, ok, detail = '') {
  results.push({ name, value, unit, budget, ok });
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${name.padEnd(70)} ${String(value).padStart(9)} ${unit.padEnd(6)} budget ${budget}${detail ? `  (${detail})` : ''}`);
}
const r2 = (x) => Math.round(x * 100) / 100;
const writes = (entries) => entries.filter((e) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb));
const reads = (entries) => entries.filter((e) => (e.verb === 'get' || e.verb === 'list') && !isDiscovery(e));

// Every CloneSet of this bench keeps up to 200 revisions (the history figure needs 100).
const cloneSetYaml = (name, replicas, strategy) => cloneSetYamlOf(name, replicas, strategy, { revisionHistoryLimit: 200 });
function deploymentYaml(name) {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: app, image: "nginx:1.25"}]
`;
}
async function applyYaml(sb, yaml) {
  const f = join(sb.dir, `obj-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(f, yaml);
  run(kubectlBin, ['apply', '-f', f], sb.env);
}
const jsonOf = (sb, args) => JSON.parse(run(kubectlBin, [...args, '-o', 'json'], sb.env));
async function waitReady(sb, kind, name, replicas, timeoutMs = 120_000) {
  await waitFor(`${kind}/${name} ready`, () => {
    const o = jsonOf(sb, ['get', kind, name]);
    return (o.status?.readyReplicas ?? 0) >= replicas && (o.status?.updatedReplicas ?? 0) >= replicas;
  }, timeoutMs);
}

if (want('startup')) {
  console.log('\n# 1. Startup of every form (whole process, median of 21 runs, all interleaved with `node -e 0` and `kubectl version --client`)');
  const commands = [['--help'], ['version', '--client'], ['explain', 'partition', '--replicas', '8', '--partition', '90%']];
  const kubectlVersion = [kubectlBin, ['version', '--client']];
  const runs = FORMS.flatMap((f) => commands.map((args) => f.argv(args)));
  const [base, kv, ...times] = wallMsInterleaved([[process.execPath, ['-e', '0']], kubectlVersion, ...runs], { runs: 21 });
  const baseMem = peakMb(process.execPath, ['-e', '0']);
  const kvMem = peakMb(...kubectlVersion);
  console.log(`      node -e 0 (${process.version}): ${r2(base)} ms, ${r2(baseMem)} MB; kubectl version --client: ${r2(kv)} ms, ${r2(kvMem)} MB`);
  FORMS.forEach((f, fi) =>
    commands.forEach((args, ci) => {
      const t = times[fi * commands.length + ci];
      const m = peakMb(...f.argv(args));
      const name = `${f.key} ${args.slice(0, 2).join(' ')}`;
      if (f.key === 'node20') {
        // The npm form on the system Node: its own cost on top of Node's start.
        report(`${name}: time vs node -e 0`, r2(t / base), 'x', '<= 1.3x', t / base <= 1.3, `${r2(t)} ms; ${r2(t / kv)}x kubectl version`);
        report(`${name}: peak memory vs node -e 0`, r2(m / baseMem), 'x', '<= 1.3x', m / baseMem <= 1.3, `${r2(m)} MB`);
      } else if (f.key === 'exe') {
        report(`${name}: time vs kubectl version --client`, r2(t / kv), 'x', '<= 0.5x', t / kv <= 0.5, `${r2(t)} ms vs ${r2(kv)} ms`);
        report(`${name}: peak memory vs kubectl version --client`, r2(m / kvMem), 'x', '<= 1.0x', m <= kvMem, `${r2(m)} MB vs ${r2(kvMem)} MB`);
      } else {
        report(`${name}: time vs kubectl version --client`, r2(t / kv), 'x', '(reported)', true, `${r2(t)} ms, ${r2(m)} MB`);
      }
    }),
  );
}

/** Deployment `name` and, if given, CloneSet x, applied and waited for until ready. */
async function apiObjects(sb, deployments, cloneSet = true) {
  if (cloneSet) await applyYaml(sb, cloneSetYaml('x', 2));
  for (const d of deployments) await applyYaml(sb, deploymentYaml(d));
  if (cloneSet) await waitReady(sb, 'cloneset', 'x', 2);
  for (const d of deployments) await waitReady(sb, 'deployment', d, 2);
  // Warm every form's discovery cache (all share KUBECACHEDIR) and kubectl's.
  for (const f of FORMS) {
    run(...f.argv(['rollout', 'status', `deployment/${deployments[0]}`]), sb.env);
    if (cloneSet) run(...f.argv(['rollout', 'status', 'cloneset/x']), sb.env);
  }
  run(kubectlBin, ['get', 'deployment', deployments[0]], sb.env);
  if (cloneSet) run(kubectlBin, ['get', 'cloneset', 'x'], sb.env);
}
// The API commands of the budgets, per form and for kubectl (the command a user would type instead).
// Pairs alternate between two states, so that every round does the same work.
const setImage = (argvOf, d) => [argvOf(['set', 'image', `deployment/${d}`, 'app=nginx:1.26']), argvOf(['set', 'image', `deployment/${d}`, 'app=nginx:1.25'])];

if (want('api') || want('requests')) {
  const sb = await startSandbox(['--ready-delay=50ms']);
  try {
    await apiObjects(sb, ['d', 'di']);

    if (want('api')) {
      console.log('\n# 2. API commands of every form vs kubectl on the same sandbox (median of 15, all interleaved)');
      const server = /server: (\S+)/.exec(readFileSync(sb.env.KUBECONFIG, 'utf8'))[1];
      const floor = (paused) => [process.execPath, [join(root, 'bench', 'node-floor.cjs'), server, 'default', 'x', paused]];
      const pauseResume = (argvOf) => [argvOf(['rollout', 'pause', 'cloneset/x']), argvOf(['rollout', 'resume', 'cloneset/x'])];
      const kubectlOf = (args) => [kubectlBin, args];
      const ours = FORMS.map((f) => ({
        pause: chain(pauseResume(f.argv), sb.env),
        status: [...f.argv(['rollout', 'status', 'deployment/d']), sb.env],
        image: chain(setImage(f.argv, 'di'), sb.env),
      }));
      const theirs = {
        pause: chain(['true', 'false'].map((p) => kubectlOf(['patch', 'cloneset', 'x', '--type', 'merge', '-p', `{"spec":{"updateStrategy":{"paused":${p}}}}`])), sb.env),
        status: [kubectlBin, ['rollout', 'status', 'deployment/d'], sb.env],
        image: chain(setImage(kubectlOf, 'di'), sb.env),
      };
      const figures = ['pause', 'status', 'image'];
      const title = { pause: 'rollout pause+resume cloneset vs kubectl patch x2', status: 'rollout status deployment (finished) vs kubectl', image: 'set image deployment x2 vs kubectl set image x2' };
      const all = [...ours.flatMap((o) => figures.map((k) => o[k])), ...figures.map((k) => theirs[k]), chain([[process.execPath, ['-e', '0']], [process.execPath, ['-e', '0']]], sb.env), chain([floor('true'), floor('false')], sb.env)];
      const times = wallMsInterleaved(all);
      const [base, bare] = times.slice(-2);
      const theirMs = Object.fromEntries(figures.map((k, i) => [k, times[FORMS.length * figures.length + i]]));
      const theirMb = Object.fromEntries(figures.map((k) => [k, peakMbOf(theirs[k])]));
      FORMS.forEach((f, fi) =>
        figures.forEach((k, ki) => {
          const t = times[fi * figures.length + ki];
          const ratio = t / theirMs[k];
          const detail = `${r2(t)} ms vs ${r2(theirMs[k])} ms`;
          if (f.key === 'exe') {
            report(`exe ${title[k]}`, r2(ratio), 'x', '<= 0.8x', ratio <= 0.8, detail);
            const m = peakMbOf(ours[fi][k]);
            report(`exe ${k}: peak memory vs kubectl's`, r2(m / theirMb[k]), 'x', '<= 1.0x', m <= theirMb[k], `${r2(m)} MB vs ${r2(theirMb[k])} MB`);
          } else if (f.key === 'node26') {
            report(`node26 ${title[k]}`, r2(ratio), 'x', '<= 1.0x', ratio <= 1.0, detail);
          } else {
            // Node 20 starts slower than a whole kubectl patch: held to the bare node:http script (GET+PATCH
            // per process, bench/node-floor.cjs) instead, which a finished rollout status (one process, one
            // list) is held to half of.
            const fl = k === 'status' ? bare / 2 : bare;
            report(`node20 ${title[k].replace(/ vs .*/, '')} vs node:http floor`, r2(t / fl), 'x', '<= 1.15x', t / fl <= 1.15, `${r2(t)} ms vs ${r2(fl)} ms; ${r2(ratio)}x kubectl`);
          }
        }),
      );
      // What Node.js itself costs, measured in the same rounds (see bench/node-floor.cjs).
      console.log(`      reference: node -e 0 twice = ${r2(base)} ms (${r2(base / theirMs.pause)}x the two kubectl patches);`);
      console.log(`      a bare node:http GET+PATCH script twice = ${r2(bare)} ms (${r2(bare / theirMs.pause)}x): the floor for any Node.js ${process.version} CLI here`);
    }

    if (want('requests')) {
      console.log('\n# 3. Requests per command (sandbox audit log, warm discovery cache)');
      const count = (args) => {
        const mark = sb.mark();
        run(cli, args, sb.env);
        const entries = sb.since(mark);
        return { entries, w: writes(entries).length, r: reads(entries).length, d: entries.filter(isDiscovery).length, watches: entries.filter((e) => e.verb === 'watch').length };
      };
      let c = count(['set', 'image', 'cloneset/x', 'app=nginx:1.26']);
      report('set image: writes', c.w, 'req', '== 1', c.w === 1);
      report('set image: reads', c.r, 'req', '<= 1', c.r <= 1);
      report('set image: discovery requests', c.d, 'req', '== 0', c.d === 0);
      c = count(['rollout', 'pause', 'cloneset/x']);
      report('rollout pause: writes', c.w, 'req', '== 1', c.w === 1);
      report('rollout pause: reads', c.r, 'req', '<= 1', c.r <= 1);
      report('rollout pause: discovery requests', c.d, 'req', '== 0', c.d === 0);
      run(cli, ['rollout', 'resume', 'cloneset/x'], sb.env);
      await waitReady(sb, 'cloneset', 'x', 2);
      run(cli, ['rollout', 'status', 'cloneset/x'], sb.env);
      c = count(['rollout', 'status', 'cloneset/x']);
      report('rollout status (finished): requests besides watches', c.r + c.w, 'req', '<= 2', c.r + c.w <= 2, `${c.watches} watch`);
      report('rollout status (finished): discovery requests', c.d, 'req', '== 0', c.d === 0);
    }
  } finally {
    await sb.stop();
  }
}

if (want('latency')) {
  // Over a slow link round trips decide, not start-up: 20 ms added to every resource request by the
  // sandbox (--faults latencyMs), and the requests each tool sends counted from the same audit log.
  console.log('\n# 3b. With 20 ms per request (sandbox --faults latencyMs: 20): every form vs kubectl (median of 9, interleaved), round trips from the audit log');
  const faults = join(mkdtempSync(join(tmpdir(), 'kk-bench-faults-')), 'faults.yaml');
  writeFileSync(faults, 'latencyMs: 20\n');
  const sb = await startSandbox(['--ready-delay=50ms', `--faults=${faults}`]);
  try {
    await apiObjects(sb, ['d', 'di', 'dp'], false);
    const kubectlOf = (args) => [kubectlBin, args];
    const pauseResume = (argvOf) => [argvOf(['rollout', 'pause', 'deployment/dp']), argvOf(['rollout', 'resume', 'deployment/dp'])];
    const status = (argvOf) => [argvOf(['rollout', 'status', 'deployment/d'])];
    const figures = { image: (a) => setImage(a, 'di'), pause: pauseResume, status };
    const title = { image: 'set image deployment x2', pause: 'rollout pause+resume deployment', status: 'rollout status deployment (finished)' };
    const tools = [...FORMS.map((f) => ({ key: f.key, argv: f.argv })), { key: 'kubectl', argv: kubectlOf }];
    // Requests per command, each run alone (watches and discovery included: every one is a round trip).
    const requests = (commands) => {
      const mark = sb.mark();
      for (const [cmd, args] of commands) run(cmd, args, sb.env);
      const entries = sb.since(mark);
      return { n: entries.length, what: [...new Set(entries.map((e) => `${e.verb}${e.path.includes('/rollouts') ? ' rollouts' : ''}`))].join(',') };
    };
    const counts = Object.fromEntries(Object.entries(figures).map(([k, cmds]) => [k, Object.fromEntries(tools.map((t) => [t.key, requests(cmds(t.argv))]))]));
    const keys = Object.keys(figures);
    const times = wallMsInterleaved(tools.flatMap((t) => keys.map((k) => chain(figures[k](t.argv), sb.env))), { runs: 9 });
    const ms = (ti, ki) => times[ti * keys.length + ki];
    const kt = tools.length - 1;
    keys.forEach((k, ki) => {
      const theirs = counts[k].kubectl;
      tools.slice(0, -1).forEach((t, ti) => {
        const ratio = ms(ti, ki) / ms(kt, ki);
        const budgeted = t.key !== 'node20';
        report(`20ms ${t.key} ${title[k]} vs kubectl`, r2(ratio), 'x', budgeted ? '<= 1.0x' : '(reported)', !budgeted || ratio <= 1.0, `${r2(ms(ti, ki))} ms vs ${r2(ms(kt, ki))} ms`);
      });
      const ours = counts[k].exe;
      report(`20ms ${title[k]}: round trips, ours vs kubectl's`, `${ours.n} vs ${theirs.n}`, 'req', "<= kubectl's", tools.slice(0, -1).every((t) => counts[k][t.key].n <= theirs.n), `ours ${ours.what}; kubectl ${theirs.what}`);
    });
  } finally {
    await sb.stop();
  }
}

if (want('exe')) {
  console.log('\n# 6. The executable: size, reproducible build');
  const sha = () => createHash('sha256').update(readFileSync(exe)).digest('hex');
  const first = sha();
  report('executable size (linux-x64)', r2(statSync(exe).size / 1e6), 'MB', '(reported)', true, `Bun runtime ${r2(statSync(hostBun()).size / 1e6)} MB of it`);
  run('npm', ['run', '--silent', 'build:exe'], process.env);
  const second = sha();
  report('build:exe twice: same sha256', first === second ? 'same' : 'differs', '', 'same', first === second, `${second.slice(0, 16)}...`);
}

if (want('candidates')) {
  // Reported, not budgeted: why the executable is built with Bun (bench/candidates.mjs).
  console.log('\n# 7. Candidates for the executable, same bundle (median of 15, interleaved; peak memory median of 5)');
  const dir = mkdtempSync(join(tmpdir(), 'kk-bench-sea-'));
  const built = await buildSeaCandidates(dir);
  for (const c of built) if (c.error) report(`${c.name}: build`, 'failed', '', '(reported)', true, c.error);
  const candidates = [{ name: 'bun (dist/exe)', file: exe }, ...built.filter((c) => c.file)];
  const sb = await startSandbox(['--ready-delay=50ms']);
  try {
    await apiObjects(sb, ['d'], false);
    for (const c of candidates) run(c.file, ['rollout', 'status', 'deployment/d'], sb.env);
    const commands = [['--help'], ['version', '--client'], ['explain', 'partition', '--replicas', '8', '--partition', '90%'], ['rollout', 'status', 'deployment/d']];
    const times = wallMsInterleaved([...candidates.flatMap((c) => commands.map((args) => [c.file, args, sb.env])), [kubectlBin, ['version', '--client'], sb.env], [kubectlBin, ['rollout', 'status', 'deployment/d'], sb.env]]);
    const [kv, ks] = times.slice(-2);
    console.log(`      kubectl: version --client ${r2(kv)} ms, rollout status ${r2(ks)} ms, ${r2(peakMb(kubectlBin, ['rollout', 'status', 'deployment/d'], { env: sb.env }))} MB`);
    candidates.forEach((c, ci) => {
      const t = commands.map((_, k) => r2(times[ci * commands.length + k]));
      const mem = [peakMb(c.file, ['version', '--client'], { env: sb.env }), peakMb(c.file, ['rollout', 'status', 'deployment/d'], { env: sb.env })].map(r2);
      report(`${c.name}: --help / version / explain / rollout status`, t.join(' / '), 'ms', '(reported)', true, `${r2(t[1] / kv)}x kubectl version, status ${r2(t[3] / ks)}x`);
      report(`${c.name}: size; peak memory version / rollout status`, r2(statSync(c.file).size / 1e6), 'MB', '(reported)', true, `${mem.join(' / ')} MB`);
    });
  } finally {
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (want('rollouts')) {
  // Kruise Rollout commands (issue #15): requests each one sends (audit log, warm discovery cache) and
  // time against the kubectl command a user would type instead, on a release paused for approval.
  console.log('\n# 4. Kruise Rollout commands (sandbox audit log; median of 15 interleaved with kubectl)');
  const sb = await startSandbox(['--ready-delay=50ms']);
  try {
    await applyYaml(sb, cloneSetYaml('web', 10, '{type: ReCreate}'));
    await applyYaml(sb, `apiVersion: rollouts.kruise.io/v1beta1
kind: Rollout
metadata: {name: rollout-web}
spec:
  workloadRef: {apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet, name: web}
  strategy:
    canary:
      steps: [{replicas: 20%, pause: {}}, {replicas: 50%, pause: {}}, {replicas: 100%}]
`);
    await waitReady(sb, 'cloneset', 'web', 10);
    await waitFor('rollout Healthy', () => jsonOf(sb, ['get', 'rollouts.rollouts.kruise.io', 'rollout-web']).status?.phase === 'Healthy');
    run(cli, ['set', 'image', 'cloneset/web', 'app=nginx:1.26'], sb.env);
    const stepPaused = (step) => () => {
      const st = jsonOf(sb, ['get', 'rollouts.rollouts.kruise.io', 'rollout-web']).status ?? {};
      return st.canaryStatus?.currentStepIndex === step && st.canaryStatus?.currentStepState === 'StepPaused';
    };
    await waitFor('step 1 paused', stepPaused(1));
    run(kubectlBin, ['get', 'rollouts.rollouts.kruise.io', 'rollout-web'], sb.env);
    const count = (args) => {
      const mark = sb.mark();
      run(cli, args, sb.env);
      const entries = sb.since(mark);
      return { w: writes(entries).length, r: reads(entries).length, d: entries.filter(isDiscovery).length, watches: entries.filter((e) => e.verb === 'watch').length };
    };
    let c = count(['rollout', 'status', 'rollout/rollout-web', '--until=paused']);
    report('rollout status rollout/X (at its pause): reads besides watches', c.r, 'req', '<= 3', c.r <= 3 && c.w === 0 && c.d === 0, `${c.watches} watch, ${c.w} writes, ${c.d} discovery`);
    c = count(['rollout', 'status', 'cloneset/web', '--until=paused']);
    report('rollout status cloneset/X under a Rollout: reads besides watches', c.r, 'req', '<= 4', c.r <= 4 && c.w === 0 && c.d === 0, `${c.watches} watch, ${c.w} writes, ${c.d} discovery`);
    c = count(['get', 'rollouts']);
    report('get rollouts: requests', c.r + c.w + c.d, 'req', '== 1', c.r + c.w + c.d === 1);
    c = count(['describe', 'rollout', 'rollout-web']);
    report('describe rollout: reads', c.r, 'req', '<= 4', c.r <= 4 && c.w === 0 && c.d === 0, `${c.d} discovery`);
    c = count(['rollout', 'approve', 'rollout/rollout-web']);
    report('rollout approve: writes', c.w, 'req', '== 1', c.w === 1);
    report('rollout approve: reads', c.r, 'req', '<= 1', c.r <= 1 && c.d === 0, `${c.d} discovery`);
    await waitFor('step 2 paused', stepPaused(2));
    c = count(['rollout', 'pause', 'rollout/rollout-web']);
    report('rollout pause rollout/X: reads + writes', `${c.r}+${c.w}`, 'req', '<= 1+1', c.r <= 1 && c.w === 1 && c.d === 0);
    run(cli, ['rollout', 'resume', 'rollout/rollout-web'], sb.env);

    const [getOurs, getTheirs, descOurs, descTheirs] = wallMsInterleaved([
      [cli, ['get', 'rollouts'], sb.env],
      [kubectlBin, ['get', 'rollouts.rollouts.kruise.io'], sb.env],
      [cli, ['describe', 'rollout', 'rollout-web'], sb.env],
      [kubectlBin, ['describe', 'rollouts.rollouts.kruise.io', 'rollout-web'], sb.env],
    ]);
    report('get rollouts vs kubectl get rollouts', r2(getOurs / getTheirs), 'x', '<= 1.5x', getOurs / getTheirs <= 1.5, `${r2(getOurs)} ms vs ${r2(getTheirs)} ms`);
    report('describe rollout vs kubectl describe rollout', r2(descOurs / descTheirs), 'x', '<= 1.5x', descOurs / descTheirs <= 1.5, `${r2(descOurs)} ms vs ${r2(descTheirs)} ms`);
  } finally {
    await sb.stop();
  }
}

if (want('scale')) {
  console.log('\n# 5. Scale');
  const starts = [];
  for (let i = 0; i < 5; i++) {
    const s = await startSandbox();
    starts.push(s.startMs);
    await s.stop();
  }
  report('sandbox start (kubeconfig written), median of 5', r2(median(starts)), 'ms', '(reported)', true);

  const sb = await startSandbox(['--ready-delay=50ms']);
  try {
    let t = performance.now();
    await applyYaml(sb, cloneSetYaml('big', 1000));
    await waitReady(sb, 'cloneset', 'big', 1000, 180_000);
    report('CloneSet of 1,000 replicas fully ready in the sandbox', r2(performance.now() - t), 'ms', '(reported)', true);

    t = performance.now();
    await applyYaml(sb, cloneSetYaml('huge', 5000));
    await waitReady(sb, 'cloneset', 'huge', 5000, 240_000);
    report('CloneSet of 5,000 replicas fully ready in the sandbox', r2(performance.now() - t), 'ms', '(reported)', true);
    const getPods = wallMs(kubectlBin, ['get', 'pods', '-l', 'app=huge', '--no-headers'], { env: sb.env, runs: 3 });
    report('sandbox serving `kubectl get pods` of 5,000 pods', r2(getPods), 'ms', '(reported)', true);
    const rss = peakMb(cli, ['rollout', 'status', 'cloneset/huge'], { env: sb.env, runs: 3 });
    report('rollout status on a 5,000-pod CloneSet: peak RSS', r2(rss), 'MB', '<= 120 MB', rss <= 120);

    await applyYaml(sb, cloneSetYaml('hist', 1));
    await waitReady(sb, 'cloneset', 'hist', 1);
    // One template change at a time: the controller records a revision per template it observes.
    const server = /server: (\S+)/.exec(readFileSync(sb.kubeconfig, 'utf8'))[1];
    const csUrl = `${server}/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/hist`;
    for (let i = 1; i < 100; i++) {
      // Tags unlike the initial nginx:1.25, so that no change brings back an earlier template.
      const patch = [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: `nginx:2.${i}` }];
      const res = await fetch(csUrl, { method: 'PATCH', headers: { 'Content-Type': 'application/json-patch+json' }, body: JSON.stringify(patch) });
      const generation = (await res.json()).metadata.generation;
      await waitFor(`revision ${i + 1}`, async () => ((await (await fetch(csUrl)).json()).status?.observedGeneration ?? 0) >= generation, 30_000, 10);
    }
    await waitFor('100 revisions', () => jsonOf(sb, ['get', 'controllerrevisions', '-l', 'app=hist']).items.length >= 100);
    const hist = wallMs(cli, ['rollout', 'history', 'cloneset/hist'], { env: sb.env, runs: 5 });
    report('rollout history with 100 revisions', r2(hist), 'ms', '(reported)', true);

    const mark = sb.mark();
    t = performance.now();
    run(cli, ['restart', 'cloneset/big', '--max-unavailable=10%', '--timeout=5m'], sb.env);
    const restartMs = performance.now() - t;
    const entries = sb.since(mark);
    const crrCreates = entries.filter((e) => e.verb === 'create' && e.path.includes('containerrecreaterequests'));
    report('restart of a 1,000-pod CloneSet (--max-unavailable=10%): time', r2(restartMs), 'ms', '(reported)', true);
    report('restart of 1,000 pods: CRRs created (no duplicates)', crrCreates.length, 'req', '== 1000', crrCreates.length === 1000, `${entries.length} requests in all`);
  } finally {
    await sb.stop();
  }

  // An active gate's memory is bounded by what its verdict reads, not by the pods' size (issue #25):
  // bench/rollout-status-memory.mjs, on a sandbox of its own (--nodes=10, two containers per pod).
  const gate = await measureGateMemory({ runs: 3 });
  for (const r of gate) {
    const g = summarizeGate(r);
    const name = `${r.key} rollout status peak RSS: active ${ACTIVE_REPLICAS.toLocaleString("en")} pods vs finished ${FINISHED_REPLICAS}`;
    report(name, r2(g.ratio), 'x', `<= ${GATE_BUDGET}x`, g.ok, `${r2(g.active)} MB vs ${r2(g.finished)} MB, medians of ${r.active.length}`);
    if (g.once !== undefined) console.log(`      ${r.key} rollout status --watch=false on the active update: ${r2(g.once)} MB, ${r2(g.once / g.finished)}x the finished gate (reported, no budget)`);
  }
}

if (want('release')) {
  // A release-level gate (issue #28): `rollout status -f` of a rendered release of 40 workloads (CloneSets,
  // Deployments, Advanced StatefulSets, over two namespaces) plus objects without a rollout, finished.
  // Requests (audit log): at most one list and one watch per resource and namespace, however many
  // workloads; wall time against the single-workload gate (`rollout status cloneset/X`), interleaved.
  console.log('\n# 6. Release gate: 40 workloads in one manifest (sandbox audit log; median of 15 interleaved)');
  const sb = await startSandbox(['--ready-delay=20ms']);
  try {
    run(kubectlBin, ['create', 'namespace', 'shop'], sb.env);
    const docs = [];
    const workload = (kind, apiVersion, name, ns, extra = '') => `apiVersion: ${apiVersion}
kind: ${kind}
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: 2
${extra}  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: app, image: "nginx:1.25"}]
`;
    for (const ns of ['default', 'shop']) {
      for (let i = 0; i < 10; i++) docs.push(workload('CloneSet', 'apps.kruise.io/v1alpha1', `cs-${i}`, ns));
      for (let i = 0; i < 5; i++) docs.push(workload('Deployment', 'apps/v1', `deploy-${i}`, ns));
      for (let i = 0; i < 5; i++) docs.push(workload('StatefulSet', 'apps.kruise.io/v1beta1', `asts-${i}`, ns, `  serviceName: asts-${i}\n`));
      docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: config, namespace: ${ns}}\ndata: {a: b}\n`);
    }
    const manifest = join(sb.dir, 'release.yaml');
    writeFileSync(manifest, docs.join('---\n'));
    run(kubectlBin, ['apply', '-f', manifest], sb.env);
    await waitFor('40 workloads ready', () => {
      const ready = (kind, ns) => jsonOf(sb, ['get', kind, '-n', ns]).items.filter((o) => (o.status?.readyReplicas ?? 0) >= 2 && (o.status?.updatedReplicas ?? 0) >= 2).length;
      return ['default', 'shop'].every((ns) => ready('clonesets.apps.kruise.io', ns) === 10 && ready('deployments.apps', ns) === 5 && ready('statefulsets.apps.kruise.io', ns) === 5);
    }, 120_000);
    run(cli, ['rollout', 'status', 'cloneset/cs-0'], sb.env); // warm the discovery cache
    const mark = sb.mark();
    run(cli, ['rollout', 'status', '-f', manifest], sb.env);
    const entries = sb.since(mark).filter((e) => !isDiscovery(e));
    const per = new Map();
    for (const e of entries) {
      const key = `${e.path.replace(/\/namespaces\/([^/]+)\/([^/]+).*$/, '/$2 in $1')}`;
      const n = per.get(key) ?? { list: 0, watch: 0, other: 0 };
      if (e.verb === 'list') n.list++;
      else if (e.verb === 'watch') n.watch++;
      else n.other++;
      per.set(key, n);
    }
    const worst = Math.max(...[...per.values()].map((n) => Math.max(n.list, n.watch)));
    report('rollout status -f (40 workloads, 2 namespaces): lists and watches per resource and namespace', worst, 'req', '<= 1', worst <= 1 && [...per.values()].every((n) => n.other === 0), `${entries.length} requests: ${[...per.entries()].map(([k, n]) => `${k} ${n.list}+${n.watch}`).join(', ')}`);
    const [release, single] = wallMsInterleaved([
      [cli, ['rollout', 'status', '-f', manifest], sb.env],
      [cli, ['rollout', 'status', 'cloneset/cs-0'], sb.env],
    ]);
    report('rollout status -f (40 workloads) vs rollout status cloneset/X, finished', r2(release / single), 'x', '<= 2x', release / single <= 2, `${r2(release)} ms vs ${r2(single)} ms`);
  } finally {
    await sb.stop();
  }
}

const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length} of ${results.length} figures within budget`);
process.exit(failed.length ? 1 : 0);
