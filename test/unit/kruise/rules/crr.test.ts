// Pure ContainerRecreateRequest rules, each a port of Kruise v1.9.0 code (no Go test tables
// exist for the daemon, so every test names the Go file and function it follows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  crrManageStep,
  crrSyncContainerStatuses,
  currentContainerRecreateStates,
  editReadinessMessage,
  pickCrr,
  runtimeContainersOf,
  type ContainerRecreateState,
  type CrrSpec,
  type CrrSyncContainerStatus,
  type RuntimeContainer,
} from '../../../../src/kruise/rules/crr';
import type { KubeObject, Pod } from '../../../../src/kruise/types';

const OLD_ID = 'containerd://aaa';
const NEW_ID = 'containerd://bbb';
const NOW = Date.parse('2026-11-24T12:00:30Z');
const spec = (strategy: CrrSpec['strategy'] = {}): CrrSpec => ({
  podName: 'web-0',
  containers: [{ name: 'app', statusContext: { containerID: OLD_ID, restartCount: 2 } }],
  strategy,
});
const running = (containerID: string, restartCount: number, startedAtMs = NOW - 10_000): RuntimeContainer => ({ name: 'app', containerID, restartCount, running: true, startedAtMs });
const sync = (s: CrrSyncContainerStatus) => new Map([[s.name, s]]);
const states = (sp: CrrSpec, prev: ContainerRecreateState[] | undefined, rt: RuntimeContainer[], synced = new Map<string, CrrSyncContainerStatus>()) =>
  currentContainerRecreateStates(sp, prev, rt, synced, NOW);

const SRC = 'pkg/daemon/containerrecreate/crr_daemon_util.go getCurrentCRRContainersRecreateStates';

test(`${SRC}: a Succeeded or Failed state is final`, () => {
  assert.deepEqual(states(spec(), [{ name: 'app', phase: 'Failed', message: 'kill container error: x' }], []), [{ name: 'app', phase: 'Failed', message: 'kill container error: x' }]);
  assert.deepEqual(states(spec(), [{ name: 'app', phase: 'Succeeded', isKilled: true }], []), [{ name: 'app', phase: 'Succeeded', isKilled: true }]);
});

test(`${SRC}: no container on the node → Pending "not found container on Node", isKilled carried over`, () => {
  assert.deepEqual(states(spec(), [{ name: 'app', phase: 'Recreating', isKilled: true }], []), [{ name: 'app', phase: 'Pending', message: 'not found container on Node', isKilled: true }]);
});

test(`${SRC}: an exited container (crashed, CrashLoopBackOff) is Recreating, never Failed`, () => {
  const exited: RuntimeContainer = { name: 'app', containerID: NEW_ID, restartCount: 3, running: false };
  assert.deepEqual(states(spec(), [{ name: 'app', phase: 'Recreating', isKilled: true }], [exited]), [{ name: 'app', phase: 'Recreating', isKilled: true }]);
  // Even one the request has not killed yet: it will be restarted by the kubelet anyway.
  assert.deepEqual(states(spec(), undefined, [{ ...exited, containerID: OLD_ID, restartCount: 2 }]), [{ name: 'app', phase: 'Recreating' }]);
});

test(`${SRC}: forceRecreate keeps a not-yet-killed container Pending even when it already restarted`, () => {
  assert.deepEqual(states(spec({ forceRecreate: true }), undefined, [running(NEW_ID, 3)]), [{ name: 'app', phase: 'Pending' }]);
  assert.deepEqual(states(spec({ forceRecreate: true }), [{ name: 'app', phase: 'Recreating', isKilled: true }], [running(NEW_ID, 3)]), [{ name: 'app', phase: 'Recreating', isKilled: true }]);
});

