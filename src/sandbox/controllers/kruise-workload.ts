// The wiring the Kruise workload controllers (CloneSet, Advanced StatefulSet, Advanced DaemonSet)
// share, so that each module holds only its sync and its webhook rules: informers on the workload,
// its pods and ControllerRevisions, a work queue keyed by namespace/name, owner-based enqueueing,
// and the defaulting + validating webhook run on create and on spec changes.
import type { FieldError } from '../../kruise/rules/cloneset-webhook';
import type { KubeObject, Pod } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { Informer } from './informer';
import { CONTROLLER_REVISIONS, PODS, keyOf, splitKey } from './pods';
import { WorkQueue } from './queue';
import { templateWorkloadWebhook } from './revisions-admission';

/** What one sync of a workload gets: the store, the caches and the queue to re-sync through. */
export interface KruiseSyncContext {
  store: Store;
  settings: SimulationSettings;
  pods: Informer<Pod>;
  revisions: Informer;
  queue: WorkQueue;
  key: string;
}

export interface KruiseWorkloadControllerSpec {
  name: string;
  queueName: string;
  gr: GroupResource;
  /** The kind in the ownerReferences of its pods and revisions (the same for v1alpha1 and v1beta1). */
  kind: string;
  /** Extra caches whose every change re-syncs every workload (Advanced DaemonSet: nodes). Started first. */
  resyncAllOn?: Informer[];
  sync(obj: KubeObject, ctx: KruiseSyncContext): void;
  /**
   * The webhook: defaults, then the field errors that reject the object with a 422. `templateDefaults`:
   * a create, or an update that changes spec.template (Kruise's webhooks inject template defaults then).
   */
  defaults(obj: KubeObject, templateDefaults: boolean): KubeObject;
  validate(defaulted: KubeObject, old: KubeObject | undefined, settings: SimulationSettings, store: Store): FieldError[];
  /** Whether an update that leaves spec alone still goes through the webhook (status writes never do). */
  webhookOnUnchangedSpec?(old: KubeObject, obj: KubeObject): boolean;
}

export function createKruiseWorkloadController(spec: KruiseWorkloadControllerSpec): ControllerWithAdmission {
  let store: Store | undefined;
  // Until start() the webhook may already run (objects created before controllers start); it then
  // judges as the default release would.
  let settings: SimulationSettings = { readyDelayMs: 500, kruise: 'v1.9', nodes: 3 };
  let queue: WorkQueue | undefined;
  const sets = new Informer(spec.gr);
  const pods = new Informer<Pod>(PODS);
  const revisions = new Informer(CONTROLLER_REVISIONS);
  const extra = spec.resyncAllOn ?? [];
  const enqueueOwner = (obj: KubeObject) => {
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (ref.controller && ref.kind === spec.kind && ref.apiVersion.startsWith('apps.kruise.io/')) queue?.add(`${obj.metadata.namespace}/${ref.name}`);
    }
  };
  return {
    name: spec.name,
    start(s: Store, st: SimulationSettings) {
      store = s;
      settings = st;
      queue = new WorkQueue(spec.queueName, (key) => {
        const { namespace, name } = splitKey(key);
        const obj = store?.get(spec.gr, namespace, name);
        if (store && obj && !obj.metadata.deletionTimestamp) spec.sync(obj, { store, settings, pods, revisions, queue: queue!, key });
      }).gatedBy(st.kruiseManager);
      sets.on((_t, obj) => queue?.add(keyOf(obj)));
      pods.on((_t, obj) => enqueueOwner(obj));
      for (const inf of extra) {
        inf.on(() => {
          for (const obj of sets.all()) queue?.add(keyOf(obj));
        });
      }
      revisions.on((t, obj) => {
        if (t === 'DELETED') enqueueOwner(obj);
      });
      for (const inf of extra) inf.start(s);
      revisions.start(s);
      pods.start(s);
      sets.start(s);
    },
    stop() {
      queue?.stop();
      sets.stop();
      pods.stop();
      for (const inf of extra) inf.stop();
      revisions.stop();
    },
    admission: [
      templateWorkloadWebhook({
        gr: spec.gr,
        kind: spec.kind,
        defaults: spec.defaults,
        validate: (defaulted, old, admissionStore) => spec.validate(defaulted, old, settings, admissionStore),
        webhookOnUnchangedSpec: spec.webhookOnUnchangedSpec,
        settings: () => settings,
      }),
    ],
  };
}
