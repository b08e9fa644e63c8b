// The sandbox's Kruise Rollout controller (openkruise/rollouts v0.6.2): the Rollout reconciler, the
// BatchRelease reconciler and the workload mutating webhook (rollout-webhook.ts). Only I/O here: the
// rules are src/kruise/rollout/state-machine.ts (Rollout), batch-release.ts (BatchRelease) and the
// per-kind release controls (release-control.ts). Works on the served storage version: a v1alpha1
// Rollout / BatchRelease (v0.4) is converted to v1beta1 for the rules and its writes back.
import {
  batchReleaseV1alpha1ToV1beta1,
  batchReleaseV1beta1ToV1alpha1,
  rolloutV1alpha1ToV1beta1,
  rolloutV1beta1ToV1alpha1,
} from '../../kruise/rollout-conversion';
import { reconcileBatchRelease } from '../../kruise/rollout/batch-release';
import { apiGroupOf } from '../../kruise/rollout/find';
import { releaseControlFor } from '../../kruise/rollout/release-control';
import { at } from '../../kruise/workloads/access';
import { readWorkloadRef, rolloutWorkloadRef } from '../../kruise/rollout/read';
import { readRolloutSpec, reconcileRollout, type RolloutWrite } from '../../kruise/rollout/state-machine';
import { INGRESSES, SERVICES, trafficObjectNames } from '../../kruise/rollout/traffic';
import type { TrafficObjects } from '../../kruise/rollout/rollout-context';
import type { KubeObject } from '../../kruise/types';
import type { KruiseRolloutRelease, WorkloadRelated } from '../../kruise/rollout/release-workload';
import { mergePatch } from '../../lib/json-patch';
import type { ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { Informer } from './informer';
import { PODS, keyOf, splitKey } from './pods';
import { WorkQueue } from './queue';
import { createRolloutWebhook } from './rollout-webhook';
import { createRolloutValidatingWebhook } from './rollout-validating-webhook';
import { WORKLOAD_RESOURCES, workloadResourceOf } from './rollout-workloads';

export const ROLLOUTS: GroupResource = { group: 'rollouts.kruise.io', resource: 'rollouts' };
export const BATCH_RELEASES: GroupResource = { group: 'rollouts.kruise.io', resource: 'batchreleases' };
/** Sandbox-only opt-out of this controller for one Rollout (value "none"). */
export const HANDS_OFF_ANNOTATION = 'kruise-sandbox/controller';
/** pkg/util/constant.go KruiseRolloutFinalizer. */
export const ROLLOUT_FINALIZER = 'rollouts.kruise.io/rollout';
/** The webhook's objectSelector label (rollout_status.go patchWorkloadRolloutWebhookLabel). */
const WORKLOAD_TYPE_LABEL = 'rollouts.kruise.io/workload-type';
const WORKLOAD_TYPES: Record<string, string> = { CloneSet: 'cloneset', Deployment: 'deployment', StatefulSet: 'statefulset', DaemonSet: 'daemonset' };

const isV1alpha1 = (obj: KubeObject | undefined) => obj?.apiVersion === 'rollouts.kruise.io/v1alpha1';

export function createRolloutController(): ControllerWithAdmission {
  let store: Store | undefined;
  let queue: WorkQueue | undefined;
  let release: KruiseRolloutRelease = 'v0.6';
  const rollouts = new Informer(ROLLOUTS);
  const batchReleases = new Informer(BATCH_RELEASES);
  const pods = new Informer(PODS);
  const workloads = WORKLOAD_RESOURCES.map((gr) => new Informer(gr));
  let started: Informer[] = [];

  /** Rollouts of a namespace whose workloadRef names this workload (group, kind, name). */
  const rolloutsOf = (w: KubeObject): KubeObject[] => {
    const out: KubeObject[] = [];
    for (const r of rollouts.all()) {
      if (r.metadata.namespace !== w.metadata.namespace) continue;
      const ref = rolloutWorkloadRef(r);
      if (ref && ref.name === w.metadata.name && ref.kind === w.kind && apiGroupOf(ref.apiVersion) === apiGroupOf(w.apiVersion ?? '')) out.push(r);
    }
    return out;
  };

  function reconcile(key: string): void {
    if (!store) return;
    const { namespace, name } = splitKey(key.slice(3));
    if (key.startsWith('ro:')) syncRollout(store, namespace, name);
    else syncBatchRelease(store, namespace, name);
  }

  function syncRollout(s: Store, namespace: string | undefined, name: string): void {
    const stored = s.get(ROLLOUTS, namespace, name);
    if (!stored) return;
    // Sandbox only: a Rollout annotated kruise-sandbox/controller: "none" is left alone, so a test or a
    // rehearsal can write its status by hand (each state of a release, deterministically).
    if (stored.metadata.annotations?.[HANDS_OFF_ANNOTATION] === 'none') return;
    // handleFinalizer: added on a live Rollout, removed once termination is complete
    if (!stored.metadata.deletionTimestamp && !(stored.metadata.finalizers ?? []).includes(ROLLOUT_FINALIZER)) {
      s.update(ROLLOUTS, { ...stored, metadata: { ...stored.metadata, finalizers: [...(stored.metadata.finalizers ?? []), ROLLOUT_FINALIZER] } });
      return;
    }
    const rollout = isV1alpha1(stored) ? rolloutV1alpha1ToV1beta1(stored) : stored;
    if (stored.metadata.deletionTimestamp) {
      const term = ((rollout.status as { conditions?: Array<{ type: string; reason?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === 'Terminating');
      if (term?.reason === 'Completed') {
        s.update(ROLLOUTS, { ...stored, metadata: { ...stored.metadata, finalizers: (stored.metadata.finalizers ?? []).filter((f) => f !== ROLLOUT_FINALIZER) } });
        return;
      }
    }
    const ref = rolloutWorkloadRef(rollout);
    const wgr = ref ? workloadResourceOf(ref.apiVersion, ref.kind) : undefined;
    const workload = ref && wgr ? s.get(wgr, namespace, ref.name) : undefined;
    // patchWorkloadRolloutWebhookLabel (on a workload the release's finder finds)
    const found = workload && ref && releaseControlFor(ref.apiVersion, ref.kind, readRolloutSpec(rollout).rollingStyle, release);
    if (found && workload && wgr && ref && WORKLOAD_TYPES[ref.kind] && !workload.metadata.labels?.[WORKLOAD_TYPE_LABEL]) {
      s.update(wgr, { ...workload, metadata: { ...workload.metadata, labels: { ...(workload.metadata.labels ?? {}), [WORKLOAD_TYPE_LABEL]: WORKLOAD_TYPES[ref.kind]! } } });
      return;
    }
    const brStored = s.get(BATCH_RELEASES, namespace, name);
    const br = brStored && isV1alpha1(brStored) ? batchReleaseV1alpha1ToV1beta1(brStored) : brStored;
    const result = reconcileRollout({ rollout, workload, related: relatedOf(s, workload), batchRelease: br, now: new Date(), release, traffic: trafficObjects(s, rollout) });
    for (const w of result.writes) applyWrite(s, w, rollout, wgr, workload, brStored);
    if (result.status) {
      const fresh = s.get(ROLLOUTS, namespace, name);
      if (fresh) {
        const status = isV1alpha1(fresh) ? rolloutV1beta1ToV1alpha1({ ...rollout, status: result.status as unknown as Record<string, unknown> }).status : result.status;
        s.updateStatus(ROLLOUTS, { ...fresh, status: status as Record<string, unknown> });
      }
    }
    if (result.recheckMs !== undefined) queue?.addAfter(`ro:${namespace}/${name}`, result.recheckMs);
  }

  function applyWrite(s: Store, w: RolloutWrite, rollout: KubeObject, wgr: GroupResource | undefined, workload: KubeObject | undefined, brStored: KubeObject | undefined): void {
    const ns = rollout.metadata.namespace;
    const name = rollout.metadata.name ?? '';
    const brVersion = s.storageVersion(BATCH_RELEASES);
    const storedApiVersion = s.storageVersion(ROLLOUTS) ?? 'rollouts.kruise.io/v1beta1';
    const toStored = (o: KubeObject) => (brVersion === 'rollouts.kruise.io/v1alpha1' ? batchReleaseV1beta1ToV1alpha1(o) : o);
    switch (w.kind) {
      case 'createBatchRelease': {
        // the owner reference names the Rollout in its stored version
        const owners = (w.object.metadata.ownerReferences ?? []).map((o) => (o.kind === 'Rollout' ? { ...o, apiVersion: storedApiVersion } : o));
        s.create(BATCH_RELEASES, toStored({ ...w.object, metadata: { ...w.object.metadata, ownerReferences: owners } }));
        return;
      }
      case 'updateBatchRelease': {
        if (!brStored) return;
        const beta = isV1alpha1(brStored) ? batchReleaseV1alpha1ToV1beta1(brStored) : brStored;
        const annotations = { ...(beta.metadata.annotations ?? {}) };
        delete annotations['rollouts.kruise.io/rollback-in-batch'];
        Object.assign(annotations, w.annotations ?? {});
        const next: KubeObject = { ...beta, metadata: { ...beta.metadata, annotations }, spec: w.spec };
        if (Object.keys(annotations).length === 0) delete next.metadata.annotations;
        s.update(BATCH_RELEASES, toStored(next));
        return;
      }
      case 'patchBatchRelease': {
        if (!brStored) return;
        const beta = isV1alpha1(brStored) ? batchReleaseV1alpha1ToV1beta1(brStored) : brStored;
        s.update(BATCH_RELEASES, toStored(mergePatch(beta, w.patch) as KubeObject));
        return;
      }
      case 'deleteBatchRelease':
        try {
          s.delete(BATCH_RELEASES, ns, name);
        } catch {
          // already gone
        }
        return;
      case 'patchRollout': {
        const fresh = s.get(ROLLOUTS, ns, name);
        if (fresh) s.update(ROLLOUTS, mergePatch(fresh, w.patch) as KubeObject);
        return;
      }
      case 'createObject':
        s.create(w.gr, w.object);
        return;
      case 'patchObject': {
        const fresh = s.get(w.gr, ns, w.name);
        if (fresh) s.update(w.gr, mergePatch(fresh, w.patch) as KubeObject);
        return;
      }
      case 'deleteObject':
        try {
          s.delete(w.gr, ns, w.name);
        } catch {
          // already gone
        }
        return;
      case 'patchWorkload':
        if (wgr && workload) {
          const fresh = s.get(wgr, ns, workload.metadata.name ?? '');
          if (fresh) s.update(wgr, mergePatch(fresh, w.patch) as KubeObject);
        }
        return;
    }
  }

  function syncBatchRelease(s: Store, namespace: string | undefined, name: string): void {
    const stored = s.get(BATCH_RELEASES, namespace, name);
    if (!stored) return;
    const br = isV1alpha1(stored) ? batchReleaseV1alpha1ToV1beta1(stored) : stored;
    const ref = readWorkloadRef(at(br, 'spec', 'workloadRef'));
    const wgr = ref ? workloadResourceOf(ref.apiVersion, ref.kind) : undefined;
    const workload = ref && wgr ? s.get(wgr, namespace, ref.name) : undefined;
    // a Deployment's pods belong to its ReplicaSets (util.ListOwnedPods goes through them too); in a
    // canary-style release the pods counted are the canary Deployment's (owned by the BatchRelease)
    const related = relatedOf(s, workload);
    const deploymentUids = new Set([workload?.metadata.uid, ...(related?.deployments ?? []).filter((d) => (d.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === stored.metadata.uid)).map((d) => d.metadata.uid)]);
    const owners = workload?.kind === 'Deployment' ? (related?.replicaSets ?? []).filter((rs) => (rs.metadata.ownerReferences ?? []).some((o) => o.controller && deploymentUids.has(o.uid))) : workload ? [workload] : [];
    const owned = owners.flatMap((o) => pods.ownedBy(o.metadata.uid)).filter((p) => !p.metadata.deletionTimestamp);
    const result = reconcileBatchRelease({ batchRelease: br, workload, related, pods: owned, now: new Date(), release });
    if (result.workloadPatch && workload && wgr) s.update(wgr, mergePatch(s.get(wgr, namespace, workload.metadata.name ?? '') ?? workload, result.workloadPatch) as KubeObject);
    for (const w of result.sideWrites ?? []) {
      if (w.kind === 'create') {
        if (!s.get(w.resource, namespace, w.object.metadata.name ?? '')) s.create(w.resource, w.object);
      } else {
        const cur = s.get(w.resource, namespace, w.name);
        if (cur) s.update(w.resource, mergePatch(cur, w.patch) as KubeObject);
      }
    }
    for (const p of result.podPatches) {
      const pod = s.get(PODS, namespace, p.name);
      if (pod) s.update(PODS, { ...pod, metadata: { ...pod.metadata, labels: { ...(pod.metadata.labels ?? {}), ...p.labels } } });
    }
    if (result.status) {
      const fresh = s.get(BATCH_RELEASES, namespace, name);
      if (fresh) {
        const status = isV1alpha1(fresh) ? batchReleaseV1beta1ToV1alpha1({ ...br, status: result.status as unknown as Record<string, unknown> }).status : result.status;
        s.updateStatus(BATCH_RELEASES, { ...fresh, status: status as Record<string, unknown> });
      }
    }
    if (result.recheckMs !== undefined) queue?.addAfter(`br:${namespace}/${name}`, result.recheckMs);
  }

  const enqueueWorkload = (w: KubeObject) => {
    for (const r of rolloutsOf(w)) {
      queue?.add(`ro:${keyOf(r)}`);
      queue?.add(`br:${keyOf(r)}`);
    }
    // a canary Deployment (owned by its BatchRelease, named after the Rollout) moves its release on
    for (const o of w.metadata.ownerReferences ?? []) {
      if (o.kind !== 'BatchRelease') continue;
      queue?.add(`br:${w.metadata.namespace}/${o.name}`);
      queue?.add(`ro:${w.metadata.namespace}/${o.name}`);
    }
  };

  return {
    name: 'kruise-rollout-controller',
    start(s: Store, settings: SimulationSettings) {
      store = s;
      release = settings.kruiseRollout ?? 'v0.6';
      queue = new WorkQueue('kruise-rollout', (key) => {
        try {
          reconcile(key);
        } catch (err) {
          // a write refused (conflict, schema): look again shortly, as controller-runtime requeues
          queue?.addAfter(key, 100);
          if (process.env.KRUISE_SANDBOX_DEBUG) process.stderr.write(`kruise-rollout ${key}: ${err instanceof Error ? err.message : String(err)}\n`);
        }
      });
      rollouts.on((_t, obj) => queue?.add(`ro:${keyOf(obj)}`));
      batchReleases.on((type, obj, old) => {
        // batchrelease_controller.go add() reconciles a BatchRelease on spec, annotation or deletion changes
        // only, its own status writes wait for the 2 s requeue. The sandbox looks again after its status
        // writes too, to move a release on faster, but not at once: that flipped Verifying/Upgrading
        // ~1,000 times in the 0.5 s a batch's pods took to get ready.
        if (type !== 'MODIFIED' || !old || releaseSpecOrMetaChanged(old, obj)) queue?.add(`br:${keyOf(obj)}`);
        else queue?.addAfter(`br:${keyOf(obj)}`, BATCH_RELEASE_STATUS_RECHECK_MS);
        for (const o of obj.metadata.ownerReferences ?? []) if (o.kind === 'Rollout') queue?.add(`ro:${obj.metadata.namespace}/${o.name}`);
      });
      for (const inf of workloads) inf.on((_t, obj) => enqueueWorkload(obj));
      started = [];
      for (const inf of [pods, ...workloads, batchReleases, rollouts]) {
        try {
          inf.start(s);
          started.push(inf);
        } catch {
          // the kind is not served (no such CRD): nothing to watch
        }
      }
    },
    stop() {
      queue?.stop();
      for (const inf of started) inf.stop();
    },
    admission: [...createRolloutWebhook(() => [...rollouts.all()], () => release), createRolloutValidatingWebhook(() => release ?? 'v0.6')],
  };
}

/** What a kind's Workload view reads beside the workload: a Deployment's ReplicaSets, a native DaemonSet's revisions. */
function relatedOf(s: Store, workload: KubeObject | undefined): WorkloadRelated | undefined {
  const namespace = workload?.metadata.namespace;
  if (workload?.kind === 'DaemonSet' && workload.apiVersion === 'apps/v1') return { controllerRevisions: s.list({ group: 'apps', resource: 'controllerrevisions' }, { namespace }) };
  if (workload?.kind !== 'Deployment') return undefined;
  return { replicaSets: s.list({ group: 'apps', resource: 'replicasets' }, { namespace }), deployments: s.list({ group: 'apps', resource: 'deployments' }, { namespace }) };
}

/** How soon the sandbox looks at a BatchRelease again after its own status write (upstream: at its requeue). */
const BATCH_RELEASE_STATUS_RECHECK_MS = 100;

/** The UpdateFunc predicate of batchrelease_controller.go add(): generation, deletion or annotations changed. */
function releaseSpecOrMetaChanged(old: KubeObject, obj: KubeObject): boolean {
  if (old.metadata.generation !== obj.metadata.generation || obj.metadata.deletionTimestamp) return true;
  return JSON.stringify(old.metadata.annotations ?? {}) !== JSON.stringify(obj.metadata.annotations ?? {});
}


/** The Services and Ingresses the Rollout's first trafficRouting names, and their canary twins. */
function trafficObjects(s: Store, rollout: KubeObject): TrafficObjects {
  const names = trafficObjectNames(readRolloutSpec(rollout).strategySpec);
  const ns = rollout.metadata.namespace;
  const fetch = (gr: GroupResource, list: string[]) => {
    const out = new Map<string, KubeObject>();
    for (const n of list) {
      try {
        const o = s.get(gr, ns, n);
        if (o) out.set(n, o);
      } catch {
        // kind not served
      }
    }
    return out;
  };
  return { services: fetch(SERVICES, names.services), ingresses: fetch(INGRESSES, names.ingresses) };
}
