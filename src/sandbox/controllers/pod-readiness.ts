// Kruise's KruisePodReady readiness gate in the sandbox: the pod webhook's injectPodReadinessGate
// (admission on pod CREATE) and the podreadiness controller that sets the condition True once.
// Rules: src/kruise/rules/pod-readiness.ts. The CRR controller flips the condition False/True later.
import { initialKruisePodReadyCondition, injectKruisePodReadyGate } from '../../kruise/rules/pod-readiness';
import type { Pod } from '../../kruise/types';
import { featureEnabled } from '../feature-gates';
import type { ControllerWithAdmission, SimulationSettings, Store } from '../store-api';
import { Informer } from './informer';
import { keyOf, kubeTime, PODS, splitKey } from './pods';
import { WorkQueue } from './queue';

export function createPodReadinessController(): ControllerWithAdmission {
  let store: Store | undefined;
  let settings: SimulationSettings | undefined;
  let queue: WorkQueue | undefined;
  const pods = new Informer<Pod>(PODS);

  function reconcile(key: string): void {
    if (!store) return;
    const { namespace, name } = splitKey(key);
    const pod = store.get(PODS, namespace, name) as Pod | undefined;
    if (!pod) return;
    const cond = initialKruisePodReadyCondition(pod, kubeTime());
    if (!cond) return;
    const status = structuredClone(pod.status ?? {});
    status.conditions = [...(status.conditions ?? []), cond];
    store.updateStatus(PODS, { ...pod, status });
  }

  return {
    name: 'pod-readiness-controller',
    start(s: Store, simulation: SimulationSettings) {
      store = s;
      settings = simulation;
      queue = new WorkQueue('pod-readiness', reconcile).gatedBy(simulation.kruiseManager);
      // the controller's predicate: only pods with the gate and without the condition
      pods.on((type, pod) => {
        if (type !== 'DELETED' && initialKruisePodReadyCondition(pod, '') !== undefined) queue?.add(keyOf(pod));
      });
      pods.start(s);
    },
    stop() {
      queue?.stop();
      pods.stop();
    },
    admission: [
      {
        gr: PODS,
        operations: ['CREATE'],
        admit(_op, obj) {
          return injectKruisePodReadyGate(obj as Pod, featureEnabled(settings?.featureGates, 'KruisePodReadinessGate')) ?? obj;
        },
      },
    ],
  };
}
