// Seeded random Kruise objects (statuses halfway, odd partitions, both versions, every step state)
// for the tests that compare generated health checks (Lua, CEL) with our gate: the same objects
// on every run, so a disagreement can be replayed.
import type { KubeObject } from '../../src/kruise/types';

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

