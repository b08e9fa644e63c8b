// `exec` end to end on the sandbox (Kruise v1.9.0 CRDs): `kubectl kruise exec -S POD -c mesh` enters the
// working container of the hot-upgrade pair, mesh-1, then mesh-2 once an upgrade flips it (what ran is
// told by SIDECARSET_VERSION, which the injected pair reads from the pod's version annotations, and by
// the exec request's container= in the audit log); real kubectl exec works against the same kubelet;
// streams and exit codes match kubectl's; bad input is one line, the documented exit code, and no exec.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli, streamCli } from '../helpers/cli';
import { startSandbox, waitUntil, type AuditEntry, type Sandbox } from '../helpers/sandbox';
import { kubectlKruise } from './rollout-helpers';

/**
 * kubectl's own log noise: client-go's WebSocket reader (tools/remotecommand/websocket.go readDemuxLoop) logs
 * "Unknown stream id 1, discarding message" when the connection's first, empty stdout message (sent as the kubelet
 * does, to say the streams are up) arrives before its streams are registered; it depends on timing (seen under load).
 */
function withoutClientGoNoise(stderr: string): string {
  return stderr.replace(/^E\d{4} [\d:.]+ +\d+ websocket\.go:\d+\] Unknown stream id \d+, discarding message\n/gm, '');
}

const CRDS = '/work/shared/kruise-crds/v1.9.0';
const FIX = (p: string) => join(REPO_ROOT, 'test/fixtures', p);
const WORKING = 'kruise.io/sidecarset-working-hotupgrade-container';

interface PodJson {
  metadata: { name: string; uid: string; annotations?: Record<string, string> };
  spec: { containers: Array<{ name: string; image: string }> };
  status?: { phase?: string; containerStatuses?: Array<{ name: string; image: string; ready: boolean; state?: { running?: unknown } }> };
}

const execs = (audit: AuditEntry[]) => audit.filter((e) => e.path.endsWith('/exec'));
const containerOf = (e: AuditEntry) => new URLSearchParams(e.query).get('container');

