// The scripted tour (`npm run demo`): starts a sandbox cluster, then walks a CloneSet
// through create → set image with partition 90% → status → partition 0 → undo,
// printing each command and its output. Exits non-zero if any step fails.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, existsSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin');
const work = mkdtempSync(join(tmpdir(), 'kruise-tour-'));
const kubeconfig = join(work, 'kubeconfig');
const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(work, 'cache'), PATH: `${bin}:${process.env.PATH}` };
const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (s) => `\x1b[1m${s}\x1b[0m` : (s) => s;

const sandbox = spawn(process.execPath, [join(bin, 'kubectl-kruise'), 'sandbox', '--port=0', `--kubeconfig-out=${kubeconfig}`, '--ready-delay=300ms'], {
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const stop = () => {
  if (sandbox.exitCode === null) sandbox.kill('SIGTERM');
};
process.on('exit', () => {
  stop();
  rmSync(work, { recursive: true, force: true });
});

const deadline = Date.now() + 20_000;
while (!existsSync(kubeconfig)) {
  if (sandbox.exitCode !== null || Date.now() > deadline) {
    console.error('error: the sandbox did not start');
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 50));
}

const shellQuote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

function step(title, cmd, args, { input, allow = [0] } = {}) {
  console.log(`\n${bold(`# ${title}`)}\n$ ${[cmd === 'kubectl-kruise' ? 'kubectl kruise' : cmd, ...args.map(shellQuote)].join(' ')}`);
  const r = spawnSync(cmd === 'kubectl-kruise' ? join(bin, 'kubectl-kruise') : cmd, args, { env, input, encoding: 'utf8' });
  process.stdout.write(r.stdout);
  process.stdout.write(r.stderr);
  if (!allow.includes(r.status)) {
    console.error(`error: step "${title}" exited ${r.status}`);
    process.exit(1);
  }
  return r;
}

const manifest = join(work, 'web.yaml');
writeFileSync(
  manifest,
  `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 8
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
  updateStrategy:
    type: InPlaceIfPossible
    partition: "90%"
    maxUnavailable: 2
`,
);

step('Create a CloneSet of 8 pods; partition 90% keeps most pods on the old revision', 'kubectl', ['apply', '-f', manifest]);
step('Wait until all 8 pods run', 'kubectl-kruise', ['rollout', 'status', 'cloneset/web', '--timeout=60s']);
step('What will partition 90% do? (offline arithmetic)', 'kubectl-kruise', ['explain', 'partition', '--replicas', '8', '--partition', '90%']);
step('Change the image: an in-place update, only the image field is patched', 'kubectl-kruise', ['set', 'image', 'cloneset/web', 'app=nginx:1.27']);
step('Rollout status honours the partition: done once 1 pod is updated', 'kubectl-kruise', ['rollout', 'status', 'cloneset/web', '--timeout=60s']);
step('The CloneSet as kubectl sees it', 'kubectl', ['get', 'clonesets']);
step('Release the partition', 'kubectl', ['patch', 'cloneset', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"partition":0}}}']);
step('Now all 8 pods must update', 'kubectl-kruise', ['rollout', 'status', 'cloneset/web', '--timeout=60s']);
step('History of the CloneSet', 'kubectl-kruise', ['rollout', 'history', 'cloneset/web']);
step('Roll back to the previous template', 'kubectl-kruise', ['rollout', 'undo', 'cloneset/web']);
step('And wait for it', 'kubectl-kruise', ['rollout', 'status', 'cloneset/web', '--timeout=60s']);
step('Back on nginx:1.25', 'kubectl', ['get', 'pods', '-o', 'custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[0].image,RESTARTS:.status.containerStatuses[0].restartCount']);
console.log(`\n${bold('Tour complete.')} Try it yourself: kubectl kruise sandbox (then export KUBECONFIG as it says).`);
stop();
