// BroadcastJob: Kruise's webhook (defaults, then the 422 rules) and its controller, one pod per
// eligible node (rules: src/kruise/rules/broadcastjob.ts). Pods are pinned to their node through a
// metadata.name node affinity and bound by the sandbox scheduler, as Kruise's default
// --assign-bcj-pods-by-scheduler does; the kubelet runs them to completion.
import {
  BROADCAST_JOB_NAME_LABEL,
  BROADCAST_JOB_UID_LABEL,
  broadcastJobDefaults,
  broadcastJobPod,
  nodeFitnessProblem,
  reconcileBroadcastJob,
  validateBroadcastJob,
} from '../../kruise/rules/broadcastjob';
import type { KubeObject, Pod } from '../../kruise/types';
import { compareNatural } from '../../lib/compare';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { Informer } from './informer';
import { NODES, PODS, controllerOf, keyOf, objectKey } from './pods';
import { WorkQueue } from './queue';
import { templateWorkloadWebhook } from './revisions-admission';

export const BROADCAST_JOBS: GroupResource = { group: 'apps.kruise.io', resource: 'broadcastjobs' };

/** The parts of a node that decide where a BroadcastJob runs (not its heartbeats). */
function placementOf(node: KubeObject): string {
  const status = node.status as { allocatable?: unknown; conditions?: Array<{ type: string; status: string }> } | undefined;
  const trueConditions = (status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type).sort();
  return canonicalJson({ labels: node.metadata.labels ?? {}, spec: node.spec ?? {}, allocatable: status?.allocatable ?? {}, trueConditions });
}

export function createBroadcastJobController(): ControllerWithAdmission {
  let store: Store;
  let settings: SimulationSettings | undefined;
  const jobs = new Informer(BROADCAST_JOBS);
  const pods = new Informer<Pod>(PODS);
  const nodes = new Informer(NODES);
  let queue: WorkQueue;

  function reconcile(key: string): void {
    const job = jobs.get(key);
    if (!job || job.metadata.deletionTimestamp) return;
    const uid = job.metadata.uid ?? '';
    const labelled = pods.ownedBy(uid).filter((p) => p.metadata.labels?.[BROADCAST_JOB_NAME_LABEL] === job.metadata.name && p.metadata.labels?.[BROADCAST_JOB_UID_LABEL] === uid);
    const allNodes = [...nodes.all()].sort((a, b) => compareNatural(a.metadata.name ?? '', b.metadata.name ?? ''));
    const plan = reconcileBroadcastJob({ job, pods: labelled, nodes: allNodes, now: Date.now() });
    if (plan.deleteJob) {
      store.delete(BROADCAST_JOBS, job.metadata.namespace, job.metadata.name ?? '');
      return;
    }
    const status = plan.status ? { ...plan.status } : undefined;
    for (const name of plan.deletePods) {
      try {
        store.delete(PODS, job.metadata.namespace, name);
      } catch {
        if (status) {
          // deleteJobPods counts only the pods it deleted
          status.failed--;
          status.active++;
        }
      }
    }
    const ownerApiVersion = store.storageVersion(BROADCAST_JOBS) ?? 'apps.kruise.io/v1alpha1';
    for (const node of plan.createOn) {
      try {
        store.create(PODS, broadcastJobPod(job, node, ownerApiVersion) as KubeObject);
      } catch {
        if (status) status.active--;
      }
    }
    if (status && canonicalJson(status) !== canonicalJson(job.status ?? {})) store.updateStatus(BROADCAST_JOBS, { ...job, status } as KubeObject);
    if (plan.requeueAfterMs !== undefined && plan.requeueAfterMs > 0) queue.addAfter(key, plan.requeueAfterMs + 5);
  }

  return {
    name: 'broadcastjob',
    admission: [
      templateWorkloadWebhook({
        gr: BROADCAST_JOBS,
        kind: 'BroadcastJob',
        defaults: broadcastJobDefaults,
        validate: (defaulted) => validateBroadcastJob(defaulted),
        settings: () => settings,
      }),
    ],
    start(s: Store, st: SimulationSettings) {
      store = s;
      settings = st;
      queue = new WorkQueue('broadcastjob', reconcile).gatedBy(st.kruiseManager);
      jobs.on((type, job) => {
        if (type !== 'DELETED') queue.add(keyOf(job));
      });
      pods.on((_type, pod) => {
        const ref = controllerOf(pod);
        if (ref?.kind === 'BroadcastJob' && ref.apiVersion.startsWith('apps.kruise.io/')) queue.add(objectKey(pod.metadata.namespace, ref.name));
      });
      // enqueueBroadcastJobForNode: a new node a job fits, or a node whose fitness changed.
      nodes.on((type, node, old) => {
        if (type === 'DELETED' || (old && placementOf(old) === placementOf(node))) return;
        for (const job of jobs.all()) {
          const spec = { ...((job.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec ?? {}), nodeName: node.metadata.name };
          const fitsNow = !nodeFitnessProblem(spec, node);
          const fitBefore = old ? !nodeFitnessProblem(spec, old) : false;
          if (type === 'ADDED' ? fitsNow : fitsNow !== fitBefore) queue.add(keyOf(job));
        }
      });
      nodes.start(s);
      pods.start(s);
      jobs.start(s);
    },
    stop() {
      queue?.stop();
      jobs.stop();
      pods.stop();
      nodes.stop();
    },
  };
}
