// Which container `exec` enters (src/kruise/exec-target.ts) and how its words are read
// (src/commands/exec/args.ts), on rows ported from kruise-tools pkg/cmd/exec/exec_test.go and
// Kruise v1.9.0's hot-upgrade tests (pkg/controller/sidecarset/sidecarset_hotupgrade_test.go,
// pkg/webhook/pod/mutating/sidecarset_hotupgrade_test.go), through our own hot-upgrade rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseExecArgs, ttySetup } from '../../../src/commands/exec/args';
import { CliError } from '../../../src/cli/exit';
import { execQuery } from '../../../src/kube/exec';
import { allContainerNames, completedPodProblem, containerNotRunning, plainExecTarget, podSidecars, sidecarExecTarget, type ExecTarget } from '../../../src/kruise/exec-target';
import { injectSidecarSets, readSidecarSet, SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION, withSidecarSetHashes } from '../../../src/kruise/rules/sidecarset';
import { resetIdleHotUpgradeContainers, upgradePodSidecars } from '../../../src/kruise/rules/sidecarset-upgrade';
import type { Pod } from '../../../src/kruise/types';

const fixture = (name: string): Pod => parse(readFileSync(new URL(`../../fixtures/exec/${name}`, import.meta.url), 'utf8')) as Pod;
const chosen = (t: ExecTarget): string => (t.ok ? t.container : `error(${t.input ? 2 : 1}): ${t.message}`);
const withAnnotation = (pod: Pod, key: string, value: string | undefined): Pod => {
  const out = structuredClone(pod);
  const ann = { ...(out.metadata.annotations ?? {}) };
  if (value === undefined) delete ann[key];
  else ann[key] = value;
  out.metadata.annotations = ann;
  return out;
};
const usage = (fn: () => unknown, message: RegExp): void => {
  assert.throws(fn, (err: unknown) => err instanceof CliError && err.exitCode === 2 && message.test(err.message));
};

// ───────────── kruise-tools pkg/cmd/exec/exec_test.go TestPodAndContainer ─────────────
// argsLenAtDash -1 = no "--". kruise-tools still accepted the deprecated `exec POD CMD`; kubectl 1.32
// (whose exec we follow) refuses it, so "cmd, cmd is behind dash" and its siblings are usage errors here.
test('exec_test.go TestPodAndContainer: the pod and the command from the words around "--"', () => {
  usage(() => parseExecArgs([], -1, { sidecar: false }), /pod or type\/name must be specified/); // "empty"
  usage(() => parseExecArgs(['foo'], -1, { sidecar: false }), /at least one command/); // "no cmd, w/o flags"
  usage(() => parseExecArgs(['foo'], -1, { sidecar: false, container: 'bar' }), /at least one command/); // "no cmd, w/ container"
  usage(() => parseExecArgs(['foo', 'cmd'], 0, { sidecar: false }), /pod or type\/name must be specified/); // "no pod, pod name is behind dash"
  assert.deepEqual(parseExecArgs(['foo', 'cmd'], 1, { sidecar: false }), { type: 'pod', name: 'foo', command: ['cmd'] }); // "cmd, w/o flags"
  usage(() => parseExecArgs(['foo', 'cmd'], -1, { sidecar: false }), /exec \[POD\] \[COMMAND\] is not supported anymore/); // "cmd, cmd is behind dash" (kubectl 1.32)
  assert.deepEqual(parseExecArgs(['foo', 'cmd'], 1, { sidecar: false, container: 'bar' }), { type: 'pod', name: 'foo', command: ['cmd'] }); // "cmd, container in flag"
  // "cmd, working container in flag": -S sidecar on execPod enters sidecar-1.
  assert.deepEqual(parseExecArgs(['foo', 'cmd'], 1, { sidecar: true, container: 'sidecar' }), { type: 'pod', name: 'foo', command: ['cmd'] });
  assert.equal(chosen(sidecarExecTarget(fixture('kruise-tools-exec-pod.yaml'), 'sidecar')), 'sidecar-1');
});