describe('exec on the sandbox', { skip: !existsSync(CRDS) && `no CRDs at ${CRDS}` }, () => {
  let sb: Sandbox;
  let pod: string;
  const cli = (args: string[], opts: { input?: string } = {}) => runCli(args, { kubeconfig: sb.kubeconfig, timeoutMs: 40_000, ...opts });
  const getPod = async (name: string): Promise<PodJson> => {
    const r = await sb.api('GET', `/api/v1/namespaces/default/pods/${name}`);
    assert.equal(r.status, 200, r.text);
    return r.body as PodJson;
  };
  const ok = async (args: string[]) => {
    const r = await kubectl(args, sb.kubeconfig);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const running = (p: PodJson, c: string) => !!p.status?.containerStatuses?.find((s) => s.name === c)?.state?.running;

  before(async () => {
    sb = await startSandbox({ kruise: 'v1.9', crds: CRDS, readyDelay: '200ms' });
    await ok(['apply', '-f', FIX('sidecarset/mesh-hotupgrade.yaml')]);
    await ok(['apply', '-f', FIX('sidecarset/workloads.yaml')]);
    const pods = await waitUntil('3 web pods running their containers', async () => {
      const items = ((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items ?? []) as PodJson[];
      return items.length === 3 && items.every((p) => ['mesh-1', 'mesh-2', 'main'].every((c) => running(p, c))) ? items : undefined;
    }, 30_000);
    pod = pods.map((p) => p.metadata.name).sort()[0]!;
  });
  after(() => sb?.stop());

  test('kubectl kruise exec -S POD -c mesh runs in the working container: mesh-1, then mesh-2 after the hot upgrade flips the pair; 2 requests each', async () => {
    const before = await getPod(pod);
    assert.deepEqual(JSON.parse(before.metadata.annotations![WORKING]), { mesh: 'mesh-1' });
    sb.clearAudit();
    const first = await kubectlKruise(sb, ['exec', '-S', pod, '-c', 'mesh', '--', 'printenv', 'SIDECARSET_VERSION', 'HOSTNAME', 'IS_INJECTED']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, `1\n${pod}\ntrue\n`);
    assert.equal(first.stderr, 'Using container "mesh-1", the working one of hot-upgrade sidecar "mesh" (sidecarset mesh)\n');
    const audit = sb.audit();
    assert.deepEqual(audit.map((e) => `${e.method} ${e.path} ${e.code}`), [`GET /api/v1/namespaces/default/pods/${pod} 200`, `GET /api/v1/namespaces/default/pods/${pod}/exec 101`]);
    assert.equal(containerOf(audit[1]!), 'mesh-1');
    // Real kubectl agrees on what each container of the pair says; the empty twin is version 0.
    assert.equal(await ok(['exec', pod, '-c', 'mesh-1', '--', 'printenv', 'SIDECARSET_VERSION']), '1\n');
    assert.equal(await ok(['exec', pod, '-c', 'mesh-2', '--', 'printenv', 'SIDECARSET_VERSION']), '0\n');

    await ok(['patch', 'sidecarsets.apps.kruise.io', 'mesh', '--type', 'json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/containers/0/image', value: 'envoy:v1.31' }])]);
    const flipped = await waitUntil('mesh-2 working, running envoy:v1.31', async () => {
      const p = await getPod(pod);
      const st = p.status?.containerStatuses?.find((s) => s.name === 'mesh-2');
      return JSON.parse(p.metadata.annotations?.[WORKING] ?? '{}').mesh === 'mesh-2' && st?.image === 'envoy:v1.31' && st.ready && running(p, 'mesh-2') ? p : undefined;
    }, 30_000);
    assert.equal(flipped.metadata.uid, before.metadata.uid, 'the same pod, upgraded in place');
    const version = flipped.metadata.annotations!['version.sidecarset.kruise.io/mesh-2']!;
    assert.notEqual(version, '1');
    sb.clearAudit();
    const second = await kubectlKruise(sb, ['exec', '-S', pod, '-c', 'mesh', '-q', '--', 'printenv', 'SIDECARSET_VERSION']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, `${version}\n`);
    assert.equal(second.stderr, '', '-q: only the remote output');
    assert.deepEqual(execs(sb.audit()).map(containerOf), ['mesh-2']);
    assert.equal(sb.audit().length, 2);
    assert.equal(await ok(['exec', pod, '-c', 'mesh-2', '--', 'printenv', 'SIDECARSET_VERSION']), `${version}\n`);
  });

  test('streams and exit codes as kubectl reports them: stdout and stderr apart, sh -c "exit 3" is 3, stdin with -i, a missing command', async () => {
    const script = ['exec', pod, '-c', 'main', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'];
    const ours = await cli(script);
    const theirs = await kubectl(script, sb.kubeconfig);
    assert.equal(theirs.code, 3);
    assert.equal(ours.code, 3);
    assert.equal(ours.stdout, 'out\n');
    assert.equal(ours.stdout, theirs.stdout);
    assert.equal(ours.stderr, 'err\ncommand terminated with exit code 3\n');
    assert.equal(ours.stderr, withoutClientGoNoise(theirs.stderr));

    const input = 'line one\nline two\n';
    const cat = await cli(['exec', '-i', pod, '-c', 'main', '--', 'cat'], { input });
    assert.equal(cat.code, 0, cat.stderr);
    assert.equal(cat.stdout, input);
    assert.equal((await kubectl(['exec', '-i', pod, '-c', 'main', '--', 'cat'], sb.kubeconfig, { input })).stdout, input);

    // kubectl's default container: the first, said on stderr.
    const dflt = await cli(['exec', pod, '--', 'hostname']);
    assert.equal(dflt.code, 0, dflt.stderr);
    assert.equal(dflt.stdout, `${pod}\n`);
    assert.equal(dflt.stderr, 'Defaulted container "mesh-1" out of: mesh-1, mesh-2, main\n');
    assert.equal(dflt.stderr, withoutClientGoNoise((await kubectl(['exec', pod, '--', 'hostname'], sb.kubeconfig)).stderr));

    // -t without a terminal on stdin: kubectl's warning, and no TTY.
    const noTty = await cli(['exec', '-it', pod, '-c', 'main', '--', 'stty', 'size'], { input: '' });
    assert.equal(noTty.code, 1);
    assert.equal(noTty.stderr, 'Unable to use a TTY - input is not a terminal or the right kind of file\nstty: standard input: Not a tty\ncommand terminated with exit code 1\n');

    const missing = await cli(['exec', pod, '-c', 'main', '--', 'ls', '/']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: Internal error occurred: error executing command in container: .*exec: "ls": executable file not found in \$PATH: unknown \(the sandbox's containers run: bash, cat, /);
    assert.equal(missing.stderr.trimEnd().split('\n').length, 1);
    const theirsMissing = await kubectl(['exec', pod, '-c', 'main', '--', 'ls', '/'], sb.kubeconfig);
    assert.equal(theirsMissing.code, 1);
    assert.match(theirsMissing.stderr, /exec: "ls": executable file not found in \$PATH/);
  });

  test('TYPE/NAME picks the workload\'s most active pod: exec -S cloneset/web -c mesh', async () => {
    const r = await kubectlKruise(sb, ['exec', '-S', 'cloneset/web', '-c', 'mesh', '-q', '--', 'hostname']);
    assert.equal(r.code, 0, r.stderr);
    const names = (((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items ?? []) as PodJson[]).map((p) => p.metadata.name);
    assert.ok(names.includes(r.stdout.trim()), `${r.stdout} is one of ${names.join(', ')}`);
    const none = await cli(['exec', 'deployment/nothing', '--', 'true']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^error: deployments\.apps "nothing" not found/);
  });

  test('bad input: one line, exit 2 before any request or after reading the pod only; a pod that cannot run it: exit 1; never an exec request', async () => {
    await ok(['apply', '-f', FIX('exec/e2e-extra-pods.yaml')]);
    await waitUntil('lonely has tracer-1 running, broken failed to pull', async () => {
      const lonely = await getPod('lonely');
      const broken = await getPod('broken');
      return running(lonely, 'tracer-1') && broken.status?.containerStatuses?.[0] && !running(broken, 'app');
    }, 30_000);
    // The kubelet leaves a finished pod alone: mark "done" Succeeded through the status subresource.
    const done = await sb.api('PATCH', '/api/v1/namespaces/default/pods/done/status', { status: { phase: 'Succeeded' } }, { contentType: 'application/merge-patch+json' });
    assert.equal(done.status, 200, done.text);

    const cases: Array<{ args: string[]; code: number; stderr: RegExp; requests: number }> = [
      { args: ['exec', pod, 'date'], code: 2, stderr: /^error: exec \[POD\] \[COMMAND\] is not supported anymore\. Use exec \[POD\] -- \[COMMAND\] instead$/, requests: 0 },
      { args: ['exec', pod, '--'], code: 2, stderr: /^error: you must specify at least one command for the container\nhint: exec POD -- COMMAND \[ARGS\.\.\.\]$/, requests: 0 },
      { args: ['exec', '--', 'date'], code: 2, stderr: /^error: pod or type\/name must be specified\nhint: exec POD -- COMMAND \[ARGS\.\.\.\]$/, requests: 0 },
      { args: ['exec', 'Bad_Pod', '--', 'date'], code: 2, stderr: /^error: invalid pod name "Bad_Pod": /, requests: 0 },
      { args: ['exec', '-S', pod, 'mesh', '--', 'date'], code: 2, stderr: /^error: exec takes one pod before "--", got 2: .*\nhint: the sidecar is named with -c: exec -S \S+ -c mesh -- \.\.\. \(kruise-tools spelled it -S mesh\)$/, requests: 0 },
      { args: ['exec', 'no-such-pod', '--', 'date'], code: 1, stderr: /^error: pods "no-such-pod" not found in namespace "default"$/, requests: 1 },
      { args: ['exec', pod, '-c', 'nope', '--', 'date'], code: 2, stderr: /^error: container nope is not valid for pod \S+ out of: mesh-1, mesh-2, main$/, requests: 1 },
      { args: ['exec', '-S', pod, '-c', 'main', '--', 'date'], code: 2, stderr: /^error: container "main" is not a sidecar of any SidecarSet on pod "\S+" \(its sidecars: mesh \(sidecarset mesh, hot upgrade\)\)$/, requests: 1 },
      { args: ['exec', '-S', pod, '-c', 'mesh-1', '--', 'date'], code: 2, stderr: /^error: container "mesh-1" is one of the hot-upgrade pair of sidecar "mesh" \(sidecarset mesh\) in pod "\S+": -S takes the sidecar's name\nhint: -S -c mesh enters the working container \(working now: mesh-2\)/, requests: 1 },
      { args: ['exec', '-S', 'broken', '--', 'date'], code: 2, stderr: /^error: pod "broken" has no SidecarSet sidecars: no SidecarSet injected it \(no kruise\.io\/sidecarset-hash annotation\)\nhint: without -S, -c takes any of its containers: app$/, requests: 1 },
      { args: ['exec', 'broken', '--', 'date'], code: 1, stderr: /^error: container "app" of pod "broken" is not running \(waiting: (ErrImagePull|ImagePullBackOff)\): there is nothing to exec into$/, requests: 1 },
      { args: ['exec', 'done', '--', 'date'], code: 1, stderr: /^error: cannot exec into a container in a completed pod; current phase is Succeeded$/, requests: 1 },
    ];
    for (const c of cases) {
      sb.clearAudit();
      const r = await cli(c.args);
      assert.equal(r.code, c.code, `${c.args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr.trimEnd(), c.stderr, c.args.join(' '));
      assert.equal(r.stdout, '');
      assert.equal(sb.audit().length, c.requests, `${c.args.join(' ')}: ${JSON.stringify(sb.audit())}`);
    }

    // The hot-upgrade annotation of "lonely" broken on purpose: missing, then naming a container of no pair.
    assert.equal((await cli(['exec', '-S', 'lonely', '-q', '--', 'printenv', 'SIDECARSET_VERSION'])).stdout, '1\n', 'sound at first');
    await ok(['annotate', 'pod', 'lonely', `${WORKING}-`]);
    sb.clearAudit();
    const missing = await cli(['exec', '-S', 'lonely', '-c', 'tracer', '--', 'date']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `error: pod "lonely" runs the hot-upgrade pair tracer-1/tracer-2 of sidecar "tracer" (sidecarset tracer) but its annotation ${WORKING} does not say which one is working\nhint: exec into one of the pair by name, without -S: -c tracer-1 or -c tracer-2\n`);
    assert.equal(execs(sb.audit()).length, 0);
    await ok(['annotate', 'pod', 'lonely', `${WORKING}={"tracer":"tracer-3"}`]);
    const wrong = await cli(['exec', '-S', 'lonely', '--', 'date']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^error: pod "lonely": annotation kruise\.io\/sidecarset-working-hotupgrade-container names "tracer-3" as the working container of sidecar "tracer", which is not one of its pair tracer-1\/tracer-2\n/);
    assert.equal(execs(sb.audit()).length, 0);
  });

  test('real kubectl against the sandbox\'s kubelet: an invalid container is the API server\'s 400 (WebSocket, then its SPDY fallback, both refused)', async () => {
    sb.clearAudit();
    const r = await kubectl(['exec', pod, '-c', 'nope', '--', 'true'], sb.kubeconfig);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`container nope is not valid for pod ${pod}`));
    assert.deepEqual(execs(sb.audit()).map((e) => `${e.method} ${e.code} ${containerOf(e)}`), ['GET 400 nope', 'POST 400 nope']);
    const exit = await kubectl(['exec', pod, '-c', 'mesh-2', '--', 'sh', '-c', 'exit 7'], sb.kubeconfig);
    assert.equal(exit.code, 7);
    assert.equal(exit.stderr, 'command terminated with exit code 7\n');
  });

  test('completion: pods and workload types for the pod, the pod\'s containers after -c, its SidecarSet sidecars after -S -c', async () => {
    const words = async (...args: string[]) => (await cli(['__complete', 'exec', ...args])).stdout.trim().split('\n');
    const podWords = await words('web-');
    assert.deepEqual(podWords.slice(0, -1).sort(), (((await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items ?? []) as PodJson[]).map((p) => p.metadata.name).sort());
    assert.deepEqual(await words('clone'), ['cloneset/', ':6']);
    assert.deepEqual(await words(pod, '-c', ''), ['mesh-1', 'mesh-2', 'main', ':4']);
    assert.deepEqual(await words('-S', pod, '-c', ''), ['mesh', ':4']);
    assert.deepEqual(await words(pod, '--', ''), [':4'], 'the command: nothing to offer, not local files');
  });
});

describe('exec on a TLS sandbox with tokens', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ tls: true, readyDelay: '100ms' });
    const r = await kubectl(['run', 'box', '--image', 'busybox:1.36'], sb.kubeconfig);
    assert.equal(r.code, 0, r.stderr);
    await waitUntil('box running', async () => ((await sb.api('GET', '/api/v1/namespaces/default/pods/box')).body.status?.containerStatuses?.[0]?.state?.running ? true : undefined), 30_000);
  });
  after(() => sb?.stop());

  test('the admin token reaches the kubelet over TLS and never shows at -v9; the read-only viewer may not create pods/exec', async () => {
    const r = await runCli(['exec', 'box', '-v9', '--', 'echo', 'over tls'], { kubeconfig: sb.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'over tls\n');
    assert.match(r.stderr, /GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/default\/pods\/box\/exec\?command=echo&command=over%20tls&container=box&stdout=true&stderr=true 101 Switching Protocols/);
    assert.match(r.stderr, /Request Header: "Authorization: Bearer <redacted>"/);
    assert.ok(!r.stderr.includes(sb.tokens.admin!), 'the token is never printed');
    sb.clearAudit();
    const viewer = await runCli(['exec', '--context', 'viewer', 'box', '--', 'echo', 'hi'], { kubeconfig: sb.kubeconfig });
    assert.equal(viewer.code, 1);
    assert.equal(viewer.stderr, 'error: viewer cannot create pods/exec in namespace default\n');
    assert.deepEqual(sb.audit().map((e) => `${e.user} ${e.method} ${e.code}`), ['viewer GET 200', 'viewer GET 403']);
  });

  test('stopping the sandbox ends an exec still streaming (going away) instead of waiting for it; the client says why', async () => {
    const session = streamCli(['exec', 'box', '--', 'sh', '-c', 'echo started; sleep 60'], { kubeconfig: sb.kubeconfig });
    await session.waitFor('started\n');
    const t = Date.now();
    assert.equal(await sb.stop(), 0, 'a clean exit, not the SIGKILL after 5 s');
    assert.ok(Date.now() - t < 4000, `stopped in ${Date.now() - t} ms`);
    const r = await session.stop();
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'error: the server closed the exec stream: 1001 the sandbox is stopping\n');
  });
});
