// Peak RSS of `rollout status` on an ACTIVE 5,000-pod CloneSet update (issue #25: two containers per
// pod, sandbox --nodes 10), against the same command on a FINISHED 50-pod CloneSet of the same shape
// (which lists no pods). Budget: the active gate at most 1.3x the finished one, in every form measured.
// The update replaces one pod at a time (ReCreate, maxUnavailable 1), so it stays active throughout.
// The executable is measured as an installed binary is read (dropFromPageCache), not as just built.
// Not part of `npm test`; bench/run.mjs's scale section runs it too.
//   node bench/rollout-status-memory.mjs [--runs N] [FORM...]   (FORM: node20, node26, exe; default node20 exe)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FORMS, cloneSetYaml, dropFromPageCache, exe, kubectlBin, median, run, startSandbox, waitFor } from './lib.mjs';

export const ACTIVE_REPLICAS = 5000;
export const FINISHED_REPLICAS = 50;
export const BUDGET = 1.3;
const STRATEGY = '{type: ReCreate, maxUnavailable: 1}';

/** Peak RSS (MB, GNU time) of one run; its exit status is not checked (the active gate times out). */
function peakOnce(cmd, args, env) {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { env, encoding: 'utf8' });
  return Number(r.stderr.trim().split('\n').pop()) / 1024;
}

/**
 * Both peaks for each form, `runs` times, interleaved (active, finished, next form...) so that the
 * machine's load hits all alike. Resolves to [{ key, label, active: MB[], finished: MB[] }].
 */
export async function measureGateMemory({ forms = FORMS.filter((f) => f.key !== 'node26'), runs = 3, log = () => {} } = {}) {
  const sb = await startSandbox(['--nodes=10', '--ready-delay=100ms']);
  try {
    const apply = (name, replicas) => {
      const f = join(sb.dir, `${name}.yaml`);
      writeFileSync(f, cloneSetYaml(name, replicas, STRATEGY, { sidecar: true }));
      run(kubectlBin, ['apply', '-f', f], sb.env);
    };
    const status = (name) => JSON.parse(run(kubectlBin, ['get', 'clonesets.apps.kruise.io', name, '-o', 'json'], sb.env)).status ?? {};
    apply('small', FINISHED_REPLICAS);
    apply('huge', ACTIVE_REPLICAS);
    await waitFor('the CloneSets ready', () => status('small').readyReplicas >= FINISHED_REPLICAS && status('huge').readyReplicas >= ACTIVE_REPLICAS, 600_000, 1000);
    const patch = [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.26' }];
    run(kubectlBin, ['patch', 'clonesets.apps.kruise.io', 'huge', '--type', 'json', '-p', JSON.stringify(patch)], sb.env);
    log(`sandbox ready (--nodes=10): CloneSet small (${FINISHED_REPLICAS} pods, finished), huge (${ACTIVE_REPLICAS.toLocaleString('en')} pods, updating one at a time)`);
    const results = forms.map((f) => ({ key: f.key, label: f.label, active: [], finished: [], once: [] }));
    if (forms.some((f) => f.key === 'exe')) dropFromPageCache(exe);
    // Warm each form's discovery cache and code cache first (a finished gate exits 0 and writes them).
    for (const f of forms) run(...f.argv(['rollout', 'status', 'cloneset/small']), sb.env);
    for (let i = 0; i < runs; i++) {
      forms.forEach((f, k) => {
        results[k].active.push(peakOnce(...f.argv(['rollout', 'status', 'cloneset/huge', '--timeout=15s']), sb.env));
        results[k].finished.push(peakOnce(...f.argv(['rollout', 'status', 'cloneset/small', '--timeout=15s']), sb.env));
        // One look (--watch=false) at the active update: its one pod list keeps what the watching gate keeps.
        results[k].once.push(peakOnce(...f.argv(['rollout', 'status', 'cloneset/huge', '--watch=false']), sb.env));
      });
    }
    const s = status('huge');
    if ((s.updatedReplicas ?? 0) >= ACTIVE_REPLICAS) throw new Error('the update of huge finished during the measurement');
    log(`after the measurement: ${s.updatedReplicas} of ${ACTIVE_REPLICAS.toLocaleString('en')} pods updated (still active)`);
    return results;
  } finally {
    await sb.stop();
  }
}

/** One form's figures: medians, minima and the ratio of the medians. */
export function summarize(r) {
  const active = median(r.active);
  const finished = median(r.finished);
  // --watch=false is reported beside the budget (which is the watching gate's, issue #25), not under it.
  const once = r.once?.length ? median(r.once) : undefined;
  return { active, finished, once, ratio: active / finished, activeMin: Math.min(...r.active), finishedMin: Math.min(...r.finished), ok: active / finished <= BUDGET };
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--runs');
  const runs = at >= 0 ? Number(args.splice(at, 2)[1]) : 3;
  const forms = args.length ? args.map((k) => FORMS.find((f) => f.key === k) ?? { key: k, label: k, argv: (a) => [k, a] }) : undefined;
  const results = await measureGateMemory({ forms, runs, log: (l) => console.log(l) });
  const r1 = (x) => Math.round(x * 10) / 10;
  let ok = true;
  for (const r of results) {
    const s = summarize(r);
    ok &&= s.ok;
    console.log(`${s.ok ? 'ok  ' : 'FAIL'}  ${r.label}: active ${ACTIVE_REPLICAS.toLocaleString('en')}-pod gate ${r1(s.active)} MB, finished ${FINISHED_REPLICAS}-pod gate ${r1(s.finished)} MB (medians): ${Math.round(s.ratio * 100) / 100}x (budget <= ${BUDGET}x)`);
    console.log(`      runs: active ${r.active.map(r1).join(' ')} MB (min ${r1(s.activeMin)}); finished ${r.finished.map(r1).join(' ')} MB (min ${r1(s.finishedMin)})`);
    if (s.once !== undefined) console.log(`      --watch=false on the active update: ${r1(s.once)} MB (median), ${Math.round((s.once / s.finished) * 100) / 100}x`);
  }
  process.exit(ok ? 0 : 1);
}
