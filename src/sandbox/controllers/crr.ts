// ContainerRecreateRequest: Kruise's webhook (validation, labels, statusContext/preStop/ports
// filled in, spec immutable) and its controller + daemon (queueing behind another active
// request of the same pod, per-container recreation with restartCount+1 on the pod, ordered
// recreate, unreadyGracePeriodSeconds, minStartedSeconds, failurePolicy, activeDeadlineSeconds,
// "pod has gone", active label removed on completion, TTL deletion). Rules: src/kruise/rules/crr.
import type { KubeObject, Pod } from '../../kruise/types';
import {
  CRR_ACTIVE_LABEL,
  CRR_MESSAGE_DEADLINE,
  CRR_MESSAGE_POD_GONE,
  CRR_NODE_NAME_LABEL,
  CRR_POD_UID_LABEL,
  containersToRecreate,
  crrDeadlineLeftMs,
  crrTtlExpiryMs,
  isCrrCompleted,
  settleCrrStates,
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
import { imageBehaviour, restartContainerStatus } from './kubelet';
import { PODS, keyOf, kubeTime, objectKey, parseKubeTime } from './pods';
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
    nextSpec.strategy = { failurePolicy: 'Fail', ...(nextSpec.strategy ?? {}) };
    const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
    const podContainers = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
    nextSpec.containers = (nextSpec.containers ?? []).map((c) => {
      const st = statuses.find((s) => s.name === c.name);
      const pc = podContainers.find((x) => x.name === c.name) as { lifecycle?: { preStop?: unknown }; ports?: unknown[] } | undefined;
      const filled: typeof c = { ...c, statusContext: { containerID: st?.containerID ?? '', restartCount: st?.restartCount ?? 0 } };
      if (pc?.lifecycle?.preStop) filled.preStop = pc.lifecycle.preStop;
      if (pc?.ports) filled.ports = pc.ports;
      return filled;
    });
    return next;
  },
};

