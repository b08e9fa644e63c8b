// Deployment controller (apps/v1), close enough to kube-controller-manager's that real
// `kubectl rollout status|history|undo|pause|resume` work: ReplicaSets `<deploy>-<hash>` with
// pod-template-hash, `deployment.kubernetes.io/revision` (max+1; a reused template moves to
// the new number and keeps its old one in revision-history), annotations such as
// `kubernetes.io/change-cause` copied to the new ReplicaSet, RollingUpdate with
// maxSurge/maxUnavailable (25%/25%), Recreate, paused, revisionHistoryLimit, and status with
// Available / Progressing conditions (NewReplicaSetAvailable, ReplicaSetUpdated,
// ProgressDeadlineExceeded, DeploymentPaused).
import type { KubeObject, PodTemplate } from '../../kruise/types';
import type { ControllerWithAdmission, GroupResource, Store } from '../store-api';
import { canonicalJson } from '../canonical-json';
import { revisionName, semanticForm, templateHash } from './hash';
import { Informer } from './informer';
import { deploymentRollingLimits } from '../../kruise/partition';
import { controllerOf, controllerRef, keyOf, kubeTime, objectKey, parseKubeTime, scaledIntOrPercent, type LabelSelector } from './pods';
import { nativeController } from './native-wiring';
import type { WorkQueue } from './queue';
import { REPLICASETS } from './replicaset';
import { rollPartitionedDeployment } from './deployment-partition';
import { advancedDeploymentStrategy } from '../../kruise/rollout/deployment-partition';

export const DEPLOYMENTS: GroupResource = { group: 'apps', resource: 'deployments' };
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH = 'pod-template-hash';

/** Deployment annotations never copied to ReplicaSets (deploymentutil.skipCopyAnnotation). */
const SKIP_COPY = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplate;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

interface RSStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
}

const specOf = (o: KubeObject) => (o.spec ?? {}) as DeploymentSpec & { replicas?: number };
const rsStatus = (o: KubeObject) => (o.status ?? {}) as RSStatus;
const rsReplicas = (o: KubeObject) => specOf(o).replicas ?? 0;

