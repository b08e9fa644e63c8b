// batch/v1 Job: the API server's defaults and validation (admission on create and spec changes) and
// a minimal job controller (rules: src/kruise/rules/job.ts). The sandbox served Jobs before without
// running them; now their pods run (the kubelet finishes pods of restartPolicy Never/OnFailure), are
// tracked through the job-tracking finalizer, and the Job completes or fails as kube v1.32 says.
import { JOB_TRACKING_FINALIZER, jobDefaults, jobPod, syncJob, validateJob } from '../../kruise/rules/job';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject, Pod } from '../../kruise/types';
import type { AdmissionHook, ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { Informer } from './informer';
import { PODS, controllerOf, keyOf, objectKey } from './pods';
import { WorkQueue } from './queue';
import { rejectInvalid } from './revisions-admission';

export const JOBS: GroupResource = { group: 'batch', resource: 'jobs' };

export const jobAdmission: AdmissionHook = {
  gr: JOBS,
  operations: ['CREATE', 'UPDATE'],
  admit(op, obj, old) {
    // status writes keep the spec: nothing to default or check
    if (op === 'UPDATE' && old && jsonEqual(old.spec, obj.spec)) return obj;
    const defaulted = op === 'CREATE' ? jobDefaults(obj) : obj;
    rejectInvalid(JOBS, 'Job', defaulted, validateJob(defaulted, op === 'UPDATE' ? old : undefined));
    return defaulted;
  },
};

export function createJobController(): ControllerWithAdmission {
  let store: Store;
  let settings: SimulationSettings;
  const jobs = new Informer(JOBS);
  const pods = new Informer<Pod>(PODS);
  /** When each job (uid) last saw a pod fail: the replacement back-off counts from there. */
  const lastFailure = new Map<string, { failed: number; at: number }>();
  let queue: WorkQueue;

  function releaseFinalizer(pod: Pod): void {
    const finalizers = (pod.metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
    try {
      store.update(PODS, { ...pod, metadata: { ...pod.metadata, finalizers } } as KubeObject);
    } catch {
      /* gone meanwhile */
    }
  }

  function reconcile(key: string): void {
    if (key.startsWith('orphan:')) {
      const pod = pods.get(key.slice('orphan:'.length));
      if (pod && (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER) && !jobs.get(objectKey(pod.metadata.namespace, controllerOf(pod)?.name))) releaseFinalizer(pod);
      return;
    }
    const job = jobs.get(key);
    if (!job || job.metadata.deletionTimestamp) return;
    const uid = job.metadata.uid ?? '';
    const owned = pods.ownedBy(uid).filter((p) => controllerOf(p)?.uid === uid);
    const now = Date.now();
    const seen = lastFailure.get(uid);
    const plan = syncJob({ job, pods: owned, now, backoffBaseMs: Math.max(settings.readyDelayMs, 100), lastFailureAt: seen?.at });
    if (plan.status) {
      const failed = (plan.status.failed ?? 0) + (plan.status.uncountedTerminatedPods?.failed?.length ?? 0);
      if (failed > (seen?.failed ?? 0)) lastFailure.set(uid, { failed, at: now });
    }
    let created = 0;
    for (let i = 0; i < plan.create; i++) {
      try {
        store.create(PODS, jobPod(job) as KubeObject);
        created++;
      } catch {
        break;
      }
    }
    if (plan.status) {
      const status = { ...plan.status };
      if (created < plan.create) {
        const active = (status.active ?? 0) - (plan.create - created);
        if (active > 0) status.active = active;
        else delete status.active;
      }
      if (canonicalJson(status) !== canonicalJson(job.status ?? {})) store.updateStatus(JOBS, { ...job, status } as KubeObject);
    }
    // Finalizers go only after the status has recorded these pods.
    for (const name of plan.releasePods) {
      const p = pods.get(objectKey(job.metadata.namespace, name));
      if (p) releaseFinalizer(p);
    }
    for (const name of plan.deletePods) {
      try {
        store.delete(PODS, job.metadata.namespace, name);
      } catch {
        /* already gone */
      }
    }
    if (plan.deleteJob) {
      store.delete(JOBS, job.metadata.namespace, job.metadata.name ?? '');
      return;
    }
    if (plan.requeueAfterMs !== undefined) queue.addAfter(key, Math.max(1, plan.requeueAfterMs + 5));
  }

  return {
    name: 'job',
    admission: [jobAdmission],
    start(s: Store, st: SimulationSettings) {
      store = s;
      settings = st;
      queue = new WorkQueue('job', reconcile);
      jobs.on((type, job) => {
        if (type !== 'DELETED') {
          queue.add(keyOf(job));
          return;
        }
        lastFailure.delete(job.metadata.uid ?? '');
        for (const p of pods.ownedBy(job.metadata.uid)) if ((p.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER)) queue.add(`orphan:${keyOf(p)}`);
      });
      pods.on((type, pod) => {
        const ref = controllerOf(pod);
        if (ref?.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
        const key = objectKey(pod.metadata.namespace, ref.name);
        const job = jobs.get(key);
        if (job && job.metadata.uid === ref.uid) queue.add(key);
        // A pod whose job is gone: nothing will count it, release it (the orphan cleanup of kube's job controller).
        else if (type !== 'DELETED' && (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER)) queue.add(`orphan:${keyOf(pod)}`);
      });
      pods.start(s);
      jobs.start(s);
    },
    stop() {
      queue?.stop();
      jobs.stop();
      pods.stop();
    },
  };
}
