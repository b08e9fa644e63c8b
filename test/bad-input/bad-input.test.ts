// Bad input across every command, against a TLS sandbox: each case must exit with the
// documented code, print exactly one `error:` line naming the cause (no stack trace),
// and leave the server untouched (no write in the audit log).
import { before, after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { runCli, kubectl } from '../helpers/cli';

const fixtures = resolve(import.meta.dirname, '../fixtures/bad-input');
const fx = (name: string) => join(fixtures, name);
const USAGE = 2;
const FAILED = 1;

type Config = 'sandbox' | 'wrong-token' | 'no-ca' | 'viewer' | 'unreachable' | 'missing-file' | 'not-yaml' | 'no-current-context' | 'missing-user';
interface Case {
  args: string[];
  code: number;
  cause: RegExp;
  config?: Config;
  input?: string;
}

const long = 'a'.repeat(300);
const CASES: Record<string, Case> = {
  // resource references
  'unknown kind': { args: ['rollout', 'status', 'frobnicator/web'], code: USAGE, cause: /frobnicator/ },
  'empty name after slash': { args: ['rollout', 'status', 'cloneset/'], code: USAGE, cause: /name/i },
  'empty type before slash': { args: ['rollout', 'status', '/web'], code: USAGE, cause: /type|resource/i },
  'too many slashes': { args: ['rollout', 'status', 'cloneset/web/extra'], code: USAGE, cause: /cloneset\/web\/extra/ },
  'path traversal in name': { args: ['rollout', 'status', 'cloneset/../secrets'], code: USAGE, cause: /\.\.\/secrets|invalid|name/i },
  'encoded slash in name': { args: ['rollout', 'pause', 'cloneset/a%2Fb'], code: USAGE, cause: /a%2Fb/ },
  'upper case name': { args: ['rollout', 'undo', 'cloneset/Web'], code: USAGE, cause: /Web/ },
  '300-character name': { args: ['rollout', 'history', `cloneset/${long}`], code: USAGE, cause: /253|too long|must be no more/i },
  'missing name': { args: ['rollout', 'status', 'cloneset'], code: USAGE, cause: /name/i },
  'no resource at all': { args: ['rollout', 'undo'], code: USAGE, cause: /resource|required|specify/i },
  'invalid namespace': { args: ['rollout', 'status', 'cloneset/web', '-n', 'Prod_1'], code: USAGE, cause: /Prod_1/ },
  'batch CronJob in rollout status (kinds named)': { args: ['rollout', 'status', 'cronjob/nightly'], code: USAGE, cause: /^error: rollout status is not supported for cronjobs\.batch: use a CloneSet, Advanced StatefulSet, Advanced DaemonSet, SidecarSet, UnitedDeployment, Deployment, StatefulSet or DaemonSet \(or a Kruise Rollout, a BroadcastJob or a Job\)$/ },
  'kind without pause': { args: ['rollout', 'pause', 'statefulset/db'], code: USAGE, cause: /pause|statefulset/i },
  // flags
  'unknown flag': { args: ['rollout', 'status', 'cloneset/web', '--frobnicate'], code: USAGE, cause: /--frobnicate/ },
  'bad timeout duration': { args: ['rollout', 'status', 'cloneset/web', '--timeout=5parsecs'], code: USAGE, cause: /5parsecs/ },
  'negative failure grace': { args: ['rollout', 'status', 'cloneset/web', '--failure-grace=-1s'], code: USAGE, cause: /-1s/ },
  'bad --watch value': { args: ['rollout', 'status', 'cloneset/web', '--watch=maybe'], code: USAGE, cause: /maybe/ },
  'bad -o': { args: ['rollout', 'history', 'cloneset/web', '-o', 'xml'], code: USAGE, cause: /xml/ },
  'bad jsonpath': { args: ['rollout', 'status', 'cloneset/web', '-o', 'jsonpath={.status'], code: USAGE, cause: /jsonpath|json/i },
  'bad --dry-run': { args: ['rollout', 'undo', 'cloneset/web', '--dry-run=yes'], code: USAGE, cause: /yes/ },
  'non-numeric --to-revision': { args: ['rollout', 'undo', 'cloneset/web', '--to-revision=abc'], code: USAGE, cause: /abc/ },
  'negative --to-revision': { args: ['rollout', 'undo', 'cloneset/web', '--to-revision=-1'], code: USAGE, cause: /-1/ },
  'bad --diff': { args: ['rollout', 'history', 'cloneset/web', '--diff=1'], code: USAGE, cause: /diff/ },
  'log level above 9': { args: ['rollout', 'status', 'cloneset/web', '-v=10'], code: USAGE, cause: /10/ },
  'bad --request-timeout': { args: ['rollout', 'status', 'cloneset/web', '--request-timeout=soon'], code: USAGE, cause: /soon/ },
  // explain partition
  'partition "99" without %': { args: ['explain', 'partition', '--replicas', '8', '--partition', '99x'], code: USAGE, cause: /99x/ },
  'quoted "99" in a manifest': { args: ['explain', 'partition', '-f', fx('quoted-partition.yaml')], code: USAGE, cause: /"?99"?.*percent|percent.*99/i },
  'percent sign alone': { args: ['explain', 'partition', '--replicas', '8', '--partition', '%'], code: USAGE, cause: /%/ },
  'partition with junk': { args: ['explain', 'partition', '--replicas', '8', '--partition', '90#'], code: USAGE, cause: /90#/ },
  'negative replicas': { args: ['explain', 'partition', '--replicas=-1', '--partition', '10%'], code: USAGE, cause: /-1|replicas/ },
  'non-numeric replicas': { args: ['explain', 'partition', '--replicas', 'eight'], code: USAGE, cause: /eight/ },
  'bad max-unavailable': { args: ['explain', 'partition', '--replicas', '8', '--max-unavailable', 'abc'], code: USAGE, cause: /abc/ },
  'unknown --kind': { args: ['explain', 'partition', '--kind', 'replicaset', '--replicas', '3'], code: USAGE, cause: /replicaset/ },
  'bad --plan step': { args: ['explain', 'partition', '--replicas', '8', '--plan', '50%,x'], code: USAGE, cause: /x|plan/ },
  // files
  'malformed YAML in -f': { args: ['set', 'image', '-f', fx('malformed.yaml'), 'app=nginx:1.27', '--local', '-o', 'yaml'], code: USAGE, cause: /malformed\.yaml/ },
  'malformed JSON in -f': { args: ['set', 'image', '-f', fx('malformed.json'), 'api=nginx:1.27', '--local', '-o', 'yaml'], code: USAGE, cause: /malformed\.json/ },
  'file with no objects': { args: ['set', 'image', '-f', fx('empty.yaml'), 'app=nginx:1.27', '--local', '-o', 'yaml'], code: USAGE, cause: /no objects|empty/i },
  'file that does not exist': { args: ['set', 'image', '-f', fx('nope.yaml'), 'app=nginx:1.27', '--local'], code: USAGE, cause: /nope\.yaml/ },
  // set
  'CONTAINER=IMAGE without =': { args: ['set', 'image', 'cloneset/web', 'nginx'], code: USAGE, cause: /nginx/ },
  'upper-case image repository': { args: ['set', 'image', 'cloneset/web', 'app=NGINX:1.27'], code: USAGE, cause: /NGINX/ },
  'image with empty tag': { args: ['set', 'image', 'cloneset/web', 'app=nginx:'], code: USAGE, cause: /nginx:/ },
  'image with a space': { args: ['set', 'image', 'cloneset/web', 'app=nginx 1.27'], code: USAGE, cause: /nginx 1\.27/ },
  'no CONTAINER=IMAGE pairs': { args: ['set', 'image', 'cloneset/web'], code: USAGE, cause: /image|container/i },
  'unknown container (set image)': { args: ['set', 'image', 'cloneset/web', 'app=nginx:1.27', 'nope=nginx:1.27'], code: FAILED, cause: /unable to find container named "nope"/ },
  'bad env name': { args: ['set', 'env', 'cloneset/web', '1BAD=x'], code: USAGE, cause: /1BAD/ },
  'bad resource quantity': { args: ['set', 'resources', 'cloneset/web', '--limits=cpu=lots'], code: USAGE, cause: /lots/ },
  // restart
  'empty -c': { args: ['restart', 'cloneset/web', '-c', ''], code: USAGE, cause: /container/i },
  'unknown container (restart)': { args: ['restart', 'cloneset/web', '-c', 'nope'], code: USAGE, cause: /nope/ },
  'max-unavailable 0': { args: ['restart', 'cloneset/web', '--max-unavailable=0'], code: USAGE, cause: /max-unavailable/ },
  'max-unavailable not a number': { args: ['restart', 'cloneset/web', '--max-unavailable=some'], code: USAGE, cause: /some/ },
  'bad failure policy': { args: ['restart', 'cloneset/web', '--failure-policy=Maybe'], code: USAGE, cause: /Maybe/ },
  'active deadline under 3s': { args: ['restart', 'cloneset/web', '--active-deadline=1s'], code: USAGE, cause: /active-deadline|3/ },
  'bad --via': { args: ['restart', 'cloneset/web', '--via=carrier-pigeon'], code: USAGE, cause: /carrier-pigeon/ },
  // predownload
  'malformed --image': { args: ['predownload', '--image', 'Bad Image', '--nodes', 'node-1'], code: USAGE, cause: /Bad Image/ },
  'bare 64-hex image id': { args: ['predownload', '--image', 'a'.repeat(64), '--nodes', 'node-1'], code: USAGE, cause: /a{8}/ },
  'parallelism 0': { args: ['predownload', '--image', 'nginx:1.27', '--nodes', 'node-1', '--parallelism=0'], code: USAGE, cause: /parallelism/ },
  'empty --nodes': { args: ['predownload', '--image', 'nginx:1.27', '--nodes', ''], code: USAGE, cause: /nodes/ },
  'both --nodes and --node-selector': { args: ['predownload', '--image', 'nginx:1.27', '--nodes', 'node-1', '--node-selector', 'a=b'], code: USAGE, cause: /node-selector|nodes/ },
  // create pps
  'pps weight 0': { args: ['create', 'pps', 'db', '--for', 'sts/db', '--preferred-topology', 'topology.kubernetes.io/zone:0'], code: USAGE, cause: /weight|0/ },
  'pps weight 101': { args: ['create', 'pps', 'db', '--for', 'sts/db', '--preferred-topology', 'topology.kubernetes.io/zone:101'], code: USAGE, cause: /101/ },
  'pps without topology': { args: ['create', 'pps', 'db', '--for', 'sts/db'], code: USAGE, cause: /topology/ },
  'pps for a Deployment': { args: ['create', 'pps', 'api', '--for', 'deployment/api', '--required-topology', 'kubernetes.io/hostname'], code: USAGE, cause: /StatefulSet|deployment/i },
  'pps without --for': { args: ['create', 'pps', 'db', '--required-topology', 'kubernetes.io/hostname'], code: USAGE, cause: /--for/ },
  'pps bad retention': { args: ['create', 'pps', 'db', '--for', 'sts/db', '--required-topology', 'kubernetes.io/hostname', '--retention=Forever'], code: USAGE, cause: /Forever/ },
  'pps invalid name': { args: ['create', 'pps', 'DB!', '--for', 'sts/db', '--required-topology', 'kubernetes.io/hostname'], code: USAGE, cause: /DB!/ },
  // other commands
  'completion for an unknown shell': { args: ['completion', 'tcsh'], code: USAGE, cause: /tcsh/ },
  'version -o xml': { args: ['version', '-o', 'xml'], code: USAGE, cause: /xml/ },
  'sandbox with an unknown release': { args: ['sandbox', '--kruise', 'v0.1', '--port', '0'], code: USAGE, cause: /v0\.1/ },
  // kubeconfig and connection
  'kubeconfig that does not exist': { args: ['rollout', 'status', 'cloneset/web'], code: USAGE, cause: /does-not-exist/, config: 'missing-file' },
  'kubeconfig that is not YAML': { args: ['rollout', 'status', 'cloneset/web'], code: USAGE, cause: /not-a-kubeconfig|yaml|parse/i, config: 'not-yaml' },
  'kubeconfig without current context': { args: ['rollout', 'status', 'cloneset/web'], code: USAGE, cause: /context/i, config: 'no-current-context' },
  'context naming a missing user': { args: ['rollout', 'status', 'cloneset/web'], code: USAGE, cause: /ghost/, config: 'missing-user' },
  'unknown --context': { args: ['rollout', 'status', 'cloneset/web', '--context', 'nowhere'], code: USAGE, cause: /nowhere/ },
  'unreachable server': { args: ['rollout', 'status', 'cloneset/web', '--request-timeout=2s'], code: FAILED, cause: /127\.0\.0\.1:1|unreachable|refused/i, config: 'unreachable' },
  'wrong CA': { args: ['rollout', 'status', 'cloneset/web'], code: FAILED, cause: /certificate/i, config: 'no-ca' },
  'wrong token': { args: ['rollout', 'status', 'cloneset/web'], code: FAILED, cause: /Unauthorized|logged in/i, config: 'wrong-token' },
  'viewer may not write': { args: ['rollout', 'pause', 'cloneset/web'], code: FAILED, cause: /viewer cannot patch clonesets?.* in namespace default/, config: 'viewer' },
  'not found': { args: ['rollout', 'pause', 'cloneset/ghost'], code: FAILED, cause: /"ghost" not found/ },
  'native sts that is an Advanced StatefulSet': { args: ['rollout', 'status', 'sts/nothing-here'], code: FAILED, cause: /nothing-here/ },
  // exec (issue #18)
  'exec without "--"': { args: ['exec', 'web', 'date'], code: USAGE, cause: /exec \[POD\] \[COMMAND\] is not supported anymore/ },
  'exec into an upper-case pod name': { args: ['exec', 'Web', '--', 'date'], code: USAGE, cause: /invalid pod name "Web"/ },
  'exec into a missing pod': { args: ['exec', 'ghost', '--', 'true'], code: FAILED, cause: /pods "ghost" not found/ },
  'viewer may not exec': { args: ['exec', 'cloneset/web', '--', 'true'], code: FAILED, cause: /viewer cannot create pods\/exec in namespace default/, config: 'viewer' },
  // expose (issue #18)
  'expose an Advanced DaemonSet': { args: ['expose', 'ads/agent', '--port', '80'], code: USAGE, cause: /^error: cannot expose a DaemonSet\.apps\.kruise\.io$/ },
  'expose with a lower-case protocol': { args: ['expose', 'cloneset/web', '--port', '80', '--protocol', 'tcp'], code: USAGE, cause: /--protocol "tcp".*upper case: TCP/ },
  'expose a CloneSet without ports and --port': { args: ['expose', 'cloneset/web', '--selector', 'app=web'], code: USAGE, cause: /couldn't find port via --port flag or introspection/ },
  'viewer may not expose': { args: ['expose', 'cloneset/web', '--port', '80'], code: FAILED, cause: /viewer cannot create services in namespace default/, config: 'viewer' },
};

let sb: Sandbox;
const configs = new Map<Config, string>();

function writeConfig(name: string, mutate: (cfg: any) => void): string {
  const cfg = parseYaml(readFileSync(sb.kubeconfig, 'utf8'));
  mutate(cfg);
  const path = join(sb.dir, `${name}.kubeconfig`);
  writeFileSync(path, toYaml(cfg));
  return path;
}

before(async () => {
  sb = await startSandbox({ tls: true, readyDelay: 50 });
  const applied = await kubectl(['apply', '-f', fx('objects.yaml')], sb.kubeconfig);
  assert.equal(applied.code, 0, applied.stderr);
  await waitUntil('web pods', async () => (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web')).body?.status?.readyReplicas === 2, 30_000);
  configs.set('sandbox', sb.kubeconfig);
  configs.set('wrong-token', writeConfig('wrong-token', (c) => c.users.forEach((u: any) => (u.user.token = 'not-the-token'))));
  configs.set('no-ca', writeConfig('no-ca', (c) => c.clusters.forEach((x: any) => delete x.cluster['certificate-authority-data'])));
  configs.set('viewer', writeConfig('viewer', (c) => (c['current-context'] = c.contexts.find((x: any) => x.context.user === 'viewer').name)));
  configs.set('unreachable', writeConfig('unreachable', (c) => c.clusters.forEach((x: any) => (x.cluster.server = 'https://127.0.0.1:1'))));
  configs.set('missing-file', join(sb.dir, 'does-not-exist.kubeconfig'));
  configs.set('not-yaml', fx('not-a-kubeconfig.yaml'));
  configs.set('no-current-context', fx('no-current-context.kubeconfig'));
  configs.set('missing-user', fx('missing-user.kubeconfig'));
  // Warm the discovery cache so the cases below are judged on their own requests.
  await runCli(['rollout', 'status', 'cloneset/web', '--timeout=10s'], { kubeconfig: sb.kubeconfig });
});

after(async () => {
  await sb?.stop();
});

describe(`bad input (${Object.keys(CASES).length} cases)`, () => {
  for (const [name, c] of Object.entries(CASES)) {
    test(name, async () => {
      const before = sb.audit().length;
      const r = await runCli(c.args, { kubeconfig: configs.get(c.config ?? 'sandbox'), input: c.input, timeoutMs: 20_000 });
      // A write the server refused (e.g. 403 for the viewer) changed nothing; any accepted one did.
      const writes = sb.audit().slice(before).filter((e) => !['get', 'list', 'watch'].includes(e.verb) && e.code < 400);
      assert.equal(r.code, c.code, `exit code of ${c.args.join(' ')}\nstderr: ${r.stderr}`);
      const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
      assert.equal(errorLines.length, 1, `exactly one error line:\n${r.stderr}`);
      assert.match(errorLines[0]!, c.cause);
      assert.doesNotMatch(r.stderr, /^\s+at .+:\d+:\d+\)?$/m, 'no stack trace');
      assert.doesNotMatch(r.stderr + r.stdout, /not-the-token|BEGIN (RSA |EC )?PRIVATE KEY/, 'no secret printed');
      assert.deepEqual(writes, [], 'nothing written to the server');
    });
  }
});