test(`${SRC}: restarted (new containerID or higher restartCount) → Succeeded only when the synced status is that instance, Ready, and older than minStartedSeconds`, () => {
  const killed: ContainerRecreateState[] = [{ name: 'app', phase: 'Recreating', isKilled: true }];
  const readySync = sync({ name: 'app', ready: true, restartCount: 3, containerID: NEW_ID });
  assert.deepEqual(states(spec(), killed, [running(NEW_ID, 3)], readySync), [{ name: 'app', phase: 'Succeeded', isKilled: true }]);
  // Not Ready (a crashing or unready container): stays Recreating.
  assert.deepEqual(states(spec(), killed, [running(NEW_ID, 3)], sync({ name: 'app', ready: false, restartCount: 3, containerID: NEW_ID })), killed);
  // No synced status yet, or one of another instance.
  assert.deepEqual(states(spec(), killed, [running(NEW_ID, 3)]), killed);
  assert.deepEqual(states(spec(), killed, [running(NEW_ID, 3)], sync({ name: 'app', ready: true, restartCount: 2, containerID: OLD_ID })), killed);
  // Started 10s ago: minStartedSeconds 10 is not yet exceeded (strictly greater), 9 is.
  assert.deepEqual(states(spec({ minStartedSeconds: 10 }), killed, [running(NEW_ID, 3)], readySync), killed);
  assert.deepEqual(states(spec({ minStartedSeconds: 9 }), killed, [running(NEW_ID, 3)], readySync), [{ name: 'app', phase: 'Succeeded', isKilled: true }]);
  // Same ID but a higher restartCount also counts as restarted.
  assert.deepEqual(states(spec(), killed, [running(OLD_ID, 3)], sync({ name: 'app', ready: true, restartCount: 3, containerID: OLD_ID })), [{ name: 'app', phase: 'Succeeded', isKilled: true }]);
});

test(`${SRC}: the same instance as at creation → Pending`, () => {
  assert.deepEqual(states(spec(), undefined, [running(OLD_ID, 2)]), [{ name: 'app', phase: 'Pending' }]);
});

const MANAGE = 'pkg/daemon/containerrecreate/crr_daemon_controller.go manage';
const rt = (...names: string[]): RuntimeContainer[] => names.map((name) => ({ name, containerID: `containerd://${name}`, restartCount: 0, running: true }));

test(`${MANAGE}: failurePolicy Fail completes at the first Failed container and leaves the others as they are`, () => {
  const cur: ContainerRecreateState[] = [
    { name: 'a', phase: 'Failed', message: 'kill container error: x' },
    { name: 'b', phase: 'Pending' },
  ];
  assert.deepEqual(crrManageStep(cur, { failurePolicy: 'Fail' }, rt('a', 'b')), { states: cur, complete: true });
});

test(`${MANAGE}: failurePolicy Ignore skips a Failed container and kills the next Pending one`, () => {
  const step = crrManageStep([{ name: 'a', phase: 'Failed' }, { name: 'b', phase: 'Pending' }], { failurePolicy: 'Ignore' }, rt('a', 'b'));
  assert.equal(step.kill, 'b');
  assert.equal(step.complete, false);
  assert.deepEqual(step.states[1], { name: 'b', phase: 'Recreating', isKilled: true });
  // And completes once every container is final, Failed ones included.
  assert.equal(crrManageStep([{ name: 'a', phase: 'Failed' }, { name: 'b', phase: 'Succeeded' }], { failurePolicy: 'Ignore' }, rt('a', 'b')).complete, true);
});

test(`${MANAGE}: one kill per pass; without orderedRecreate a Recreating container does not hold back the next`, () => {
  const first = crrManageStep([{ name: 'a', phase: 'Pending' }, { name: 'b', phase: 'Pending' }], {}, rt('a', 'b'));
  assert.equal(first.kill, 'a');
  assert.equal(first.states[1].phase, 'Pending');
  const second = crrManageStep([{ name: 'a', phase: 'Recreating', isKilled: true }, { name: 'b', phase: 'Pending' }], {}, rt('a', 'b'));
  assert.equal(second.kill, 'b');
});

test(`${MANAGE}: orderedRecreate waits for a Recreating container before the next`, () => {
  const step = crrManageStep([{ name: 'a', phase: 'Recreating' }, { name: 'b', phase: 'Pending' }], { orderedRecreate: true }, rt('a', 'b'));
  assert.equal(step.kill, undefined);
  assert.deepEqual(step.states, [{ name: 'a', phase: 'Recreating', isKilled: true }, { name: 'b', phase: 'Pending' }]);
});

test(`${MANAGE}: a Pending container missing on the node stops the pass; all Succeeded completes`, () => {
  assert.deepEqual(crrManageStep([{ name: 'a', phase: 'Pending' }], {}, []), { states: [{ name: 'a', phase: 'Pending' }], complete: false });
  assert.equal(crrManageStep([{ name: 'a', phase: 'Succeeded' }, { name: 'b', phase: 'Succeeded' }], {}, rt()).complete, true);
});

