// The sandbox's PodUnavailableBudget controller and pod webhooks (every profile serves PUB: v1alpha1 on
// v1.3–v1.9, v1beta1 storage on master):
// - controller (pkg/controller/podunavailablebudget): status counts from the pods (computePubStatus),
//   the related-pub annotation patched on the pods it counts, observedGeneration, and a look again when a
//   disruptedPods (20 s) / unavailablePods (10 s) record expires;
// - mutating pod webhook on CREATE: the related-pub annotation on pods a PUB selects or targets;
// - validating pod webhook `vpod.kb.io` (UPDATE with PodUnavailableBudgetUpdateGate, DELETE with
//   PodUnavailableBudgetDeleteGate) and `vpodeviction.kb.io` (pods/eviction CREATE): refused with 403
//   "admission webhook ... denied the request: podunavailablebudget.policy.kruise.io "NAME" is forbidden: ...".
import { computePubStatus, DEPRECATED_POD_RELATED_PUB_ANNOTATION, POD_RELATED_PUB_ANNOTATION, pubOperationForPodUpdate, readPubSpec } from '../../kruise/rules/pub';
import { labelSelectorMatches } from '../../kruise/selectors';
import type { KubeObject, Pod } from '../../kruise/types';
import { jsonEqual } from '../../lib/json-equal';
import { featureEnabled } from '../feature-gates';
import { ApiError } from '../server/errors';
import { EVICTIONS, type ControllerWithAdmission, type GroupResource, type SimulationSettings, type Store } from '../store-api';
import { Informer } from './informer';
import { PODS, controllerOf, keyOf, splitKey } from './pods';
import { checkPodAgainstPub, PUBS, pubRelease } from './pub-control';
import { WorkQueue } from './queue';

/** The workloads whose scale budgets count (and their ReplicaSets, for a Deployment's pods). */
export const BUDGET_WORKLOADS: GroupResource[] = [
  { group: 'apps.kruise.io', resource: 'clonesets' },
  { group: 'apps.kruise.io', resource: 'statefulsets' },
  { group: 'apps.kruise.io', resource: 'daemonsets' },
  { group: 'apps', resource: 'deployments' },
  { group: 'apps', resource: 'replicasets' },
  { group: 'apps', resource: 'statefulsets' },
  { group: 'apps', resource: 'daemonsets' },
];

/** "group/resource" of what budget counts depend on: pods and the workloads above. */
export const BUDGET_INPUTS: ReadonlySet<string> = new Set(['/pods', ...BUDGET_WORKLOADS.map((gr) => `${gr.group}/${gr.resource}`)]);

export function workloadsIn(store: Store, namespace: string | undefined): KubeObject[] {
  const out: KubeObject[] = [];
  for (const gr of BUDGET_WORKLOADS) {
    try {
      out.push(...store.list(gr, { namespace }));
    } catch {
      // a kind this profile does not serve
    }
  }
  return out;
}

function denied(webhook: string, message: string): ApiError {
  return new ApiError(403, 'Forbidden', `admission webhook "${webhook}" denied the request: ${message}`);
}

/** The PUB that protects a new pod: selector match, or a targetRef naming the pod's workload (a Deployment through its ReplicaSet). */
function pubForNewPod(store: Store, pod: Pod): KubeObject | undefined {
  // most namespaces have no budget: nothing else is read for their pods
  const pubs = store.list(PUBS, { namespace: pod.metadata.namespace });
  if (pubs.length === 0) return undefined;
  const ref = controllerOf(pod);
  const owners: Array<{ kind: string; name: string }> = ref ? [{ kind: ref.kind, name: ref.name }] : [];
  if (ref?.kind === 'ReplicaSet') {
    const rs = store.get({ group: 'apps', resource: 'replicasets' }, pod.metadata.namespace, ref.name);
    const up = rs ? controllerOf(rs) : undefined;
    if (up) owners.push({ kind: up.kind, name: up.name });
  }
  for (const pub of pubs) {
    if (pub.metadata.deletionTimestamp) continue;
    const view = readPubSpec(pub);
    if (view.targetRef ? owners.some((o) => o.kind === view.targetRef?.kind && o.name === view.targetRef?.name) : labelSelectorMatches(view.selector, pod.metadata.labels)) return pub;
  }
  return undefined;
}

function relatedAnnotations(settings: SimulationSettings, name: string): Record<string, string> {
  // master writes the stable key and keeps the deprecated one; releases up to v1.9 know only kruise.io/related-pub
  return settings.kruise === 'master' ? { [POD_RELATED_PUB_ANNOTATION]: name, [DEPRECATED_POD_RELATED_PUB_ANNOTATION]: name } : { [DEPRECATED_POD_RELATED_PUB_ANNOTATION]: name };
}

