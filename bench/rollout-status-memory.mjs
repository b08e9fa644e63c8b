// Peak RSS of `rollout status` on an ACTIVE 5,000-pod CloneSet update (issue #14 item 6; budget
// 120 MB): the command lists and watches the pods while the rollout runs. Not part of `npm test`.
//   node bench/rollout-status-memory.mjs [CLI...]   (CLIs: other builds' bin/kubectl-kruise, to compare on one sandbox)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli as ownCli, cloneSetYaml, kubectlBin, peakMb, run, startSandbox, waitFor } from './lib.mjs';

const clis = process.argv.length > 2 ? process.argv.slice(2) : [ownCli];
const REPLICAS = 5000;
const yaml = cloneSetYaml('huge', REPLICAS, '{type: ReCreate, maxUnavailable: 1}');

const sb = await startSandbox(['--ready-delay=100ms']);
try {
  const f = join(sb.dir, 'huge.yaml');
  writeFileSync(f, yaml);
  run(kubectlBin, ['apply', '-f', f], sb.env);
  await waitFor('5,000 pods ready', () => {
    const o = JSON.parse(run(kubectlBin, ['get', 'clonesets.apps.kruise.io', 'huge', '-o', 'json'], sb.env));
    return (o.status?.readyReplicas ?? 0) >= REPLICAS;
  }, 600_000, 1000);
  // One pod at a time: the update stays active for the whole measurement.
  run(kubectlBin, ['patch', 'clonesets.apps.kruise.io', 'huge', '--type', 'merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.26"}]}}}}'], sb.env);
  for (const cli of clis) {
    const rss = peakMb(cli, ['rollout', 'status', 'cloneset/huge', '--timeout=15s'], { env: sb.env, runs: 3 });
    console.log(`rollout status on an active 5,000-pod CloneSet update: peak RSS ${Math.round(rss * 10) / 10} MB (budget 120 MB) [${cli}]`);
  }
} finally {
  await sb.stop();
}
