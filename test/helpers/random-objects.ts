// Seeded random Kruise objects (statuses halfway, odd partitions, both versions, every step state)
// for the tests that compare generated health checks (Lua, CEL) with our gate: the same objects
// on every run, so a disagreement can be replayed.
import type { KubeObject } from '../../src/kruise/types';
import { unitedDeploymentAdapter } from '../../src/kruise/workloads/uniteddeployment';

/** How many objects of a kind each generator makes. */
export const COUNT = 600;

/** mulberry32: the same objects on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeded choices: int(n) in 0..n, pick(xs), maybe(v, p). */
export function maker(seed: number) {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * (n + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = <T>(v: T, p = 0.7): T | undefined => (r() < p ? v : undefined);
  return { int, pick, maybe };
}

/** The object as JSON keeps it (undefined fields dropped). */
export function compact(o: unknown): unknown {
  return JSON.parse(JSON.stringify(o));
}

/** A coin from a maker's int. */
export function r01(int: (n: number) => number): boolean {
  return int(1) === 1;
}

export function randomWorkloads(kind: 'CloneSet' | 'StatefulSet' | 'DaemonSet', seed: number): KubeObject[] {
  const { int, pick, maybe } = maker(seed);
  const out: KubeObject[] = [];
  for (let i = 0; i < COUNT; i++) {
    const version = kind === 'DaemonSet' ? 'v1alpha1' : pick(['v1alpha1', 'v1beta1']);
    const replicas = int(6);
    const partition = maybe(pick<unknown>([int(7), -1, `${int(100)}%`, '12.5%', '100%', '150%', 'x', 1.5]), 0.6);
    const paused = maybe(int(1) === 1, 0.5);
    const rolling: Record<string, unknown> = { partition, paused };
    const type = pick(kind === 'CloneSet' && version === 'v1alpha1' ? ['ReCreate', 'InPlaceIfPossible', 'OnDelete', undefined] : ['RollingUpdate', 'OnDelete', undefined]);
    const updateStrategy = kind === 'CloneSet' && version === 'v1alpha1' ? { type, ...rolling } : { type, rollingUpdate: maybe(rolling, 0.8) };
    const total = int(7);
    const updated = int(7);
    const generation = 1 + int(2);
    const rev = (h: string) => `web-${h}`;
    const status: Record<string, unknown> =
      kind === 'DaemonSet'
        ? {
            observedGeneration: maybe(1 + int(2)),
            desiredNumberScheduled: maybe(replicas, 0.9),
            currentNumberScheduled: maybe(total, 0.9),
            numberReady: maybe(int(7)),
            numberAvailable: maybe(int(7)),
            updatedNumberScheduled: maybe(updated),
            updateRevision: maybe(rev(pick(['a', 'b'])), 0.4),
            daemonSetHash: maybe(pick(['a', 'b']), 0.5),
          }
        : {
            observedGeneration: maybe(1 + int(2)),
            replicas: maybe(total, 0.9),
            readyReplicas: maybe(int(7)),
            availableReplicas: maybe(int(7)),
            updatedReplicas: maybe(updated),
            updatedReadyReplicas: maybe(int(7), 0.5),
            updatedAvailableReplicas: maybe(int(7), 0.5),
            expectedUpdatedReplicas: kind === 'CloneSet' ? maybe(int(7), 0.5) : undefined,
            updateRevision: maybe(rev(pick(['a', 'b'])), 0.8),
            currentRevision: maybe(pick([rev('a'), rev('b'), 'other-a']), 0.8),
            conditions: maybe([{ type: 'Progressing', status: 'False', reason: pick(['ProgressDeadlineExceeded', 'NewReplicaSetAvailable']) }], 0.2),
          };
    out.push(
      compact({
        apiVersion: `apps.kruise.io/${version}`,
        kind,
        metadata: { name: `w${i}`, namespace: 'default', generation: maybe(generation, 0.9) },
        spec: { replicas: kind === 'DaemonSet' ? undefined : maybe(replicas, 0.9), minReadySeconds: maybe(pick([0, 10]), 0.3), updateStrategy },
        status,
      }) as KubeObject,
    );
  }
  return out;
}

export function randomRollouts(seed: number): KubeObject[] {
  const { int, pick, maybe } = maker(seed);
  const out: KubeObject[] = [];
  for (let i = 0; i < COUNT; i++) {
    const v1beta1 = r01(int);
    const blueGreen = v1beta1 && int(2) === 0;
    const steps = Array.from({ length: 1 + int(3) }, () =>
      compact(v1beta1 ? { replicas: maybe(pick<unknown>([1, 2, '50%', '100%'])), pause: maybe({ duration: maybe(pick([0, 60, 600])) }, 0.5) } : { weight: maybe(pick([20, 50, 100])), replicas: maybe(pick<unknown>([1, '100%']), 0.3), pause: maybe({ duration: maybe(60) }, 0.5) }),
    );
    const strategyBody = { steps };
    const strategy = blueGreen ? { blueGreen: strategyBody, paused: maybe(r01(int), 0.2) } : { canary: strategyBody, paused: maybe(r01(int), 0.2) };
    // Weighted to the states that need a decision (a step pause, with or without a duration).
    const stepState = pick(['StepInit', 'StepUpgrade', 'StepTrafficRouting', 'StepPaused', 'StepPaused', 'StepPaused', 'StepReady', 'Completed', undefined]);
    const sub = maybe({ currentStepIndex: maybe(1 + int(3), 0.9), currentStepState: stepState, lastUpdateTime: maybe('2026-11-28T23:59:00Z'), canaryReplicas: 1, canaryReadyReplicas: 1 }, 0.85);
    const conditions = [
      maybe({ type: 'Progressing', status: pick(['True', 'False']), reason: pick(['Initializing', 'InRolling', 'Finalising', 'Completed', 'Cancelling', 'Paused']), message: maybe('m') }),
      maybe({ type: 'Succeeded', status: pick(['True', 'False']) }, 0.3),
    ].filter(Boolean);
    out.push(
      compact({
        apiVersion: v1beta1 ? 'rollouts.kruise.io/v1beta1' : 'rollouts.kruise.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: `r${i}`, namespace: 'default', generation: maybe(1, 0.9) },
        spec: { disabled: maybe(true, 0.05), strategy, ...(v1beta1 ? { workloadRef: { kind: 'CloneSet', name: 'w' } } : { objectRef: { workloadRef: { kind: 'CloneSet', name: 'w' } } }) },
        status: {
          observedGeneration: maybe(pick([1, 1, 1, 2]), 0.9),
          phase: pick(['Initial', 'Healthy', 'Healthy', 'Progressing', 'Progressing', 'Progressing', 'Terminating', 'Disabled', 'Disabling', undefined]),
          message: maybe(pick(['Workload Not Found', 'x']), 0.2),
          [blueGreen ? 'blueGreenStatus' : 'canaryStatus']: sub,
          conditions,
        },
      }) as KubeObject,
    );
  }
  return out;
}

/** SidecarSets, BroadcastJobs, AdvancedCronJobs, ImagePullJobs and ContainerRecreateRequests: counts halfway, odd partitions, every phase. */
export function randomKruiseObjects(kind: string, seed: number): KubeObject[] {
  const { int, pick, maybe } = maker(seed);
  const out: KubeObject[] = [];
  for (let i = 0; i < COUNT; i++) {
    const metadata = { name: `k${i}`, namespace: 'default', generation: maybe(1 + int(2), 0.9) };
    let spec: Record<string, unknown> = {};
    let status: Record<string, unknown> = {};
    if (kind === 'SidecarSet') {
      spec = { updateStrategy: maybe({ type: maybe(pick(['RollingUpdate', 'NotUpdate'])), partition: maybe(pick<unknown>([int(5), -1, `${int(100)}%`, '12.5%', '100%', 'x', 1.5]), 0.5), paused: maybe(r01(int), 0.4) }, 0.9) };
      status = { observedGeneration: maybe(1 + int(2)), matchedPods: maybe(int(5), 0.9), updatedPods: maybe(int(5)), readyPods: maybe(int(5)), updatedReadyPods: maybe(int(5)) };
    } else if (kind === 'UnitedDeployment') {
      const names = ['a', 'b', 'c'].slice(0, 1 + int(2));
      const minMax = int(4) === 0;
      const subsets = names.map((name) =>
        minMax
          ? { name, minReplicas: maybe(pick<unknown>([int(4), `${int(100)}%`, 'x']), 0.6), maxReplicas: maybe(pick<unknown>([int(6), `${int(100)}%`]), 0.5) }
          : { name, replicas: maybe(pick<unknown>([int(5), `${pick([0, 25, 50, 100, 150])}%`, '50', -1, 1.5]), 0.5) },
      );
      const replicas = maybe(int(8), 0.9);
      const partitions = Object.fromEntries(names.filter(() => int(1) === 1).map((n) => [n, pick<unknown>([1 + int(4), 1 + int(4), 1 + int(4), 0, -1, '1'])]));
      const template = pick(['cloneSetTemplate', 'advancedStatefulSetTemplate', 'statefulSetTemplate', 'deploymentTemplate']);
      spec = { replicas, topology: { subsets }, template: { [template]: { spec: {} } }, updateStrategy: maybe({ type: maybe(pick(['Manual', 'Manual', 'Other']), 0.8), manualUpdate: maybe({ partitions }, 0.9) }, 0.9) };
      const rev = (h: string) => `ud-${h}`;
      status = {
        observedGeneration: maybe(1 + int(2)),
        replicas: maybe(int(8), 0.9),
        readyReplicas: maybe(int(8)),
        updatedReplicas: maybe(int(8)),
        updatedReadyReplicas: maybe(int(8), 0.7),
        subsetReplicas: maybe(Object.fromEntries(names.map((n) => [n, int(6)])), 0.4),
        subsetStatuses: maybe(names.map((n) => ({ name: n, replicas: int(4) })), 0.3),
        currentRevision: maybe(pick([rev('a'), rev('b')]), 0.8),
        updateStatus: maybe({ updatedRevision: maybe(rev(pick(['a', 'b']))) }, 0.5),
        updatedRevision: maybe(rev(pick(['a', 'b'])), 0.3),
        conditions: maybe([{ type: 'Progressing', status: 'False', reason: pick(['ProgressDeadlineExceeded', 'Other']) }], 0.2),
      };
    } else if (kind === 'BroadcastJob') {
      spec = { paused: maybe(r01(int), 0.3), completionPolicy: maybe({ type: pick(['Always', 'Never']) }) };
      const conditions = [maybe({ type: pick(['Complete', 'Failed']), status: pick(['True', 'False']), message: maybe('why') }, 0.3)].filter(Boolean);
      status = { phase: maybe(pick(['running', 'paused', 'completed', 'failed', ''])), desired: maybe(int(4)), active: maybe(int(4)), succeeded: maybe(int(4)), failed: maybe(int(2)), conditions: maybe(conditions) };
    } else if (kind === 'AdvancedCronJob') {
      spec = { schedule: '*/5 * * * *', paused: maybe(pick<unknown>([true, false, 'true']), 0.5) };
      status = { active: maybe(Array.from({ length: int(2) }, (_, j) => ({ kind: 'Job', name: `j${j}` }))), lastScheduleTime: maybe('2026-11-29T00:00:00Z') };
    } else if (kind === 'ImagePullJob') {
      spec = { image: 'nginx', completionPolicy: maybe({ type: maybe(pick(['Always', 'Never'])) }, 0.9) };
      status = { desired: maybe(int(4), 0.9), active: maybe(int(3)), succeeded: maybe(int(4)), failed: maybe(int(2), 0.4), startTime: maybe('2026-11-29T00:00:00Z'), completionTime: maybe('2026-11-29T00:05:00Z', 0.4), message: maybe(pick(['', 'job exceeds activeDeadlineSeconds'])) };
    } else {
      spec = { podName: 'p', containers: [{ name: 'a' }, { name: 'b' }] };
      const state = () => ({ name: maybe(pick(['a', 'b']), 0.9), phase: pick(['Pending', 'Recreating', 'Succeeded', 'Failed']) });
      status = { phase: maybe(pick(['Pending', 'Recreating', 'Completed', 'Completed', ''])), message: maybe(pick(['', 'pod has gone']), 0.4), containerRecreateStates: maybe(Array.from({ length: int(2) }, state)) };
    }
    const obj = compact({ apiVersion: `apps.kruise.io/${pick(['v1alpha1', 'v1beta1'])}`, kind, metadata, spec, status: maybe(status, 0.95) }) as KubeObject;
    if (kind === 'UnitedDeployment' && int(1) === 1) {
      // A status exactly at the partition our rule counts: Healthy only when the Lua keeps the same number of pods old.
      const desired = typeof spec.replicas === 'number' ? spec.replicas : 0;
      const updated = desired - unitedDeploymentAdapter.partitionReplicas(obj)!;
      obj.metadata.generation = 1;
      obj.status = { ...(obj.status ?? {}), observedGeneration: 1, replicas: desired, readyReplicas: desired, updatedReplicas: updated, updatedReadyReplicas: updated, currentRevision: 'ud-a', updateStatus: { updatedRevision: 'ud-b' } };
      delete (obj.status as Record<string, unknown>).conditions;
    }
    out.push(obj);
  }
  return out;
}
