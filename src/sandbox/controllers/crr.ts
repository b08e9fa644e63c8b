// ContainerRecreateRequest as Kruise v1.9.0 runs it: the webhook (validation, labels,
// statusContext/preStop/ports filled in, spec immutable), the kruise-manager controller
// (pod gone, activeDeadlineSeconds, the synced container statuses, making the pod not-ready for
// unreadyGracePeriodSeconds, active label, TTL) and the kruise-daemon on the node (one request per
// pod at a time, one kill per pass, success only for a restarted, Ready container older than
// minStartedSeconds, failurePolicy). On --kruise master the request is stored as v1beta1 and the
// controller keeps its progress in status (containerStatusSnapshot, condition PreRecreateGrace)
// where v1.9 uses annotations. Rules: src/kruise/rules/crr.
import type { KubeObject, Pod } from '../../kruise/types';
import {
  CRR_ACTIVE_LABEL,
  CRR_MESSAGE_DEADLINE,
  CRR_MESSAGE_POD_GONE,
  CRR_NODE_NAME_LABEL,
  CRR_POD_UID_LABEL,
  CRR_PRE_RECREATE_GRACE_CONDITION,
  CRR_READINESS_USER_AGENT,
  CRR_SYNC_CONTAINER_STATUSES_KEY,
  CRR_UNREADY_ACQUIRED_KEY,
  KRUISE_POD_READY_CONDITION,
  crrDeadlineLeftMs,
  crrManageStep,
  crrStateInStatus,
  crrSyncedContainerStatuses,
  crrUnreadyAcquired,
  crrSyncContainerStatuses,
  crrTtlExpiryMs,
  currentContainerRecreateStates,
  editReadinessMessage,
  preRecreateGraceCondition,
  pickCrr,
  runtimeContainersOf,
  validateCrrAgainstPod,
  validateCrrSpec,
  type ContainerRecreateState,
  type CrrSpec,
  type CrrStatus,
} from '../../kruise/rules/crr';
import { ApiError } from '../server/errors';
import type { AdmissionHook, ControllerWithAdmission, GroupResource, SimulationSettings, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { Informer } from './informer';
import { restartContainerStatus } from './kubelet';
import { PODS, keyOf, kubeTime, objectKey, parseKubeTime, setCondition, type PodCondition } from './pods';
import { WorkQueue } from './queue';

export const CRRS: GroupResource = { group: 'apps.kruise.io', resource: 'containerrecreaterequests' };
const KIND = 'ContainerRecreateRequest';

function reject(obj: KubeObject, problems: Array<{ field: string; message: string }>): never {
  throw ApiError.invalid(CRRS.group, KIND, obj.metadata.name ?? obj.metadata.generateName ?? '', problems.map((p) => ({ field: p.field, message: p.message, reason: 'FieldValueInvalid' })));
}

/** The webhook: validate, then fill what only the server may set. */
export const crrAdmission: AdmissionHook = {
  gr: CRRS,
  operations: ['CREATE', 'UPDATE'],
  admit(op, obj, old, store) {
    const spec = (obj.spec ?? {}) as CrrSpec;
    if (op === 'UPDATE') {
      if (old && canonicalJson(old.spec ?? {}) !== canonicalJson(obj.spec ?? {})) {
        reject(obj, [{ field: 'spec', message: 'Forbidden: spec of ContainerRecreateRequest is immutable' }]);
      }
      // crr_mutating_handler.go: the webhook's labels and the unready-acquired time stay as set.
      for (const label of [CRR_POD_UID_LABEL, CRR_NODE_NAME_LABEL]) {
        if (old && (obj.metadata.labels?.[label] ?? '') !== (old.metadata.labels?.[label] ?? '')) {
          reject(obj, [{ field: `metadata.labels[${label}]`, message: `Forbidden: not allowed to update immutable label ${label}` }]);
        }
      }
      const acquired = old?.metadata.annotations?.[CRR_UNREADY_ACQUIRED_KEY];
      if (acquired && obj.metadata.annotations?.[CRR_UNREADY_ACQUIRED_KEY] !== acquired) {
        reject(obj, [{ field: `metadata.annotations[${CRR_UNREADY_ACQUIRED_KEY}]`, message: `Forbidden: not allowed to update immutable annotation ${CRR_UNREADY_ACQUIRED_KEY}` }]);
      }
      return obj;
    }
    const problems = validateCrrSpec(spec);
    if (problems.length > 0) reject(obj, problems);
    const pod = store.get(PODS, obj.metadata.namespace ?? 'default', spec.podName ?? '') as Pod | undefined;
    const podProblems = validateCrrAgainstPod(spec, pod);
    if (podProblems.length > 0 || !pod) reject(obj, podProblems);
    const next = structuredClone(obj);
    next.metadata.labels = {
      ...(next.metadata.labels ?? {}),
      [CRR_POD_UID_LABEL]: pod.metadata.uid ?? '',
      [CRR_NODE_NAME_LABEL]: pod.spec.nodeName ?? '',
      [CRR_ACTIVE_LABEL]: 'true',
    };
    const nextSpec = next.spec as CrrSpec;
    const readOnly = (nextSpec.containers ?? []).findIndex((c) => c.preStop !== undefined || c.ports !== undefined || c.statusContext !== undefined);
    if (readOnly >= 0) reject(obj, [{ field: `spec.containers[${readOnly}]`, message: 'Forbidden: preStop, ports, statusContext in container are ready-only fields' }]);
    nextSpec.strategy = { failurePolicy: 'Fail', ...(nextSpec.strategy ?? {}) };
    // injectPodIntoContainerRecreateRequest: the pod's grace period unless the request sets one.
    const podGrace = (pod.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds;
    if (nextSpec.strategy.terminationGracePeriodSeconds === undefined && podGrace !== undefined) nextSpec.strategy.terminationGracePeriodSeconds = podGrace;
    const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
    const podContainers = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
    nextSpec.containers = (nextSpec.containers ?? []).map((c) => {
      const st = statuses.find((s) => s.name === c.name);
      const pc = podContainers.find((x) => x.name === c.name) as { lifecycle?: { preStop?: { exec?: unknown; httpGet?: unknown; tcpSocket?: unknown } }; ports?: unknown[] } | undefined;
      const filled: typeof c = { ...c };
      const preStop = pc?.lifecycle?.preStop;
      if (preStop) {
        const { exec, httpGet, tcpSocket } = preStop;
        filled.preStop = Object.fromEntries(Object.entries({ exec, httpGet, tcpSocket }).filter(([, v]) => v !== undefined));
        // The ports only matter to an HTTP preStop hook (a named port).
        if (httpGet && pc?.ports) filled.ports = pc.ports;
      }
      filled.statusContext = { containerID: st?.containerID ?? '', restartCount: st?.restartCount ?? 0 };
      return filled;
    });
    return next;
  },
};

export function createCrrController(): ControllerWithAdmission {
  let store: Store;
  const crrs = new Informer(CRRS);
  const pods = new Informer<Pod>(PODS);
  const byPod = new Map<string, Set<string>>(); // pod key → request keys
  let queue: WorkQueue; // kruise-manager's controller, per request
  let daemon: WorkQueue; // kruise-daemon on the pod's node, per pod (objectKey in crr_daemon_controller.go)

  function indexByPod(type: string, crr: KubeObject): void {
    const podKey = podKeyOf(crr);
    let set = byPod.get(podKey);
    if (type === 'DELETED') {
      set?.delete(keyOf(crr));
      if (set?.size === 0) byPod.delete(podKey);
      return;
    }
    if (!set) byPod.set(podKey, (set = new Set()));
    set.add(keyOf(crr));
  }

  const fresh = (crr: KubeObject) => store.get(CRRS, crr.metadata.namespace, crr.metadata.name ?? '');

  // Kruise < 1.8 CRDs have no containerRecreateStates[].isKilled: the server prunes it, and
  // the daemon must compare states as stored or it would rewrite them forever.
  let keepsIsKilled = true;

  function writeStatus(crr: KubeObject, status: CrrStatus): void {
    const cur = fresh(crr);
    if (!cur || canonicalJson(status) === canonicalJson(cur.status ?? {})) return;
    const stored = (store.updateStatus(CRRS, { ...cur, status } as KubeObject).status ?? {}) as CrrStatus;
    if ((status.containerRecreateStates ?? []).some((s) => s.isKilled) && !(stored.containerRecreateStates ?? []).some((s) => s.isKilled)) keepsIsKilled = false;
  }

  function asStored(states: ContainerRecreateState[]): ContainerRecreateState[] {
    if (keepsIsKilled) return states;
    return states.map(({ isKilled: _k, ...rest }) => rest);
  }

  function writeMetadata(crr: KubeObject, edit: (meta: KubeObject['metadata']) => void): void {
    const cur = fresh(crr);
    if (!cur) return;
    const meta = structuredClone(cur.metadata);
    edit(meta);
    if (canonicalJson(meta) !== canonicalJson(cur.metadata)) store.update(CRRS, { ...cur, metadata: meta });
  }

  /** completeCRR / completeCRRStatus: phase, completionTime, message; the states stay as they are. */
  function complete(crr: KubeObject, message: string): void {
    const status: CrrStatus = { ...structuredClone((fresh(crr)?.status ?? {}) as CrrStatus), phase: 'Completed', completionTime: kubeTime() };
    if (message) status.message = message;
    else delete status.message;
    writeStatus(crr, status);
  }

  // ------------------------------------------------------------ controller (crr_controller.go)

  function reconcile(key: string): void {
    const crr = crrs.get(key);
    if (!crr) return;
    const spec = (crr.spec ?? {}) as CrrSpec;
    const status = (crr.status ?? {}) as CrrStatus;
    const now = Date.now();
    const pod = pods.get(podKeyOf(crr));

    if (crr.metadata.deletionTimestamp || status.completionTime) {
      if ((crr.metadata.finalizers ?? []).includes(CRR_UNREADY_ACQUIRED_KEY)) releasePodNotReady(crr, pod);
      if (crr.metadata.deletionTimestamp) return;
      if (crr.metadata.labels?.[CRR_ACTIVE_LABEL] !== undefined) {
        writeMetadata(crr, (m) => delete m.labels![CRR_ACTIVE_LABEL]);
        return;
      }
      const expiry = crrTtlExpiryMs(crr);
      if (expiry !== undefined) {
        if (now >= expiry) store.delete(CRRS, crr.metadata.namespace, crr.metadata.name ?? '');
        else queue.addAfter(key, expiry - now + 5);
      }
      return;
    }
    if (!pod || pod.metadata.deletionTimestamp || pod.metadata.uid !== crr.metadata.labels?.[CRR_POD_UID_LABEL]) {
      complete(crr, CRR_MESSAGE_POD_GONE);
      return;
    }
    const deadlineLeft = crrDeadlineLeftMs(crr, now);
    if (deadlineLeft <= 0) {
      complete(crr, CRR_MESSAGE_DEADLINE);
      return;
    }
    if (deadlineLeft !== Infinity) queue.addAfter(key, deadlineLeft + 5);
    if (status.phase !== 'Recreating') return;

    if (syncContainerStatuses(crr, spec, status, pod)) return;
    if (spec.strategy?.unreadyGracePeriodSeconds !== undefined && !crrUnreadyAcquired(crr)) acquirePodNotReady(crr, pod);
  }

  /**
   * syncContainerStatuses: the requested containers' running statuses into the request, for the daemon
   * to judge readiness. v1alpha1 (up to v1.9): the annotation, rewritten each time. v1beta1 (master):
   * status.containerStatusSnapshot, whose last non-empty value is kept while a container is between its
   * old instance's exit and the new one's start. Returns whether it wrote.
   */
  function syncContainerStatuses(crr: KubeObject, spec: CrrSpec, status: CrrStatus, pod: Pod): boolean {
    const synced = crrSyncContainerStatuses(spec, pod, parseKubeTime(crr.metadata.creationTimestamp) ?? 0);
    if (!crrStateInStatus(crr)) {
      const text = JSON.stringify(synced);
      if (crr.metadata.annotations?.[CRR_SYNC_CONTAINER_STATUSES_KEY] === text) return false;
      writeMetadata(crr, (m) => (m.annotations = { ...(m.annotations ?? {}), [CRR_SYNC_CONTAINER_STATUSES_KEY]: text }));
      return true;
    }
    const previous = status.containerStatusSnapshot ?? [];
    if ((synced.length === 0 && previous.length > 0) || canonicalJson(synced) === canonicalJson(previous)) return false;
    const next: CrrStatus = { ...status, containerStatusSnapshot: synced };
    if (synced.length === 0) delete next.containerStatusSnapshot;
    writeStatus(crr, next);
    return true;
  }

  const readinessMessage = (crr: KubeObject) => ({ userAgent: CRR_READINESS_USER_AGENT, key: `${crr.metadata.namespace}/${crr.metadata.name}` });
  const hasReadinessGate = (pod: Pod) => ((pod.spec.readinessGates as Array<{ conditionType: string }> | undefined) ?? []).some((g) => g.conditionType === KRUISE_POD_READY_CONDITION);

  /**
   * acquirePodNotReady: with the KruisePodReady readiness gate, a finalizer on the request and
   * this request's key in the gate's condition (status False, so the pod leaves Service
   * endpoints); without the gate nothing can be done to the pod. Either way the time is
   * recorded, and the daemon waits unreadyGracePeriodSeconds from it before the first kill.
   */
  function acquirePodNotReady(crr: KubeObject, pod: Pod): void {
    if (hasReadinessGate(pod)) {
      writeMetadata(crr, (m) => {
        if (!(m.finalizers ?? []).includes(CRR_UNREADY_ACQUIRED_KEY)) m.finalizers = [...(m.finalizers ?? []), CRR_UNREADY_ACQUIRED_KEY];
      });
      editPodReadiness(pod, readinessMessage(crr), 'add');
    }
    // When, for the daemon's grace period: the annotation (v1alpha1) or the PreRecreateGrace condition (v1beta1).
    if (!crrStateInStatus(crr)) {
      writeMetadata(crr, (m) => (m.annotations = { ...(m.annotations ?? {}), [CRR_UNREADY_ACQUIRED_KEY]: kubeTime() }));
      return;
    }
    const cur = (fresh(crr)?.status ?? {}) as CrrStatus;
    if (!cur.conditions?.some((c) => c.type === CRR_PRE_RECREATE_GRACE_CONDITION && c.status === 'True')) {
      writeStatus(crr, { ...cur, conditions: [...(cur.conditions ?? []).filter((c) => c.type !== CRR_PRE_RECREATE_GRACE_CONDITION), preRecreateGraceCondition(kubeTime())] });
    }
  }

  function releasePodNotReady(crr: KubeObject, pod: Pod | undefined): void {
    if (pod && !pod.metadata.deletionTimestamp && hasReadinessGate(pod)) editPodReadiness(pod, readinessMessage(crr), 'remove');
    writeMetadata(crr, (m) => (m.finalizers = (m.finalizers ?? []).filter((f) => f !== CRR_UNREADY_ACQUIRED_KEY)));
  }

  /** podreadiness addNotReadyKey / removeNotReadyKey on the KruisePodReady condition. */
  function editPodReadiness(pod: Pod, msg: { userAgent: string; key: string }, op: 'add' | 'remove'): void {
    const cur = store.get(PODS, pod.metadata.namespace, pod.metadata.name ?? '') as Pod | undefined;
    if (!cur) return;
    const status = structuredClone(cur.status ?? {});
    const conditions = (status.conditions ??= []) as PodCondition[];
    const cond = conditions.find((c) => c.type === KRUISE_POD_READY_CONDITION);
    if (op === 'remove' && !cond) return;
    const edited = editReadinessMessage(cond?.message, msg, op);
    if (!edited.changed && cond) return;
    const now = kubeTime();
    if (!cond) {
      // Kruise appends the condition without a status: not "True", so the gate holds the pod.
      conditions.push({ type: KRUISE_POD_READY_CONDITION, message: edited.message, lastTransitionTime: now } as unknown as PodCondition);
    } else {
      if (op === 'add') cond.status = 'False';
      else if (edited.count === 0) cond.status = 'True';
      cond.message = edited.message;
      cond.lastTransitionTime = now;
    }
    if (op === 'add') {
      // util.SetPodReadyCondition: Ready follows the gates at once.
      const ready = conditions.find((c) => c.type === 'Ready');
      const containersReady = conditions.find((c) => c.type === 'ContainersReady');
      if (ready && containersReady?.status === 'True') {
        setCondition(conditions, { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: `the status of pod readiness gate "${KRUISE_POD_READY_CONDITION}" is not "True", but ${cond?.status ?? ''}` }, now);
      }
    }
    store.updateStatus(PODS, { ...cur, status } as KubeObject);
  }

  // ------------------------------------------------------------ daemon (crr_daemon_controller.go)

  function sync(podKey: string): void {
    const list = [...(byPod.get(podKey) ?? [])].map((k) => crrs.get(k)).filter((x): x is KubeObject => x !== undefined);
    const picked = pickCrr(list);
    for (const other of list) {
      const st = (other.status ?? {}) as CrrStatus;
      if (other !== picked && !other.metadata.deletionTimestamp && !st.completionTime && !st.phase) writeStatus(other, { ...st, phase: 'Pending' });
    }
    if (!picked) return;
    const crr = picked;
    const spec = (crr.spec ?? {}) as CrrSpec;
    const status = (crr.status ?? {}) as CrrStatus;
    const now = Date.now();
    if (status.phase !== 'Recreating') {
      writeStatus(crr, { ...status, phase: 'Recreating' });
      return;
    }
    const grace = spec.strategy?.unreadyGracePeriodSeconds;
    if (grace !== undefined) {
      const acquired = crrUnreadyAcquired(crr);
      if (!acquired) return; // waiting for the controller to make the pod not-ready
      const at = parseKubeTime(acquired.raw);
      if (at === undefined) {
        complete(crr, `failed to parse unready time ${acquired.raw}`);
        return;
      }
      const left = grace * 1000 - (now - at);
      if (left > 0) {
        daemon.addAfter(podKey, left + 100);
        return;
      }
    }

    const pod = pods.get(podKey);
    const runtime = pod && pod.metadata.uid === crr.metadata.labels?.[CRR_POD_UID_LABEL] ? runtimeContainersOf(pod) : [];
    const synced = crrSyncedContainerStatuses(crr);
    const current = asStored(currentContainerRecreateStates(spec, status.containerRecreateStates, runtime, synced, now));
    if (canonicalJson(current) !== canonicalJson(status.containerRecreateStates ?? null)) {
      writeStatus(crr, { ...status, containerRecreateStates: current });
      return;
    }
    const step = crrManageStep(current, spec.strategy, runtime);
    if (step.kill && pod) {
      // Killing the container: the kubelet starts a new instance (restartCount+1, new containerID).
      store.updateStatus(PODS, { ...pod, status: restartContainerStatus(pod, step.kill, now) } as KubeObject);
    }
    if (canonicalJson(asStored(step.states)) !== canonicalJson(current)) {
      writeStatus(crr, { ...status, containerRecreateStates: asStored(step.states) });
      return;
    }
    if (step.complete) {
      complete(crr, '');
      return;
    }
    const minStarted = spec.strategy?.minStartedSeconds ?? 0;
    if (minStarted > 0) daemon.addAfter(podKey, minStarted * 1000);
  }

  return {
    name: 'containerrecreaterequest',
    admission: [crrAdmission],
    start(s: Store, settings: SimulationSettings) {
      store = s;
      // kruise-manager's part only: the daemon's (kruise-daemon on each node) goes on without it
      queue = new WorkQueue('containerrecreaterequest', reconcile).gatedBy(settings.kruiseManager);
      daemon = new WorkQueue('containerrecreaterequest-daemon', sync);
      crrs.on((type, crr) => {
        indexByPod(type, crr);
        if (type !== 'DELETED') queue.add(keyOf(crr));
        daemon.add(podKeyOf(crr));
      });
      pods.on((_type, pod) => {
        const key = keyOf(pod);
        const own = byPod.get(key);
        if (!own) return;
        for (const k of own) queue.add(k);
        // The real daemon reads the runtime, which moves on its own; the pod status mirrors it.
        daemon.add(key);
      });
      pods.start(store);
      crrs.start(store);
    },
    stop() {
      queue?.stop();
      daemon?.stop();
      crrs.stop();
      pods.stop();
    },
  };
}

function podKeyOf(crr: KubeObject): string {
  return objectKey(crr.metadata.namespace, (crr.spec as CrrSpec | undefined)?.podName ?? '');
}