export function revisionOf(rs: KubeObject): number {
  const n = Number.parseInt(rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
}

/** The template without pod-template-hash, for comparing a ReplicaSet's with the Deployment's. */
export function templateWithoutHash(template: PodTemplate | undefined): unknown {
  const t = structuredClone(template ?? { spec: { containers: [] } }) as PodTemplate;
  if (t.metadata?.labels) {
    delete t.metadata.labels[POD_TEMPLATE_HASH];
    if (Object.keys(t.metadata.labels).length === 0) delete t.metadata.labels;
  }
  return semanticForm(t) ?? {};
}

/** maxSurge / maxUnavailable after rounding (deploymentutil.ResolveFenceposts). */
export function resolveFenceposts(d: KubeObject): { maxSurge: number; maxUnavailable: number } {
  const spec = specOf(d);
  const replicas = spec.replicas ?? 1;
  if (spec.strategy?.type === 'Recreate') return { maxSurge: 0, maxUnavailable: 0 };
  const ru = spec.strategy?.rollingUpdate ?? {};
  try {
    // The same arithmetic `explain partition --kind=deployment` shows (src/kruise).
    const { maxSurge, maxUnavailable } = deploymentRollingLimits({ replicas, maxSurge: ru.maxSurge, maxUnavailable: ru.maxUnavailable });
    return { maxSurge, maxUnavailable };
  } catch {
    // A value the API server would have refused: keep rolling with the lenient reading.
    const maxSurge = scaledIntOrPercent(ru.maxSurge, replicas, true, '25%');
    const maxUnavailable = scaledIntOrPercent(ru.maxUnavailable, replicas, false, '25%');
    return { maxSurge, maxUnavailable: maxSurge === 0 && maxUnavailable === 0 ? 1 : maxUnavailable };
  }
}

function setCondition(conditions: Condition[], cond: Condition, now: string): void {
  const i = conditions.findIndex((c) => c.type === cond.type);
  const old = i >= 0 ? conditions[i] : undefined;
  // Like deploymentutil.SetDeploymentCondition: same status and reason → keep as is.
  if (old && old.status === cond.status && old.reason === cond.reason) return;
  const next: Condition = {
    type: cond.type,
    status: cond.status,
    lastUpdateTime: now,
    lastTransitionTime: old && old.status === cond.status ? old.lastTransitionTime : now,
    reason: cond.reason,
    message: cond.message,
  };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

export function createDeploymentController(): ControllerWithAdmission {
  let store: Store;
  const deployments = new Informer(DEPLOYMENTS);
  const sets = new Informer(REPLICASETS);
  let queue: WorkQueue;

  function scaleReplicaSet(rs: KubeObject, replicas: number, d: KubeObject): KubeObject {
    const annotations = { ...(rs.metadata.annotations ?? {}) };
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(specOf(d).replicas ?? 1);
    annotations[MAX_REPLICAS_ANNOTATION] = String((specOf(d).replicas ?? 1) + resolveFenceposts(d).maxSurge);
    if (rsReplicas(rs) === replicas && canonicalJson(annotations) === canonicalJson(rs.metadata.annotations ?? {})) return rs;
    return store.update(REPLICASETS, { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...(rs.spec as object), replicas } });
  }

  /** The ReplicaSet for the current template, created (with 0 or `initial` replicas) when missing. */
  function findOrCreateNewRS(d: KubeObject, owned: KubeObject[], create: boolean, initial: number): KubeObject | undefined {
    const spec = specOf(d);
    const want = canonicalJson(templateWithoutHash(spec.template));
    const existing = owned.find((rs) => canonicalJson(templateWithoutHash(specOf(rs).template)) === want);
    const maxRevision = owned.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
    const copied = Object.fromEntries(Object.entries(d.metadata.annotations ?? {}).filter(([k]) => !SKIP_COPY.has(k)));
    if (existing) {
      const annotations = { ...(existing.metadata.annotations ?? {}), ...copied };
      const current = revisionOf(existing);
      if (current < maxRevision || current === 0) {
        annotations[REVISION_ANNOTATION] = String(maxRevision + (current === maxRevision ? 0 : 1));
        if (current > 0) {
          const history = existing.metadata.annotations?.[REVISION_HISTORY_ANNOTATION];
          annotations[REVISION_HISTORY_ANNOTATION] = history ? `${history},${current}` : String(current);
        }
      }
      // getNewReplicaSet: the new ReplicaSet follows the Deployment's minReadySeconds (minReadySecondsNeedsUpdate)
      const minReadySeconds = spec.minReadySeconds ?? 0;
      const minReadyChanged = (((existing.spec ?? {}) as { minReadySeconds?: number }).minReadySeconds ?? 0) !== minReadySeconds;
      if (minReadyChanged || canonicalJson(annotations) !== canonicalJson(existing.metadata.annotations ?? {})) {
        return store.update(REPLICASETS, { ...existing, metadata: { ...existing.metadata, annotations }, spec: { ...(existing.spec as object), minReadySeconds } });
      }
      return existing;
    }
    if (!create || !spec.template) return undefined;
    const status = (d.status ?? {}) as { collisionCount?: number };
    let collision = status.collisionCount ?? 0;
    for (;;) {
      const hash = templateHash(templateWithoutHash(spec.template), collision);
      const name = revisionName(d.metadata.name ?? '', hash);
      const clash = sets.get(objectKey(d.metadata.namespace, name));
      if (clash) {
        collision++;
        continue;
      }
      if (collision !== (status.collisionCount ?? 0)) {
        store.updateStatus(DEPLOYMENTS, { ...d, status: { ...(d.status as object), collisionCount: collision } });
      }
      const template = structuredClone(spec.template);
      template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash } };
      const selector = structuredClone(spec.selector ?? {});
      selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
      const rs: KubeObject = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name,
          namespace: d.metadata.namespace,
          labels: { ...(template.metadata.labels ?? {}) },
          annotations: {
            ...copied,
            [REVISION_ANNOTATION]: String(maxRevision + 1),
            [DESIRED_REPLICAS_ANNOTATION]: String(spec.replicas ?? 1),
            [MAX_REPLICAS_ANNOTATION]: String((spec.replicas ?? 1) + resolveFenceposts(d).maxSurge),
          },
          ownerReferences: [controllerRef(d)],
        },
        spec: { replicas: initial, minReadySeconds: spec.minReadySeconds ?? 0, selector, template },
      };
      return store.create(REPLICASETS, rs);
    }
  }

  function reconcile(key: string): void {
    let d = deployments.get(key);
    if (!d || d.metadata.deletionTimestamp) return;
    const spec = specOf(d);
    const replicas = spec.replicas ?? 1;
    const owned = () => sets.ownedBy(d!.metadata.uid).filter((rs) => controllerOf(rs)?.uid === d!.metadata.uid && !rs.metadata.deletionTimestamp);
    const recreate = spec.strategy?.type === 'Recreate';

    let newRS: KubeObject | undefined;
    // Kruise Rollout's Advanced Deployment: paused + Recreate + its strategy annotation → its rules roll it.
    const advanced = advancedDeploymentStrategy(d);
    if (advanced) {
      newRS = rollPartitionedDeployment(d, advanced, {
        owned,
        findOrCreateNewRS,
        scaleReplicaSet,
        sets,
        store,
        deployments: DEPLOYMENTS,
        latest: (x) => deployments.get(keyOf(x)) ?? x,
      });
    } else if (spec.paused) {
      newRS = findOrCreateNewRS(d, owned(), false, 0);
      // Paused: only scaling happens. With a single active ReplicaSet, it takes the new size.
      const active = owned().filter((rs) => rsReplicas(rs) > 0);
      const target = newRS ?? (active.length === 1 ? active[0] : undefined);
      if (target && active.every((rs) => rs === target || rs.metadata.name === target.metadata.name)) scaleReplicaSet(target, replicas, d);
    } else if (recreate) {
      const olds = owned().filter((rs) => canonicalJson(templateWithoutHash(specOf(rs).template)) !== canonicalJson(templateWithoutHash(spec.template)));
      for (const rs of olds) if (rsReplicas(rs) > 0) scaleReplicaSet(rs, 0, d);
      const oldPodsRunning = olds.some((rs) => (rsStatus(sets.get(keyOf(rs)) ?? rs).replicas ?? 0) > 0);
      newRS = findOrCreateNewRS(d, owned(), !oldPodsRunning, 0);
      if (newRS && !oldPodsRunning) newRS = scaleReplicaSet(newRS, replicas, d);
    } else {
      const isNew = !findOrCreateNewRS(d, owned(), false, 0);
      const all = owned();
      const { maxSurge, maxUnavailable } = resolveFenceposts(d);
      // A brand-new Deployment's first ReplicaSet starts at full size.
      const initial = isNew && all.length === 0 ? replicas : 0;
      newRS = findOrCreateNewRS(d, all, true, initial);
      if (newRS) {
        // reconcileNewReplicaSet
        const cur = rsReplicas(newRS);
        if (cur > replicas) newRS = scaleReplicaSet(newRS, replicas, d);
        else if (cur < replicas) {
          const current = owned().reduce((n, rs) => n + rsReplicas(rs), 0);
          const room = replicas + maxSurge - current;
          if (room > 0) newRS = scaleReplicaSet(newRS, cur + Math.min(room, replicas - cur), d);
        } else scaleReplicaSet(newRS, cur, d);
        // reconcileOldReplicaSets
        const newName = newRS.metadata.name;
        const olds = owned().filter((rs) => rs.metadata.name !== newName && rsReplicas(rs) > 0);
        const oldCount = olds.reduce((n, rs) => n + rsReplicas(rs), 0);
        if (oldCount > 0) {
          const allCount = owned().reduce((n, rs) => n + rsReplicas(rs), 0);
          const minAvailable = replicas - maxUnavailable;
          const fresh = sets.get(keyOf(newRS)) ?? newRS;
          const newUnavailable = rsReplicas(fresh) - (rsStatus(fresh).availableReplicas ?? 0);
          let maxScaledDown = allCount - minAvailable - newUnavailable;
          if (maxScaledDown > 0) {
            // cleanupUnhealthyReplicas: old pods that are not available go first.
            const byAge = [...olds].sort((a, b) => (parseKubeTime(a.metadata.creationTimestamp) ?? 0) - (parseKubeTime(b.metadata.creationTimestamp) ?? 0));
            for (const rs of byAge) {
              if (maxScaledDown <= 0) break;
              const unhealthy = rsReplicas(rs) - (rsStatus(rs).availableReplicas ?? 0);
              if (unhealthy <= 0) continue;
              const down = Math.min(maxScaledDown, unhealthy);
              scaleReplicaSet(rs, rsReplicas(rs) - down, d);
              maxScaledDown -= down;
            }
            // scaleDownOldReplicaSetsForRollingUpdate
            const everyone = owned();
            const available = everyone.reduce((n, rs) => n + (rsStatus(rs).availableReplicas ?? 0), 0);
            let toScaleDown = available - minAvailable;
            for (const rs of byAge.map((r) => sets.get(keyOf(r)) ?? r)) {
              if (toScaleDown <= 0) break;
              const have = rsReplicas(rs);
              if (have === 0) continue;
              const down = Math.min(have, toScaleDown);
              scaleReplicaSet(rs, have - down, d);
              toScaleDown -= down;
            }
          }
        }
      }
    }

    d = deployments.get(key) ?? d;
    if (newRS) {
      const rev = String(revisionOf(sets.get(keyOf(newRS)) ?? newRS));
      if (d.metadata.annotations?.[REVISION_ANNOTATION] !== rev && rev !== '0') {
        d = store.update(DEPLOYMENTS, { ...d, metadata: { ...d.metadata, annotations: { ...(d.metadata.annotations ?? {}), [REVISION_ANNOTATION]: rev } } });
      }
    }
    cleanupHistory(d);
    writeStatus(d, newRS ? sets.get(keyOf(newRS)) : undefined);
  }

  function cleanupHistory(d: KubeObject): void {
    const limit = specOf(d).revisionHistoryLimit ?? 10;
    const candidates = sets
      .ownedBy(d.metadata.uid)
      .filter((rs) => controllerOf(rs)?.uid === d.metadata.uid && !rs.metadata.deletionTimestamp)
      .filter((rs) => rsReplicas(rs) === 0 && (rsStatus(rs).replicas ?? 0) === 0 && rs.metadata.generation === (rs.status as { observedGeneration?: number } | undefined)?.observedGeneration)
      .sort((a, b) => revisionOf(a) - revisionOf(b));
    const current = d.metadata.annotations?.[REVISION_ANNOTATION];
    const removable = candidates.filter((rs) => String(revisionOf(rs)) !== current);
    const excess = removable.length - limit;
    for (let i = 0; i < excess; i++) store.delete(REPLICASETS, removable[i].metadata.namespace, removable[i].metadata.name ?? '');
  }

  function writeStatus(d: KubeObject, newRS: KubeObject | undefined): void {
    const spec = specOf(d);
    const replicas = spec.replicas ?? 1;
    const all = sets.ownedBy(d.metadata.uid).filter((rs) => controllerOf(rs)?.uid === d.metadata.uid);
    const sum = (f: (rs: KubeObject) => number) => all.reduce((n, rs) => n + f(rs), 0);
    const available = sum((rs) => rsStatus(rs).availableReplicas ?? 0);
    const total = sum(rsReplicas);
    const old = (d.status ?? {}) as Record<string, unknown> & { conditions?: Condition[]; collisionCount?: number };
    const status: Record<string, unknown> & { conditions: Condition[] } = {
      observedGeneration: d.metadata.generation,
      replicas: sum((rs) => rsStatus(rs).replicas ?? 0),
      updatedReplicas: newRS ? rsStatus(newRS).replicas ?? 0 : 0,
      readyReplicas: sum((rs) => rsStatus(rs).readyReplicas ?? 0),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, total - available),
      conditions: structuredClone(old.conditions ?? []),
    };
    if (old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
    const now = kubeTime();
    const maxUnavailable = spec.strategy?.type === 'Recreate' || replicas === 0 ? 0 : resolveFenceposts(d).maxUnavailable;
    if (available >= replicas - maxUnavailable) {
      setCondition(status.conditions, { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }, now);
    } else {
      setCondition(status.conditions, { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' }, now);
    }
    const rsName = newRS?.metadata.name ?? '';
    const progressing = status.conditions.find((c) => c.type === 'Progressing');
    const deadline = spec.progressDeadlineSeconds ?? 600;
    if (spec.paused) {
      setCondition(status.conditions, { type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' }, now);
    } else if (progressing?.reason === 'DeploymentPaused') {
      setCondition(status.conditions, { type: 'Progressing', status: 'Unknown', reason: 'DeploymentResumed', message: 'Deployment is resumed' }, now);
    } else {
      const complete =
        (status.updatedReplicas as number) === replicas &&
        (status.replicas as number) === replicas &&
        available === replicas &&
        (status.observedGeneration as number) >= (d.metadata.generation ?? 0);
      const madeProgress =
        (status.updatedReplicas as number) > ((old.updatedReplicas as number) ?? 0) ||
        (status.replicas as number) < ((old.replicas as number) ?? 0) ||
        (status.readyReplicas as number) > ((old.readyReplicas as number) ?? 0) ||
        available > ((old.availableReplicas as number) ?? 0) ||
        d.metadata.generation !== old.observedGeneration;
      if (complete && newRS) {
        setCondition(status.conditions, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` }, now);
      } else if (newRS && madeProgress) {
        const c = status.conditions.find((x) => x.type === 'Progressing');
        const message = `ReplicaSet "${rsName}" is progressing.`;
        if (c && c.status === 'True' && c.reason === 'ReplicaSetUpdated') {
          c.lastUpdateTime = now;
          c.message = message;
        } else setCondition(status.conditions, { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message }, now);
      } else if (newRS && !complete && progressing?.status === 'True') {
        const since = parseKubeTime(progressing.lastUpdateTime) ?? Date.now();
        const left = since + deadline * 1000 - Date.now();
        if (left < 0) {
          setCondition(status.conditions, { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rsName}" has timed out progressing.` }, now);
        } else queue.addAfter(keyOf(d), left + 1000);
      } else if (newRS && !progressing) {
        setCondition(status.conditions, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${rsName}"` }, now);
      }
    }
    // Kube orders Available before Progressing.
    status.conditions.sort((a, b) => (a.type === 'Available' ? -1 : b.type === 'Available' ? 1 : 0));
    for (const k of ['readyReplicas', 'availableReplicas', 'unavailableReplicas', 'updatedReplicas', 'replicas']) if (status[k] === 0) delete status[k];
    if (canonicalJson(status) !== canonicalJson(old)) store.updateStatus(DEPLOYMENTS, { ...d, status });
  }

  return nativeController({
    name: 'deployment',
    workloads: deployments,
    owned: [sets],
    owner: { kind: 'Deployment' },
    attach: (s, q) => {
      store = s;
      queue = q;
    },
    reconcile,
  });
}
