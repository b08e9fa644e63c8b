// kruise-manager in the sandbox. Kruise's controllers run in the pods of the Deployment
// kruise-system/kruise-controller-manager (src/kruise/kruise-manager.ts); the sandbox runs them without one, so
// a cluster with no such Deployment has its manager running. Once someone creates it, it is the manager: the
// Kruise controllers' queues (gated by `gate`) reconcile only while it has an available replica, as a manager
// scaled to 0 or crashing leaves every Kruise workload unobserved, and work off what gathered once it is back.
// Kruise's webhooks keep answering meanwhile (in a cluster they serve from the same pods, failurePolicy Fail):
// the sandbox stops the controllers only, the state a manager that went down right after a write leaves.
import { KRUISE_MANAGER, kruiseControllersRun } from '../../kruise/kruise-manager';
import type { ControllerWithAdmission } from '../store-api';
import { DEPLOYMENTS } from './deployment';
import { Informer } from './informer';
import type { QueueGate } from './queue';

export interface KruiseManager extends ControllerWithAdmission {
  /** Shut while the manager Deployment exists without an available replica. */
  gate: QueueGate;
}

export function createKruiseManager(): KruiseManager {
  const deployments = new Informer(DEPLOYMENTS);
  let running = true;
  let waiting: Array<() => void> = [];
  const look = (): void => {
    const dep = deployments.get(`${KRUISE_MANAGER.namespace}/${KRUISE_MANAGER.name}`);
    const now = !dep || kruiseControllersRun(dep);
    if (now === running) return;
    running = now;
    if (!running) return;
    const wake = waiting;
    waiting = [];
    // After this store notification returns: a queue schedules its drain, it does not reconcile inline.
    for (const w of wake) w();
  };
  return {
    name: 'kruise-manager',
    gate: {
      open: () => running,
      whenOpen(wake) {
        if (running) wake();
        else waiting.push(wake);
      },
    },
    start(store) {
      deployments.on((_t, obj) => {
        if (obj.metadata.namespace === KRUISE_MANAGER.namespace && obj.metadata.name === KRUISE_MANAGER.name) look();
      });
      deployments.start(store);
      look();
    },
    stop() {
      deployments.stop();
      waiting = [];
    },
  };
}