test('the words: pod/NAME, TYPE/NAME, names checked before any request, kruise-tools\' -S SIDECAR spelling explained', () => {
  assert.deepEqual(parseExecArgs(['pod/foo', 'sh', '-c', 'exit 3'], 1, { sidecar: false }), { type: 'pod', name: 'foo', command: ['sh', '-c', 'exit 3'] });
  assert.deepEqual(parseExecArgs(['po/foo', 'date'], 1, { sidecar: false }), { type: 'pod', name: 'foo', command: ['date'] });
  assert.deepEqual(parseExecArgs(['cloneset/web', 'date'], 1, { sidecar: true }), { type: 'cloneset', name: 'web', command: ['date'] });
  usage(() => parseExecArgs(['Foo_Bar', 'date'], 1, { sidecar: false }), /invalid pod name "Foo_Bar"/);
  usage(() => parseExecArgs(['/foo', 'date'], 1, { sidecar: false }), /invalid resource "\/foo"/);
  usage(() => parseExecArgs(['foo', 'date'], 1, { sidecar: false, container: 'Bad_Name' }), /invalid container name "Bad_Name"/);
  usage(() => parseExecArgs(['foo', 'date'], 1, { sidecar: false, container: '' }), /invalid container name ""/);
  assert.throws(
    () => parseExecArgs(['foo', 'mesh', 'date'], 2, { sidecar: true }),
    (err: unknown) => err instanceof CliError && err.exitCode === 2 && /takes one pod before "--", got 2/.test(err.message) && /-S foo -c mesh/.test(err.hint ?? ''),
  );
});

test('exec_test.go TestSetupTTY: no stdin, no TTY; stdin without -t; -t on a non-terminal warns and drops the TTY; a terminal goes raw', () => {
  assert.deepEqual(ttySetup({ stdin: false, tty: true }, true), { stdin: false, raw: false }, "test 1 - don't attach stdin (and say nothing)");
  assert.deepEqual(ttySetup({ stdin: true, tty: false }, true), { stdin: true, raw: false }, "test 2 - don't request a TTY");
  assert.deepEqual(ttySetup({ stdin: true, tty: true }, false), { stdin: true, raw: false, warning: 'Unable to use a TTY - input is not a terminal or the right kind of file' }, 'test 3 - request a TTY, but stdin is not a terminal');
  assert.deepEqual(ttySetup({ stdin: true, tty: true, quiet: true }, false), { stdin: true, raw: false, warning: undefined }, 'kubectl 1.32: -q keeps the warning quiet');
  assert.deepEqual(ttySetup({ stdin: true, tty: true }, true), { stdin: true, raw: true }, 'test 4 - request a TTY, stdin is a terminal');
});

// ───────────── kruise-tools TestExecWorkingContainer / TestExec: the exec request ─────────────
test('exec_test.go TestExecWorkingContainer and TestExec: the exec URL names the working container (sidecar-1) or the -c one (bar), once', () => {
  const pod = fixture('kruise-tools-exec-pod.yaml');
  for (const [target, want] of [[sidecarExecTarget(pod, 'sidecar'), 'sidecar-1'], [plainExecTarget(pod, 'bar'), 'bar']] as const) {
    assert.ok(target.ok);
    const query = execQuery({ namespace: 'test', pod: 'foo', container: target.container, command: ['command'], stdin: false, stdout: true, stderr: true, tty: false });
    assert.equal(query.split('&').filter((p) => p === `container=${want}`).length, 1, query);
    assert.equal(query, `command=command&container=${want}&stdout=true&stderr=true`);
  }
});

