// AdvancedCronJob: Kruise's webhook (defaults, then the 422 rules) and its controller, which creates a
// Job, BroadcastJob or ImageListPullJob per scheduled run (rules: src/kruise/rules/advancedcronjob.ts,
// schedules: src/kruise/rules/cron.ts, the controller's clock in UTC like kruise-manager's container).
// Which child events wake the controller follows the imitated release: since v1.7 Kruise watches Jobs
// through a BroadcastJob owner handler (advancedcronjob_job_controller.go watchJob), so a Job finishing
// is only seen at the next scheduled run or change of the AdvancedCronJob; v1.3 watched them properly.
import {
  CRON_CHILD_KINDS,
  advancedCronJobDefaults,
  cronTemplateKind,
  isCronChildOf,
  reconcileAdvancedCronJob,
  validateAdvancedCronJob,
  type AdvancedCronJobSpec,
  type CronChildKind,
} from '../../kruise/rules/advancedcronjob';
import type { KubeObject } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { Informer } from './informer';
import { controllerOf, keyOf, objectKey } from './pods';
import { WorkQueue } from './queue';
import { templateWorkloadWebhook } from './revisions-admission';

export const ADVANCED_CRON_JOBS: GroupResource = { group: 'apps.kruise.io', resource: 'advancedcronjobs' };

const grOf = (k: CronChildKind): GroupResource => ({ group: k.group, resource: k.resource });
const BACKOFF_MAX_MS = 300_000;

export function createAdvancedCronJobController(): ControllerWithAdmission {
  let store: Store;
  let settings: SimulationSettings | undefined;
  const cronJobs = new Informer(ADVANCED_CRON_JOBS);
  const children = Object.fromEntries(Object.values(CRON_CHILD_KINDS).map((k) => [k.kind, new Informer(grOf(k))])) as Record<CronChildKind['kind'], Informer>;
  /** Failed creations per key: retried after a doubling delay, as controller-runtime's rate limiter does. */
  const failures = new Map<string, number>();
  let queue: WorkQueue;

  /** The owner apiVersions whose children this release's field indexes count (fieldindex/register.go). */
  function ownerVersions(kind: CronChildKind, owner: string): string[] {
    return kind.kind === 'Job' && owner !== 'apps.kruise.io/v1alpha1' ? [owner, 'apps.kruise.io/v1alpha1'] : [owner];
  }

  function reconcile(key: string): void {
    const acj = cronJobs.get(key);
    const ownerApiVersion = store.storageVersion(ADVANCED_CRON_JOBS);
    if (!acj || acj.metadata.deletionTimestamp || !ownerApiVersion) return;
    const kind = CRON_CHILD_KINDS[cronTemplateKind((acj.spec ?? {}) as AdvancedCronJobSpec)];
    const childApiVersion = kind.group === 'batch' ? 'batch/v1' : store.storageVersion(grOf(kind));
    // Kruise reads ImageListPullJobs as v1beta1 only (v1.9+): without that version there is no such child.
    if (!childApiVersion || (kind.kind === 'ImageListPullJob' && childApiVersion !== 'apps.kruise.io/v1beta1')) return;
    const versions = ownerVersions(kind, ownerApiVersion);
    const owned = [...children[kind.kind].all()].filter((c) => c.metadata.namespace === acj.metadata.namespace && isCronChildOf(c, acj.metadata.name ?? '', versions));
    const plan = reconcileAdvancedCronJob({ acj, children: owned, now: Date.now(), ownerApiVersion, childApiVersion });
    if (canonicalJson(plan.status) !== canonicalJson(acj.status ?? {})) store.updateStatus(ADVANCED_CRON_JOBS, { ...acj, status: plan.status } as KubeObject);
    for (const name of plan.deleteChildren) {
      try {
        store.delete(grOf(kind), acj.metadata.namespace, name);
      } catch {
        /* already gone */
      }
    }
    if (plan.create) {
      try {
        store.create(grOf(kind), plan.create);
        failures.delete(key);
      } catch (err) {
        // Refused (e.g. the child's webhook) or already there: Kruise returns the error and is requeued with back-off.
        const n = (failures.get(key) ?? 0) + 1;
        failures.set(key, n);
        if (process.env.KRUISE_SANDBOX_DEBUG) console.error(`[advancedcronjob] ${key}: ${(err as Error).message}`);
        queue.addAfter(key, Math.min(BACKOFF_MAX_MS, 500 * 2 ** (n - 1)));
        return;
      }
    }
    if (plan.requeueAfterMs !== undefined && plan.requeueAfterMs > 0) queue.addAfter(key, plan.requeueAfterMs + 5);
  }

  function onChild(kind: CronChildKind['kind']) {
    return (type: 'ADDED' | 'MODIFIED' | 'DELETED', child: KubeObject) => {
      const ref = controllerOf(child);
      if (ref?.kind !== 'AdvancedCronJob') return;
      const v13 = settings?.kruise === 'v1.3';
      if (kind === 'Job' && !v13) return; // watchJob's handler looks for a BroadcastJob owner
      if (type === 'DELETED' && !v13) return; // create and update events only
      queue.add(objectKey(child.metadata.namespace, ref.name));
    };
  }

  return {
    name: 'advancedcronjob',
    admission: [
      templateWorkloadWebhook({
        gr: ADVANCED_CRON_JOBS,
        kind: 'AdvancedCronJob',
        defaults: advancedCronJobDefaults,
        validate: (defaulted, old) => validateAdvancedCronJob(defaulted, old),
        settings: () => settings,
      }),
    ],
    start(s: Store, st: SimulationSettings) {
      store = s;
      settings = st;
      queue = new WorkQueue('advancedcronjob', reconcile).gatedBy(st.kruiseManager);
      cronJobs.on((type, acj) => {
        if (type === 'DELETED') failures.delete(keyOf(acj));
        else queue.add(keyOf(acj));
      });
      for (const [kind, informer] of Object.entries(children)) informer.on(onChild(kind as CronChildKind['kind'])).start(s);
      cronJobs.start(s);
    },
    stop() {
      queue?.stop();
      cronJobs.stop();
      for (const informer of Object.values(children)) informer.stop();
    },
  };
}