const crr = (name: string, phase: string | undefined, created: string, extra: Partial<KubeObject['metadata']> = {}, completionTime?: string): KubeObject => ({
  metadata: { name, creationTimestamp: created, ...extra },
  status: { ...(phase ? { phase } : {}), ...(completionTime ? { completionTime } : {}) },
});

test('pkg/daemon/containerrecreate/crr_daemon_util.go crrListByPhaseAndCreated + pickRecreateRequest: Recreating first, then Pending, then new, oldest first; finished and deleting skipped', () => {
  const done = crr('done', 'Completed', '2026-11-24T11:00:00Z', {}, '2026-11-24T11:01:00Z');
  const fresh = crr('fresh', undefined, '2026-11-24T11:00:00Z');
  const pending = crr('pending', 'Pending', '2026-11-24T11:30:00Z');
  const recreating = crr('recreating', 'Recreating', '2026-11-24T11:50:00Z');
  const deleting = crr('deleting', 'Recreating', '2026-11-24T10:00:00Z', { deletionTimestamp: '2026-11-24T11:55:00Z' });
  assert.equal(pickCrr([done, fresh, pending, recreating, deleting])?.metadata.name, 'recreating');
  assert.equal(pickCrr([done, fresh, pending])?.metadata.name, 'pending');
  assert.equal(pickCrr([fresh, crr('older', undefined, '2026-11-24T10:59:59Z')])?.metadata.name, 'older');
  assert.equal(pickCrr([done]), undefined);
});

test('pkg/controller/containerrecreaterequest/crr_controller.go syncContainerStatuses: running containers started since the CRR was created, history ignored', () => {
  const pod = {
    metadata: { name: 'web-0' },
    spec: { containers: [{ name: 'app' }, { name: 'sidecar' }, { name: 'down' }] },
    status: {
      containerStatuses: [
        { name: 'app', ready: true, restartCount: 3, image: 'x', containerID: NEW_ID, state: { running: { startedAt: '2026-11-24T12:00:10Z' } } },
        { name: 'sidecar', ready: true, restartCount: 0, image: 'x', containerID: OLD_ID, state: { running: { startedAt: '2026-11-24T11:00:00Z' } } },
        { name: 'down', ready: false, restartCount: 1, image: 'x', containerID: OLD_ID, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    },
  } as unknown as Pod;
  const sp: CrrSpec = { podName: 'web-0', containers: [{ name: 'app' }, { name: 'sidecar' }, { name: 'down' }, { name: 'ghost' }] };
  assert.deepEqual(crrSyncContainerStatuses(sp, pod, Date.parse('2026-11-24T12:00:10Z')), [{ name: 'app', ready: true, restartCount: 3, containerID: NEW_ID }]);
  // What the daemon sees on the node: the waiting container has an exited instance.
  assert.deepEqual(runtimeContainersOf(pod).map((r) => [r.name, r.running]), [['app', true], ['sidecar', true], ['down', false]]);
});

test('TestPodReadiness (pkg/util/podreadiness/pod_readiness_utils_test.go): keys added and removed, message sorted by userAgent then key', () => {
  const msg0 = { userAgent: 'ua1', key: 'foo' };
  const msg1 = { userAgent: 'ua1', key: 'bar' };
  const a = editReadinessMessage(undefined, msg0, 'add');
  assert.deepEqual(a, { changed: true, message: '[{"userAgent":"ua1","key":"foo"}]', count: 1 });
  assert.equal(editReadinessMessage(a.message, msg0, 'add').changed, false, 'already has key');
  const b = editReadinessMessage(a.message, msg1, 'add');
  assert.equal(b.message, '[{"userAgent":"ua1","key":"bar"},{"userAgent":"ua1","key":"foo"}]');
  const c = editReadinessMessage(b.message, msg0, 'remove');
  assert.deepEqual(c, { changed: true, message: '[{"userAgent":"ua1","key":"bar"}]', count: 1 }, 'one key left: the condition stays False');
  const d = editReadinessMessage(c.message, msg1, 'remove');
  assert.deepEqual(d, { changed: true, message: '[]', count: 0 }, 'no key left: the condition turns True');
  assert.equal(editReadinessMessage(d.message, msg1, 'remove').changed, false);
});