// ───────────── Kruise v1.9.0 hot upgrade: the working container before and after a flip ─────────────
test('sidecarset_hotupgrade_test.go TestUpdateHotUpgradeSidecar (podHotUpgrade through our upgrade rules): -S enters test-sidecar-1, then test-sidecar-2 once upgraded, also after test-sidecar-1 is reset', () => {
  const pod = fixture('kruise-hotupgrade-pod.yaml');
  assert.equal(chosen(sidecarExecTarget(pod, 'test-sidecar')), 'test-sidecar-1');
  // sidecarSetHotUpgrade: test-sidecar at test-image:v2, hash-without-image unchanged (an upgradable pod).
  const ss = readSidecarSet({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'SidecarSet',
    metadata: { name: 'test-sidecarset', resourceVersion: '22', generation: 123, annotations: { 'kruise.io/sidecarset-hash': 'bbb', 'kruise.io/sidecarset-hash-without-image': '111111111' } },
    spec: { selector: { matchLabels: { app: 'nginx' } }, containers: [{ name: 'test-sidecar', image: 'test-image:v2', upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'hotupgrade:empty' } }] },
  });
  // Row "sidecarset hot update test-sidecar container test-image:v2": the empty test-sidecar-2 takes v2 and works.
  const upgraded = upgradePodSidecars(ss, pod, new Date('2026-01-01T00:00:00Z'));
  assert.deepEqual(upgraded.spec.containers.map((c) => `${c.name}=${c.image}`), ['nginx=nginx:1.15.1', 'test-sidecar-1=test-image:v1', 'test-sidecar-2=test-image:v2']);
  assert.equal(chosen(sidecarExecTarget(upgraded, 'test-sidecar')), 'test-sidecar-2');
  // Row "test-sidecar-2 container upgrade complete, and reset test-sidecar-1 empty image".
  const running = structuredClone(upgraded);
  const cs = running.status!.containerStatuses!.find((s) => s.name === 'test-sidecar-2')!;
  cs.image = 'test-image:v2';
  cs.imageID = 'docker-pullable://test-image@sha256:f7988fb6c02e0ce69257d9bd9cf37ae20a60f1df7563c3a2a6abe24160306b8e';
  const reset = resetIdleHotUpgradeContainers(ss, running)!;
  assert.equal(reset.spec.containers.find((c) => c.name === 'test-sidecar-1')!.image, 'hotupgrade:empty');
  assert.equal(chosen(sidecarExecTarget(reset, 'test-sidecar')), 'test-sidecar-2');
  // Without -S, -c test-sidecar-1 still enters the idle one: the user asked for it by name.
  assert.equal(chosen(plainExecTarget(reset, 'test-sidecar-1')), 'test-sidecar-1');
});

test('sidecarset_hotupgrade_test.go (webhook) TestInjectHotUpgradeSidecar: sidecarSet1 injected into pod1 makes dns-f-1 the working container; log-agent is a plain sidecar', () => {
  const sidecarSet1 = readSidecarSet(withSidecarSetHashes({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'SidecarSet',
    metadata: { name: 'sidecarset1' },
    spec: {
      selector: { matchLabels: { app: 'suxing-test' } },
      initContainers: [{ name: 'init-2', image: 'busybox:1.0.0' }, { name: 'init-1', image: 'busybox:1.0.0' }],
      containers: [
        { name: 'dns-f', image: 'dns-f-image:1.0', podInjectPolicy: 'BeforeAppContainer', shareVolumePolicy: { type: 'disabled' }, upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'busy:hotupgrade-empty' } },
        { name: 'log-agent', image: 'log-agent-image:1.0', podInjectPolicy: 'AfterAppContainer', shareVolumePolicy: { type: 'disabled' } },
      ],
    },
  }));
  const pod1: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'test-pod', namespace: 'default', labels: { app: 'suxing-test' } },
    spec: { initContainers: [{ name: 'init-0', image: 'busybox:1.0.0' }], containers: [{ name: 'nginx', image: 'nginx:1.15.1' }] },
  };
  const podOut = injectSidecarSets(pod1, [sidecarSet1])!;
  assert.deepEqual(podOut.spec.containers.map((c) => c.name), ['dns-f-1', 'dns-f-2', 'nginx', 'log-agent']);
  assert.deepEqual(podSidecars(podOut), [
    { sidecarSet: 'sidecarset1', name: 'dns-f', hot: { pair: ['dns-f-1', 'dns-f-2'], working: 'dns-f-1' } },
    { sidecarSet: 'sidecarset1', name: 'log-agent' },
  ]);
  assert.equal(chosen(sidecarExecTarget(podOut, 'dns-f')), 'dns-f-1');
  assert.equal(chosen(sidecarExecTarget(podOut, 'log-agent')), 'log-agent');
  const several = sidecarExecTarget(podOut, undefined);
  assert.ok(!several.ok && several.input);
  assert.match(several.message, /has several SidecarSet sidecars: choose one with -c \(dns-f \(sidecarset sidecarset1, hot upgrade\), log-agent \(sidecarset sidecarset1\)\)/);
  // init-1/init-2 are init containers that ran once, not sidecars (not native: no restartPolicy Always).
  assert.match(chosen(sidecarExecTarget(podOut, 'init-1')), /^error\(2\): container "init-1" is not a sidecar of any SidecarSet on pod "test-pod"/);
});