export function createPodUnavailableBudgetController(): ControllerWithAdmission {
  let store: Store | undefined;
  let settings: SimulationSettings | undefined;
  let queue: WorkQueue | undefined;
  const pubs = new Informer(PUBS);
  let unsubscribe: (() => void) | undefined;

  const enqueueNamespace = (namespace: string | undefined): void => {
    for (const p of pubs.all()) if (p.metadata.namespace === namespace) queue?.add(keyOf(p));
  };

  function reconcile(key: string): void {
    if (!store || !settings) return;
    const { namespace, name } = splitKey(key);
    const pub = store.get(PUBS, namespace, name);
    if (!pub || pub.metadata.deletionTimestamp) return;
    const now = new Date();
    const r = computePubStatus(pub, store.list(PODS, { namespace }) as Pod[], workloadsIn(store, namespace), now);
    if (r.error) return; // Kruise records an event and writes no status
    for (const pod of r.pods) {
      const ann = pod.metadata.annotations ?? {};
      if (ann[POD_RELATED_PUB_ANNOTATION] || ann[DEPRECATED_POD_RELATED_PUB_ANNOTATION]) continue;
      try {
        store.update(PODS, { ...pod, metadata: { ...pod.metadata, annotations: { ...ann, ...relatedAnnotations(settings, name) } } });
      } catch {
        // the pod changed or went: the pod event brings us back
      }
    }
    const fresh = store.get(PUBS, namespace, name) ?? pub;
    if (!jsonEqual(fresh.status, r.status)) store.updateStatus(PUBS, { ...fresh, status: r.status });
    if (r.recheckAt !== undefined) queue?.addAfter(key, Math.max(0, r.recheckAt - now.getTime()) + 1);
  }

  return {
    name: 'podunavailablebudget-controller',
    start(s: Store, simulation: SimulationSettings) {
      store = s;
      settings = simulation;
      queue = new WorkQueue('podunavailablebudget', reconcile).gatedBy(simulation.kruiseManager);
      pubs.on((_t, obj) => queue?.add(keyOf(obj)));
      pubs.start(s);
      // one subscription for the pods and workloads the counts depend on (no caches of our own)
      unsubscribe = s.subscribe((ev) => {
        if (BUDGET_INPUTS.has(`${ev.gr.group}/${ev.gr.resource}`)) enqueueNamespace(ev.object.metadata.namespace);
      });
    },
    stop() {
      queue?.stop();
      pubs.stop();
      unsubscribe?.();
    },
    admission: [
      {
        gr: PODS,
        operations: ['CREATE', 'UPDATE', 'DELETE'],
        admit(op, obj, old, st, request) {
          if (!settings) return obj;
          if (op === 'CREATE') {
            const pub = pubForNewPod(st, obj as Pod);
            if (!pub) return obj;
            return { ...obj, metadata: { ...obj.metadata, annotations: { ...(obj.metadata.annotations ?? {}), ...relatedAnnotations(settings, pub.metadata.name ?? '') } } };
          }
          if (op === 'UPDATE') {
            if (request?.subresource === 'status' || !old || !featureEnabled(settings.featureGates, 'PodUnavailableBudgetUpdateGate')) return obj;
            const operation = pubOperationForPodUpdate(old as Pod, obj as Pod, pubRelease(settings));
            if (!operation) return obj;
            const d = checkPodAgainstPub(st, old as Pod, operation, settings, request?.dryRun);
            if (!d.allowed) throw denied('vpod.kb.io', d.message);
            return obj;
          }
          if (!old || !featureEnabled(settings.featureGates, 'PodUnavailableBudgetDeleteGate')) return obj;
          const d = checkPodAgainstPub(st, old as Pod, 'DELETE', settings, request?.dryRun);
          if (!d.allowed) throw denied('vpod.kb.io', d.message);
          return obj;
        },
      },
      {
        gr: EVICTIONS,
        operations: ['CREATE'],
        admit(_op, obj, pod, st, request) {
          if (!settings || !pod || !featureEnabled(settings.featureGates, 'PodUnavailableBudgetDeleteGate')) return obj;
          const d = checkPodAgainstPub(st, pod as Pod, 'EVICT', settings, request?.dryRun);
          if (!d.allowed) throw denied('vpodeviction.kb.io', d.message);
          return obj;
        },
      },
    ],
  };
}
