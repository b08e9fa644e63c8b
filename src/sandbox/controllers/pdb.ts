// The sandbox's policy/v1 PodDisruptionBudget controller (kube-controller-manager's disruption
// controller): status.expectedPods / currentHealthy / desiredHealthy / disruptionsAllowed,
// disruptedPods bookkeeping (dropped after 2 minutes or once the pod is gone), the DisruptionAllowed
// condition and observedGeneration. The eviction subresource (server/resource-handler.ts) reads this
// status and refuses with 429 through src/kruise/rules/pdb.ts evictionDecision.
import { computePdbStatus, PDB_DELETION_TIMEOUT_MS } from '../../kruise/rules/pdb';
import type { Pod } from '../../kruise/types';
import { jsonEqual } from '../../lib/json-equal';
import type { Controller, GroupResource, Store } from '../store-api';
import { Informer } from './informer';
import { PODS, keyOf, kubeTime, splitKey } from './pods';
import { BUDGET_INPUTS, workloadsIn } from './pub';
import { WorkQueue } from './queue';

export const PDBS: GroupResource = { group: 'policy', resource: 'poddisruptionbudgets' };

type Condition = { type: string; status: string; reason: string; message: string; observedGeneration: number; lastTransitionTime?: string };

export function createPodDisruptionBudgetController(): Controller {
  let store: Store | undefined;
  let queue: WorkQueue | undefined;
  const pdbs = new Informer(PDBS);
  let unsubscribe: (() => void) | undefined;
  const enqueueNamespace = (namespace: string | undefined): void => {
    for (const p of pdbs.all()) if (p.metadata.namespace === namespace) queue?.add(keyOf(p));
  };

  function reconcile(key: string): void {
    if (!store) return;
    const { namespace, name } = splitKey(key);
    const pdb = store.get(PDBS, namespace, name);
    if (!pdb || pdb.metadata.deletionTimestamp) return;
    const now = new Date();
    const { error, ...status } = computePdbStatus(pdb, store.list(PODS, { namespace }) as Pod[], workloadsIn(store, namespace), now);
    void error; // kube records a warning event and still writes what it could count
    const old = (pdb.status ?? {}) as { conditions?: Condition[] };
    // a condition keeps its transition time while its status stays
    status.conditions = (status.conditions ?? []).map((c) => {
      const prev = old.conditions?.find((o) => o.type === c.type);
      return { ...c, lastTransitionTime: prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : kubeTime(now.getTime()) };
    });
    if (!jsonEqual(pdb.status, status)) store.updateStatus(PDBS, { ...pdb, status });
    // look again when the oldest granted eviction times out
    const stamps = Object.values(status.disruptedPods ?? {}).map((t) => Date.parse(t) + PDB_DELETION_TIMEOUT_MS);
    if (stamps.length > 0) queue?.addAfter(key, Math.max(0, Math.min(...stamps) - now.getTime()) + 1);
  }

  return {
    name: 'disruption-controller',
    start(s: Store) {
      store = s;
      queue = new WorkQueue('disruption', reconcile);
      pdbs.on((_t, obj) => queue?.add(keyOf(obj)));
      pdbs.start(s);
      // one subscription for the pods and workloads the counts depend on (no caches of our own)
      unsubscribe = s.subscribe((ev) => {
        if (BUDGET_INPUTS.has(`${ev.gr.group}/${ev.gr.resource}`)) enqueueNamespace(ev.object.metadata.namespace);
      });
    },
    stop() {
      queue?.stop();
      pdbs.stop();
      unsubscribe?.();
    },
  };
}