export function createCrrController(): ControllerWithAdmission {
  let store: Store;
  const crrs = new Informer(CRRS);
  const pods = new Informer<Pod>(PODS);
  const recreatingSince = new Map<string, number>(); // crr uid → when Recreating began
  const killed = new Map<string, { at: number; containerID: string }>(); // crr uid/container → the kill
  const byPod = new Map<string, Set<string>>(); // pod key → request keys
  let queue: WorkQueue;

  function indexByPod(type: string, crr: KubeObject): void {
    const podKey = objectKey(crr.metadata.namespace, (crr.spec as CrrSpec | undefined)?.podName ?? '');
    let set = byPod.get(podKey);
    if (type === 'DELETED') {
      set?.delete(keyOf(crr));
      if (set?.size === 0) byPod.delete(podKey);
      return;
    }
    if (!set) byPod.set(podKey, (set = new Set()));
    set.add(keyOf(crr));
  }

  function writeStatus(crr: KubeObject, status: CrrStatus): void {
    if (canonicalJson(status) !== canonicalJson(crr.status ?? {})) store.updateStatus(CRRS, { ...crr, status } as KubeObject);
  }

  function complete(crr: KubeObject, status: CrrStatus, message?: string): void {
    const next: CrrStatus = { ...status, phase: 'Completed', completionTime: kubeTime() };
    if (message) next.message = message;
    else delete next.message;
    writeStatus(crr, next);
    const fresh = crrs.get(keyOf(crr));
    if (fresh?.metadata.labels?.[CRR_ACTIVE_LABEL]) {
      const labels = { ...fresh.metadata.labels };
      delete labels[CRR_ACTIVE_LABEL];
      store.update(CRRS, { ...fresh, metadata: { ...fresh.metadata, labels } });
    }
    recreatingSince.delete(crr.metadata.uid ?? '');
  }

  /** An unfinished request of the same pod that goes first (Recreating, or created earlier). */
  function blockedBy(crr: KubeObject): KubeObject | undefined {
    const podUid = crr.metadata.labels?.[CRR_POD_UID_LABEL];
    const mine = [parseKubeTime(crr.metadata.creationTimestamp) ?? 0, crr.metadata.name ?? ''] as const;
    for (const other of siblingsOf(crr)) {
      if (other === crr || other.metadata.uid === crr.metadata.uid || other.metadata.namespace !== crr.metadata.namespace) continue;
      if (other.metadata.labels?.[CRR_POD_UID_LABEL] !== podUid || isCrrCompleted(other) || other.metadata.deletionTimestamp) continue;
      if ((other.status as CrrStatus | undefined)?.phase === 'Recreating') return other;
      const theirs = [parseKubeTime(other.metadata.creationTimestamp) ?? 0, other.metadata.name ?? ''] as const;
      if (theirs[0] < mine[0] || (theirs[0] === mine[0] && theirs[1] < mine[1])) return other;
    }
    return undefined;
  }

  function reconcile(key: string): void {
    const crr = crrs.get(key);
    if (!crr || crr.metadata.deletionTimestamp) return;
    const spec = (crr.spec ?? {}) as CrrSpec;
    const status: CrrStatus = structuredClone((crr.status ?? {}) as CrrStatus);
    const now = Date.now();
    const uid = crr.metadata.uid ?? '';

    if (isCrrCompleted(crr)) {
      if (crr.metadata.labels?.[CRR_ACTIVE_LABEL]) complete(crr, status, status.message);
      const expiry = crrTtlExpiryMs(crr);
      if (expiry !== undefined) {
        if (now >= expiry) store.delete(CRRS, crr.metadata.namespace, crr.metadata.name ?? '');
        else queue.addAfter(key, expiry - now + 5);
      }
      return;
    }

    const states: ContainerRecreateState[] = status.containerRecreateStates ?? (spec.containers ?? []).map((c) => ({ name: c.name, phase: 'Pending' }));
    status.containerRecreateStates = states;
    const pod = pods.get(objectKey(crr.metadata.namespace, spec.podName ?? ''));
    const podUid = crr.metadata.labels?.[CRR_POD_UID_LABEL];
    if (!pod || (podUid && pod.metadata.uid !== podUid) || pod.metadata.deletionTimestamp) {
      complete(crr, status, CRR_MESSAGE_POD_GONE);
      return;
    }
    const deadlineLeft = crrDeadlineLeftMs(crr, now);
    if (deadlineLeft <= 0) {
      complete(crr, status, CRR_MESSAGE_DEADLINE);
      return;
    }
    if (deadlineLeft !== Infinity) queue.addAfter(key, deadlineLeft + 5);

    if (blockedBy(crr)) {
      writeStatus(crr, { ...status, phase: 'Pending' });
      return;
    }
    if (!recreatingSince.has(uid)) recreatingSince.set(uid, now);
    status.phase = 'Recreating';
    // unreadyGracePeriodSeconds: the pod is held not-ready this long before the first kill.
    const grace = (spec.strategy?.unreadyGracePeriodSeconds ?? 0) * 1000;
    const since = recreatingSince.get(uid)!;
    if (now < since + grace) {
      writeStatus(crr, status);
      queue.addAfter(key, since + grace - now + 5);
      return;
    }

    // Kill what is due now.
    let podStatus = pod.status;
    let podChanged = false;
    for (const name of containersToRecreate(states, spec.strategy?.orderedRecreate === true)) {
      const state = states.find((s) => s.name === name)!;
      const cs = podStatus?.containerStatuses?.find((s) => s.name === name) ?? podStatus?.initContainerStatuses?.find((s) => s.name === name);
      const image = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((c) => c.name === name)?.image;
      const behaviour = imageBehaviour(image);
      if (!cs?.containerID || behaviour === 'fail-pull' || behaviour === 'invalid') {
        Object.assign(state, { phase: 'Failed', message: `container ${name} cannot be recreated: ${cs?.state?.waiting?.reason ?? 'it has no running container'}` });
        continue;
      }
      podStatus = restartContainerStatus({ ...pod, status: podStatus }, name, now);
      podChanged = true;
      const after = podStatus.containerStatuses?.find((s) => s.name === name);
      killed.set(`${uid}/${name}`, { at: now, containerID: after?.containerID ?? '' });
      Object.assign(state, { phase: 'Recreating', isKilled: true });
      delete state.message;
      if (behaviour === 'crashloop') Object.assign(state, { phase: 'Failed', message: `container ${name} exited after recreation: CrashLoopBackOff` });
    }
    if (podChanged) store.updateStatus(PODS, { ...pod, status: podStatus } as KubeObject);

    // Judge the recreated ones.
    const current = pods.get(keyOf(pod)) ?? pod;
    const minStarted = (spec.strategy?.minStartedSeconds ?? 0) * 1000;
    for (const state of states) {
      if (state.phase !== 'Recreating') continue;
      const cs = current.status?.containerStatuses?.find((s) => s.name === state.name);
      const kill = killed.get(`${uid}/${state.name}`);
      const baseline = (spec.containers ?? []).find((c) => c.name === state.name)?.statusContext?.restartCount ?? 0;
      if (!cs) {
        Object.assign(state, { phase: 'Failed', message: `container ${state.name} has gone from the pod status` });
        continue;
      }
      const restarted = cs.restartCount > baseline || (kill !== undefined && cs.containerID === kill.containerID);
      if (!restarted) continue;
      if (!cs.state?.running) {
        if (cs.state?.waiting) Object.assign(state, { phase: 'Failed', message: `container ${state.name} is not running: ${cs.state.waiting.reason}` });
        continue;
      }
      const startedAt = kill?.at ?? now;
      if (now >= startedAt + minStarted) state.phase = 'Succeeded';
      else queue.addAfter(key, startedAt + minStarted - now + 5);
    }

    const settled = settleCrrStates(states, spec.strategy?.failurePolicy);
    status.containerRecreateStates = settled.states;
    if (settled.done) {
      const failed = settled.states.filter((s) => s.phase === 'Failed').map((s) => s.name);
      complete(crr, status, failed.length > 0 ? `failed to recreate containers: ${failed.join(', ')}` : undefined);
      for (const s of settled.states) killed.delete(`${uid}/${s.name}`);
      return;
    }
    writeStatus(crr, status);
    // Ordered recreate continues with the next container on the following pass.
    if (containersToRecreate(settled.states, spec.strategy?.orderedRecreate === true).length > 0) queue.add(key);
  }

  return {
    name: 'containerrecreaterequest',
    admission: [crrAdmission],
    start(s: Store, _settings: SimulationSettings) {
      store = s;
      queue = new WorkQueue('containerrecreaterequest', reconcile);
      crrs.on((type, crr) => {
        indexByPod(type, crr);
        if (type === 'DELETED') {
          recreatingSince.delete(crr.metadata.uid ?? '');
          // The next request of the same pod may go now.
          for (const other of siblingsOf(crr)) queue.add(keyOf(other));
          return;
        }
        queue.add(keyOf(crr));
        if (isCrrCompleted(crr)) {
          for (const other of siblingsOf(crr)) if (other.metadata.uid !== crr.metadata.uid && !isCrrCompleted(other)) queue.add(keyOf(other));
        }
      });
      pods.on((_type, pod) => {
        for (const crr of crrsOfPod(pod)) queue.add(keyOf(crr));
      });
      pods.start(store);
      crrs.start(store);
    },
    stop() {
      queue?.stop();
      crrs.stop();
      pods.stop();
    },
  };

  /** Every request naming the same pod as `crr` (itself included). */
  function siblingsOf(crr: KubeObject): KubeObject[] {
    const podKey = objectKey(crr.metadata.namespace, (crr.spec as CrrSpec | undefined)?.podName ?? '');
    return [...(byPod.get(podKey) ?? [])].map((k) => crrs.get(k)).filter((x): x is KubeObject => x !== undefined);
  }

  /** Unfinished requests naming this pod (the pod index keeps this O(requests of the pod)). */
  function crrsOfPod(pod: Pod): KubeObject[] {
    const out: KubeObject[] = [];
    for (const key of byPod.get(keyOf(pod)) ?? []) {
      const crr = crrs.get(key);
      if (crr && !isCrrCompleted(crr)) out.push(crr);
    }
    return out;
  }
}
