// kruise-manager, where every Kruise controller runs: the Deployment kruise-system/kruise-controller-manager
// (Kruise's config/manager/manager.yaml, namePrefix "kruise-", replicas 1). Its replicas elect a leader
// (main.go --enable-leader-election) and the leader runs the controllers, so they run while one replica is
// available and none runs while none is (scaled to 0, crashing): every Kruise workload then keeps a
// status.observedGeneration behind its metadata.generation.
import type { KubeObject } from './types';
import { KRUISE_MANAGER } from './preview/manager-gates';

export { KRUISE_MANAGER };

/** config/manager/manager.yaml's replicas: what a manager scaled to 0 is scaled back to. */
export const KRUISE_MANAGER_DEFAULT_REPLICAS = 1;

export interface ManagerState {
  /** spec.replicas (kube's default 1 when unset). */
  replicas: number;
  /** status.availableReplicas (0 when unset). */
  available: number;
}

export function kruiseManagerState(deployment: KubeObject): ManagerState {
  const spec = (deployment.spec ?? {}) as { replicas?: unknown };
  const status = (deployment.status ?? {}) as { availableReplicas?: unknown };
  return {
    replicas: typeof spec.replicas === 'number' ? spec.replicas : 1,
    available: typeof status.availableReplicas === 'number' ? status.availableReplicas : 0,
  };
}

/** Whether the Kruise controllers run: a replica is available to lead. */
export function kruiseControllersRun(deployment: KubeObject): boolean {
  return kruiseManagerState(deployment).available > 0;
}