// ───────────── our rules for what kruise-tools left to chance ─────────────
test('-S on a pod of two SidecarSets: the working mesh-2, the plain logger, the native sidecar init container; no -c with several is refused', () => {
  const pod = fixture('sidecars-pod.yaml');
  assert.equal(chosen(sidecarExecTarget(pod, 'mesh')), 'mesh-2');
  const t = sidecarExecTarget(pod, 'mesh');
  assert.ok(t.ok);
  assert.equal(t.notice, 'Using container "mesh-2", the working one of hot-upgrade sidecar "mesh" (sidecarset mesh)');
  assert.equal(chosen(sidecarExecTarget(pod, 'logger')), 'logger');
  assert.equal(chosen(sidecarExecTarget(pod, 'log-shipper')), 'log-shipper');
  assert.match(chosen(sidecarExecTarget(pod, undefined)), /^error\(2\): pod "web-7xk2p" has several SidecarSet sidecars/);
  assert.match(chosen(sidecarExecTarget(pod, 'main')), /^error\(2\): container "main" is not a sidecar of any SidecarSet on pod "web-7xk2p" \(its sidecars: log-shipper \(sidecarset log\), logger \(sidecarset log\), mesh \(sidecarset mesh, hot upgrade\)\)$/);
  const member = sidecarExecTarget(pod, 'mesh-1');
  assert.ok(!member.ok && member.input);
  assert.match(member.message, /container "mesh-1" is one of the hot-upgrade pair of sidecar "mesh" \(sidecarset mesh\) in pod "web-7xk2p": -S takes the sidecar's name/);
  assert.match(member.hint!, /-S -c mesh enters the working container \(working now: mesh-2\); without -S, -c mesh-1 enters this one/);
});

test('a missing or inconsistent working-container annotation is an error (exit 1), never a guess at the empty twin', () => {
  const pod = fixture('sidecars-pod.yaml');
  const missing = sidecarExecTarget(withAnnotation(pod, SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION, undefined), 'mesh');
  assert.ok(!missing.ok && !missing.input);
  assert.equal(missing.message, 'pod "web-7xk2p" runs the hot-upgrade pair mesh-1/mesh-2 of sidecar "mesh" (sidecarset mesh) but its annotation kruise.io/sidecarset-working-hotupgrade-container does not say which one is working');
  assert.equal(missing.hint, 'hint: exec into one of the pair by name, without -S: -c mesh-1 or -c mesh-2');
  const other = sidecarExecTarget(withAnnotation(pod, SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION, '{"mesh":"mesh-3"}'), 'mesh');
  assert.match(chosen(other), /^error\(1\): pod "web-7xk2p": annotation kruise\.io\/sidecarset-working-hotupgrade-container names "mesh-3" as the working container of sidecar "mesh", which is not one of its pair mesh-1\/mesh-2$/);
  const notJson = sidecarExecTarget(withAnnotation(pod, SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION, 'mesh=mesh-2'), 'mesh');
  assert.match(chosen(notJson), /^error\(1\): pod "web-7xk2p" runs the hot-upgrade pair mesh-1\/mesh-2 of sidecar "mesh" but its annotation kruise\.io\/sidecarset-working-hotupgrade-container is not a JSON object \("mesh=mesh-2"\)$/);
  const gone = structuredClone(pod);
  gone.spec.containers = gone.spec.containers.filter((c) => c.name !== 'mesh-2');
  assert.match(chosen(sidecarExecTarget(gone, 'mesh')), /^error\(1\): pod "web-7xk2p": annotation kruise\.io\/sidecarset-working-hotupgrade-container names "mesh-2" as the working container of sidecar "mesh", but the pod has no container "mesh-2"$/);
  const noLogger = structuredClone(pod);
  noLogger.spec.containers = noLogger.spec.containers.filter((c) => c.name !== 'logger');
  assert.match(chosen(sidecarExecTarget(noLogger, 'logger')), /^error\(1\): pod "web-7xk2p" has no container "logger", though sidecarset log is recorded as injected with it/);
});

test('the working container not running (an upgrade under way): exit 1, and the hint names its running twin', () => {
  const pod = fixture('sidecars-pod.yaml');
  const starting = structuredClone(pod);
  starting.status!.containerStatuses!.find((s) => s.name === 'mesh-2')!.state = { waiting: { reason: 'ContainerCreating' } };
  const t = sidecarExecTarget(starting, 'mesh');
  assert.ok(!t.ok && !t.input);
  assert.equal(t.message, 'the working container "mesh-2" of hot-upgrade sidecar "mesh" in pod "web-7xk2p" is not running (waiting: ContainerCreating)');
  assert.equal(t.hint, 'hint: a hot upgrade may be under way and "mesh-1" still runs: exec into it with -c mesh-1, without -S');
  assert.equal(containerNotRunning(starting, 'mesh-2'), 'waiting: ContainerCreating');
  assert.equal(containerNotRunning(starting, 'main'), undefined);
  const noStatus = structuredClone(pod);
  delete noStatus.status;
  assert.equal(containerNotRunning(noStatus, 'main'), undefined, 'not reported yet: the server decides');
});

test('no SidecarSet on the pod: -S says so and lists its containers (exit 2)', () => {
  const pod = fixture('sidecars-pod.yaml');
  const bare = withAnnotation(withAnnotation(pod, 'kruise.io/sidecarset-hash', undefined), SIDECARSET_WORKING_HOTUPGRADE_ANNOTATION, undefined);
  const t = sidecarExecTarget(bare, 'logger');
  assert.ok(!t.ok && t.input);
  assert.equal(t.message, 'pod "web-7xk2p" has no SidecarSet sidecars: no SidecarSet injected it (no kruise.io/sidecarset-hash annotation)');
  assert.equal(t.hint, 'hint: without -S, -c takes any of its containers: mesh-1, mesh-2, main, logger, log-shipper (init)');
});

// ───────────── kubectl's container choice (podcmd.go FindOrDefaultContainerByName, exec.go Run) ─────────────
test('without -S, kubectl\'s rules: -c must exist, else the default-container annotation, else the first container with a notice', () => {
  const pod = fixture('sidecars-pod.yaml');
  assert.equal(allContainerNames(pod), 'mesh-1, mesh-2, main, logger, log-shipper (init)');
  assert.deepEqual(plainExecTarget(pod, undefined), { ok: true, container: 'main' }, 'kubectl.kubernetes.io/default-container');
  const noDefault = withAnnotation(pod, 'kubectl.kubernetes.io/default-container', 'gone');
  assert.deepEqual(plainExecTarget(noDefault, undefined), { ok: true, container: 'mesh-1', notice: 'Defaulted container "mesh-1" out of: mesh-1, mesh-2, main, logger, log-shipper (init)' });
  assert.deepEqual(plainExecTarget(pod, 'log-shipper'), { ok: true, container: 'log-shipper' });
  assert.deepEqual(plainExecTarget(pod, 'nope'), { ok: false, input: true, message: 'container nope is not valid for pod web-7xk2p out of: mesh-1, mesh-2, main, logger, log-shipper (init)' });
  const single: Pod = { ...pod, metadata: { name: 'one', namespace: 'default' }, spec: { containers: [{ name: 'app' }] } };
  assert.deepEqual(plainExecTarget(single, undefined), { ok: true, container: 'app', notice: undefined });
  for (const phase of ['Succeeded', 'Failed']) {
    assert.equal(completedPodProblem({ ...pod, status: { phase } }), `cannot exec into a container in a completed pod; current phase is ${phase}`);
  }
  assert.equal(completedPodProblem(pod), undefined);
});
