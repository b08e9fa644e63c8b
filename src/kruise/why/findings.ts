// `why`: pure rules from plain API objects to findings (stable codes), most blocking first.
// Each rule cites the upstream behaviour it explains; none does I/O.
import { compareText } from '../../lib/compare';
import { podTrouble } from '../evidence';
import { scaledValueFromIntOrPercent } from '../intstr';
import type { KubeObject, Pod } from '../types';
import { labelSelectorMatches, type LabelSelector } from '../selectors';
import { isPodAllHooked, isPodHooked, type LifecycleHook } from '../rules/cloneset';
import { KRUISE_MANAGER, KRUISE_MANAGER_DEFAULT_REPLICAS, kruiseManagerState } from '../kruise-manager';
import { leftoverPatch, releaseInProgress } from './leftovers';
import { readRollout } from '../rollout/read';
import { unreleasedTemplate, unreleasedTemplateCause, unreleasedTemplateFix } from '../rollout/unreleased-template';

export { leftoverPatch, releaseInProgress, type LeftoverPatch } from './leftovers';

export type FindingCode =
  | 'ControllerNotObserving' | 'Paused' | 'AwaitingApproval' | 'PartitionHolds'
  | 'MaxUnavailableRoundsToZero' | 'ScaleThrottled' | 'BudgetExhausted' | 'LifecycleHookHolds'
  | 'ReadinessGateFalse' | 'ImagePull' | 'Unschedulable' | 'RolloutLeftover' | 'UnreleasedTemplate';

export interface Finding {
  code: FindingCode;
  cause: string;
  objects: string[];
  next: string;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

export interface WhyInput {
  workload: Obj;
  pods: readonly Obj[];
  /** PDBs / PUBs selecting the workload's pods, as read. */
  budgets?: readonly Obj[];
  /** The Kruise Rollout bound to the workload, if any. */
  rollout?: Obj;
  /**
   * kruise-manager's Deployment (kruise-system/kruise-controller-manager) as read when a Kruise workload's
   * controller is behind (controllerBehind); null when it could not be read (absent, forbidden).
   */
  manager?: Obj | null;
}

/** status.observedGeneration behind metadata.generation: the controller has not seen the last change. */
export function controllerBehind(w: Obj): boolean {
  const gen = num(rec(w.metadata).generation);
  const observed = num(rec(w.status).observedGeneration);
  return gen !== undefined && observed !== undefined && observed < gen;
}

/** A Kruise workload's controller runs in kruise-manager; apps/v1's in kube-controller-manager. */
export function isKruiseWorkload(w: Obj): boolean {
  return String(w.apiVersion ?? '').startsWith('apps.kruise.io/');
}

export function whyFindings(input: WhyInput): Finding[] {
  const w = input.workload;
  const kind = String(w.kind ?? '');
  const name = String(rec(w.metadata).name ?? '');
  const ref = `${kind.toLowerCase()}/${name}`;
  const spec = rec(w.spec);
  const status = rec(w.status);
  const out: Finding[] = [];
  if (controllerBehind(w)) out.push(notObserving(w, ref, input.manager));
  const strategy = rec(spec.updateStrategy);
  const releasing = releaseInProgress(input.rollout);
  const canary = rec(rec(input.rollout?.status).canaryStatus ?? rec(input.rollout?.status).blueGreenStatus);
  const rname = String(rec(input.rollout?.metadata).name);
  // rollouts pkg/controller/rollout: a step without duration waits in StepPaused for `approve` (status.canaryStatus.currentStepState).
  if (releasing && canary.currentStepState === 'StepPaused') {
    out.push({ code: 'AwaitingApproval', cause: `rollout/${rname} waits at step ${String(canary.currentStepIndex)} for approval`, objects: [`rollout/${rname}`, ref], next: `kubectl kruise rollout approve rollout/${rname}` });
  } else if ((spec.paused === true || strategy.paused === true) && releasing) {
    out.push({ code: 'AwaitingApproval', cause: 'a Kruise Rollout holds the workload paused between batches', objects: [ref, `rollout/${String(rec(input.rollout?.metadata).name)}`], next: `kubectl kruise rollout approve rollout/${String(rec(input.rollout?.metadata).name)}` });
  } else if (spec.paused === true || strategy.paused === true) {
    const path = spec.paused === true ? '{"spec":{"paused":false}}' : '{"spec":{"updateStrategy":{"paused":false}}}';
    out.push({ code: 'Paused', cause: 'the workload is paused', objects: [ref], next: `kubectl patch ${ref} --type=merge -p '${path}'` });
  }
  // A template its Rollout will never release (its in-progressing mark lost to a finalising release): the
  // partition is the webhook's hold, so "set partition 0" would bypass the canary; a new template change is the way out.
  const rolloutView = input.rollout ? readRollout(input.rollout as KubeObject, w as KubeObject) : undefined;
  const unreleased = rolloutView ? unreleasedTemplate(rolloutView, w as KubeObject) : undefined;
  if (unreleased && rolloutView) {
    out.push({ code: 'UnreleasedTemplate', cause: unreleasedTemplateCause(rolloutView, w as KubeObject, unreleased, true), objects: [ref, `rollout/${rname}`], next: `${unreleasedTemplateFix(w as KubeObject)}  # any new template change starts its release` });
  }
  const replicas = num(spec.replicas) ?? 0;
  const updated = num(status.updatedReplicas) ?? 0;
  // CloneSet keeps updateStrategy.partition; Advanced StatefulSet / DaemonSet and native StatefulSet keep
  // updateStrategy.rollingUpdate.partition: the patch must name the field the workload has.
  const topLevel = strategy.partition !== undefined;
  const partition = topLevel ? strategy.partition : rec(strategy.rollingUpdate).partition;
  if (partition !== undefined && !releasing && !unreleased) {
    // cloneset_update.go: pods beyond replicas-partition keep the old revision.
    const held = scaledValueFromIntOrPercent(partition, replicas, true);
    if (held > 0 && updated < replicas) {
      const patch = topLevel ? '{"spec":{"updateStrategy":{"partition":0}}}' : '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}';
      out.push({ code: 'PartitionHolds', cause: `partition ${String(partition)} keeps ${held} of ${replicas} pods on the old revision`, objects: [ref], next: `kubectl patch ${ref} --type=merge -p '${patch}'` });
    }
  }
  if (kind === 'UnitedDeployment' && !releasing) {
    // A Manual update strategy's manualUpdate.partitions[subset] becomes that subset workload's partition:
    // so many of its pods stay on the old revision (kruise pkg/controller/uniteddeployment/uniteddeployment_controller.go:491).
    const partitions = strategy.type === 'Manual' ? rec(rec(strategy.manualUpdate).partitions) : {};
    const subsetReplicas = rec(status.subsetReplicas);
    const held = Object.entries(partitions)
      .map(([subset, value]) => ({ subset, pods: num(subsetReplicas[subset]) ?? 0, held: Math.min(num(value) ?? 0, num(subsetReplicas[subset]) ?? 0) }))
      .filter((h) => h.held > 0)
      .sort((a, b) => compareText(a.subset, b.subset));
    if (held.length > 0 && updated < replicas) {
      const patch = JSON.stringify({ spec: { updateStrategy: { manualUpdate: { partitions: Object.fromEntries(held.map((h) => [h.subset, 0])) } } } });
      out.push({
        code: 'PartitionHolds',
        cause: `manualUpdate.partitions keeps ${held.map((h) => `${h.held} of subset ${h.subset}'s ${h.pods} pods`).join(', ')} on the old revision`,
        objects: [ref],
        next: `kubectl patch ${ref} --type=merge -p '${patch}'`,
      });
    }
  }
  if (kind === 'SidecarSet') {
    const matched = num(status.matchedPods) ?? 0;
    const mu = strategy.maxUnavailable;
    // sidecarset_strategy.go calculateUpgradeCount scales maxUnavailable against the matched pods, rounding down
    // up to v1.7.4 (GetValueFromIntOrPercent(..., false); kruise#1812) and up from v1.7.5 and v1.8.0 (kruise#1834):
    // a percentage that rounds down to 0 stalls the upgrade on the older releases only, so the finding says which
    // (rules/sidecarset-upgrade.ts sidecarSetRounding is the controller's side of it).
    if (mu !== undefined && matched > 0 && scaledValueFromIntOrPercent(mu, matched, false) === 0 && (num(status.updatedPods) ?? 0) < matched) {
      out.push({
        code: 'MaxUnavailableRoundsToZero',
        cause: `maxUnavailable ${String(mu)} of ${matched} matched pods is 0 on Kruise v1.7.4 and earlier, which round it down (kruise#1812): there the upgrade never moves (v1.7.5, v1.8.0 and later round it up to ${scaledValueFromIntOrPercent(mu, matched, true)})`,
        objects: [ref],
        next: `kubectl patch ${ref} --type=merge -p '{"spec":{"updateStrategy":{"maxUnavailable":1}}}'`,
      });
    }
  }
  const scaleMu = rec(spec.scaleStrategy).maxUnavailable;
  if (kind === 'CloneSet' && scaleMu !== undefined && scaleMu !== null) {
    // cloneset_sync_utils.go calculateDiffsWithExpectation (kruise#2385): scaleUpLimit = min(missing,
    // max(scaleStrategy.maxUnavailable - totalUnavailable, 0)), totalUnavailable counting the active pods that are
    // PreparingDelete or not ready: at 0 no pod is created until one of them becomes ready.
    const limit = scaledValueFromIntOrPercent(scaleMu, replicas, true);
    const active = input.pods.filter((p) => !rec(p.metadata).deletionTimestamp);
    const unavailable = active.filter((p) => rec(rec(p.metadata).labels)['lifecycle.apps.kruise.io/state'] === 'PreparingDelete' || !podReady(p));
    if (active.length < replicas && unavailable.length >= limit) {
      out.push({ code: 'ScaleThrottled', cause: `${unavailable.length} pods unavailable >= scaleStrategy.maxUnavailable ${String(scaleMu)}: no new pods (${active.length} of ${replicas}) until some become ready`, objects: [ref, ...unavailable.map(podRef)], next: `kubectl patch ${ref} --type=merge -p '{"spec":{"scaleStrategy":{"maxUnavailable":null}}}'  # or make the unavailable pods ready` });
    }
  }
  for (const b of input.budgets ?? []) {
    // Only a PodUnavailableBudget holds an update: Kruise's CloneSet asks it before each pod it updates
    // (pkg/controller/cloneset/sync/cloneset_update.go, PodUnavailableBudgetValidatePod under the
    // PodUnavailableBudgetUpdateGate) and its pod webhook guards the in-place writes of the others. A
    // PodDisruptionBudget guards evictions only, which no workload controller makes: naming one blamed a
    // budget for a stall it cannot cause.
    if (b.kind !== 'PodUnavailableBudget') continue;
    const allowed = num(rec(b.status).unavailableAllowed);
    if (allowed !== 0 || updated >= replicas) continue;
    const bref = `${String(b.kind).toLowerCase()}/${String(rec(b.metadata).name)}`;
    const unready = input.pods.filter((p) => !podReady(p) && !rec(p.metadata).deletionTimestamp);
    if (unready.length > 0) {
      // The headroom is spent on pods that are unavailable now: it comes back as they become ready.
      out.push({ code: 'BudgetExhausted', cause: `${bref} allows 0 more unavailable pods: ${unready.length} pod(s) already unavailable spend it`, objects: [bref, ref, ...unready.map(podRef)], next: `kubectl describe ${podRef(unready[0]!)}  # the budget frees up as these pods become ready` });
    } else {
      // Every pod is available and still nothing may go: the budget admits no disruption at all.
      out.push({ code: 'BudgetExhausted', cause: `${bref} allows 0 unavailable pods while all of them are available: no pod can ever be updated`, objects: [bref, ref], next: `kubectl patch ${bref} --type=merge -p '{"spec":{"maxUnavailable":1,"minAvailable":null}}'` });
    }
  }
  for (const p of input.pods) {
    const hold = lifecycleHold(p, rec(spec.lifecycle));
    if (hold) out.push({ code: 'LifecycleHookHolds', cause: hold.cause, objects: [podRef(p), ref], next: hold.next });
    const gates = (rec(p.spec).readinessGates as Obj[] | undefined) ?? [];
    const conds = (rec(p.status).conditions as Obj[] | undefined) ?? [];
    const containersReady = conds.some((x) => x.type === 'ContainersReady' && x.status === 'True');
    for (const g of gates) {
      const gate = readinessGateHold(p, String(g.conditionType ?? ''), conds, containersReady);
      if (gate) out.push({ code: 'ReadinessGateFalse', cause: gate.cause, objects: [podRef(p), ref], next: gate.next });
    }
    const t = podTrouble(p as unknown as Pod);
    const reason = t?.summary ?? '';
    if (/ImagePull|ErrImage/.test(reason)) {
      out.push({ code: 'ImagePull', cause: `${podRef(p)}: ${reason}`, objects: [podRef(p), ref], next: `kubectl kruise rollout undo ${ref}  # back to the last revision that pulled; or set a valid image` });
    }
    const sched = conds.find((x) => x.type === 'PodScheduled' && x.status === 'False' && x.reason === 'Unschedulable');
    if (sched) {
      // A nodeSelector no node carries is the usual cause; dropping it from the template lets the controller recreate the pods.
      const nodeSelector = rec(rec(rec(spec.template).spec).nodeSelector);
      const next = Object.keys(nodeSelector).length
        ? `kubectl patch ${ref} --type=json -p '[{"op":"remove","path":"/spec/template/spec/nodeSelector"}]'  # or label a node: ${Object.entries(nodeSelector).map(([k, v]) => `${k}=${String(v)}`).join(',')}`
        : `kubectl describe ${podRef(p)}`;
      out.push({ code: 'Unschedulable', cause: `${podRef(p)}: ${String(sched.message ?? 'Unschedulable')}`, objects: [podRef(p), ref], next });
    }
  }
  const fix = leftoverPatch(w as unknown as KubeObject, input.rollout);
  if (fix && !unreleased) out.push({ code: 'RolloutLeftover', cause: fix.reasons.join('; '), objects: [ref], next: `kubectl kruise why ${ref} --fix` });
  return out;
}

/**
 * Whose controller is not observing, and the step that looks at (or restarts) it: for a Kruise kind,
 * kruise-manager's Deployment when it was read (scaled to 0: scale it back to config/manager/manager.yaml's 1);
 * for apps/v1, kube-controller-manager.
 */
function notObserving(w: Obj, ref: string, manager: Obj | null | undefined): Finding {
  const kind = String(w.kind ?? '');
  const lag = `status.observedGeneration ${String(rec(w.status).observedGeneration)} < metadata.generation ${String(rec(w.metadata).generation)}: the ${kind} controller has not seen the last change`;
  const dep = `deployment/${KRUISE_MANAGER.name}`;
  if (!isKruiseWorkload(w)) {
    const native = String(w.apiVersion ?? '').startsWith('apps/') ? 'kube-controller-manager' : 'its controller';
    return { code: 'ControllerNotObserving', cause: `${lag} (it runs in ${native})`, objects: [ref], next: native === 'kube-controller-manager' ? 'kubectl -n kube-system get pods -l component=kube-controller-manager  # is kube-controller-manager running?' : `kubectl get ${ref} -o yaml  # which controller owns ${kind}?` };
  }
  const objects = [ref];
  if (!manager) return { code: 'ControllerNotObserving', cause: `${lag} (it runs in kruise-manager)`, objects, next: `kubectl -n ${KRUISE_MANAGER.namespace} get ${dep}  # is kruise-manager running?` };
  objects.push(`${dep} -n ${KRUISE_MANAGER.namespace}`);
  const { replicas, available } = kruiseManagerState(manager as unknown as KubeObject);
  if (replicas === 0) return { code: 'ControllerNotObserving', cause: `${lag}: kruise-manager (${KRUISE_MANAGER.namespace}/${KRUISE_MANAGER.name}) is scaled to 0, so no Kruise controller runs`, objects, next: `kubectl -n ${KRUISE_MANAGER.namespace} scale ${dep} --replicas=${KRUISE_MANAGER_DEFAULT_REPLICAS}` };
  if (available === 0) return { code: 'ControllerNotObserving', cause: `${lag}: kruise-manager (${KRUISE_MANAGER.namespace}/${KRUISE_MANAGER.name}) has 0 of ${replicas} replicas available, so no Kruise controller runs`, objects, next: `kubectl -n ${KRUISE_MANAGER.namespace} describe ${dep}  # why are its pods not available?` };
  return { code: 'ControllerNotObserving', cause: `${lag}, though kruise-manager has ${available} of ${replicas} replicas available`, objects, next: `kubectl -n ${KRUISE_MANAGER.namespace} logs ${dep} --tail=200  # what does kruise-manager say about ${ref}?` };
}

/**
 * A pod a lifecycle hook holds (CloneSet / Advanced StatefulSet spec.lifecycle; Kruise pkg/util/lifecycle,
 * kruise#369): PreparingDelete and PreparingUpdate wait while the preDelete / inPlaceUpdate hook is on the pod
 * (IsPodHooked: any of its finalizers, or a label at the hook's value), PreparingNormal until the preNormal hook
 * is all on (IsPodAllHooked). The next step is what the hook's owner does when its work is done: take the hook's
 * labels and finalizers off (put them on, for preNormal), with `test` ops so a finalizer list that moved is not
 * cut at the wrong index.
 */
function lifecycleHold(p: Obj, lifecycle: Obj): { cause: string; next: string } | undefined {
  const state = rec(rec(p.metadata).labels)['lifecycle.apps.kruise.io/state'];
  const pod = p as unknown as Pod;
  const hookOf = (k: string): LifecycleHook | undefined => (lifecycle[k] && typeof lifecycle[k] === 'object' ? (lifecycle[k] as LifecycleHook) : undefined);
  const which = state === 'PreparingDelete' ? 'preDelete' : state === 'PreparingUpdate' ? 'inPlaceUpdate' : state === 'PreparingNormal' ? 'preNormal' : undefined;
  if (!which) return undefined;
  const hook = hookOf(which);
  const pref = podRef(p);
  const labels = rec(rec(p.metadata).labels);
  const finalizers = (rec(p.metadata).finalizers as string[] | undefined) ?? [];
  if (which === 'preNormal') {
    if (!hook || isPodAllHooked(hook, pod)) return undefined;
    const missingLabels = Object.entries(hook.labelsHandler ?? {}).filter(([k, v]) => labels[k] !== v);
    const missingFinalizers = (hook.finalizersHandler ?? []).filter((f) => !finalizers.includes(f));
    const steps: string[] = [];
    if (missingLabels.length) steps.push(`kubectl label ${pref} --overwrite ${missingLabels.map(([k, v]) => `${k}=${v}`).join(' ')}`);
    if (missingFinalizers.length) {
      const ops = finalizers.length === 0 ? [{ op: 'add', path: '/metadata/finalizers', value: missingFinalizers }] : missingFinalizers.map((f) => ({ op: 'add', path: '/metadata/finalizers/-', value: f }));
      steps.push(`kubectl patch ${pref} --type=json -p '${JSON.stringify(ops)}'`);
    }
    return { cause: `${pref} in lifecycle state PreparingNormal: its preNormal hook is not all on (missing ${[...missingLabels.map(([k, v]) => `label ${k}=${v}`), ...missingFinalizers.map((f) => `finalizer ${f}`)].join(', ')})`, next: `${steps.join(' && ')}  # what the hook's owner does once the pod may serve` };
  }
  // Without the hook (or with it off) the controller moves the pod on at its next sync: nothing holds it.
  if (!hook || !isPodHooked(hook, pod)) return undefined;
  const onLabels = Object.entries(hook.labelsHandler ?? {}).filter(([k, v]) => labels[k] === v).map(([k]) => k);
  const onFinalizers = finalizers.map((f, i) => [f, i] as const).filter(([f]) => (hook.finalizersHandler ?? []).includes(f));
  const steps: string[] = [];
  if (onLabels.length) steps.push(`kubectl label ${pref} ${onLabels.map((k) => `${k}-`).join(' ')}`);
  if (onFinalizers.length) {
    // From the last index down, each removal after a `test` of what is there.
    const ops = onFinalizers.slice().reverse().flatMap(([f, i]) => [{ op: 'test', path: `/metadata/finalizers/${i}`, value: f }, { op: 'remove', path: `/metadata/finalizers/${i}` }]);
    steps.push(`kubectl patch ${pref} --type=json -p '${JSON.stringify(ops)}'`);
  }
  const on = [...onLabels.map((k) => `label ${k}=${String(labels[k])}`), ...onFinalizers.map(([f]) => `finalizer ${f}`)].join(', ');
  return { cause: `${pref} in lifecycle state ${String(state)}: its ${which} hook (${on}) is still on, so Kruise waits for the hook's owner`, next: `${steps.join(' && ')}  # what the hook's owner does when its work is done` };
}

/** Kruise's own readiness gates: Kruise sets them (pkg/util/pod readiness, inplaceupdate), nobody else should. */
const KRUISE_GATES: Record<string, string> = {
  KruisePodReady: 'Kruise turns it False while it takes the pod out of service (a lifecycle hook with markPodNotReady, a ContainerRecreateRequest, a PodUnavailableBudget) and True again when that is done',
  InPlaceUpdateReady: 'Kruise turns it False for an in-place update and True when the new containers run',
};

/**
 * A readiness gate that keeps a pod out of Ready (the kubelet's rule: the pod is Ready only when every gate's
 * condition is True, and "corresponding condition of pod readiness gate ... does not exist" when it is absent;
 * an absent one counts once the containers are ready, before that the containers are the cause). A custom gate
 * belongs to another controller (a load balancer's, say): the next step sets its condition as that owner does, on
 * the status subresource; a Kruise gate is Kruise's to set, so the next step reads its message.
 */
function readinessGateHold(p: Obj, type: string, conds: readonly Obj[], containersReady: boolean): { cause: string; next: string } | undefined {
  const c = conds.find((x) => x.type === type);
  if (c?.status === 'True' || (!c && !containersReady)) return undefined;
  const pref = podRef(p);
  const state = c ? `is ${String(c.status)}${c.reason ? ` (${String(c.reason)}${c.message ? `: ${String(c.message)}` : ''})` : ''}` : 'has no condition on the pod yet';
  const kruise = KRUISE_GATES[type];
  if (kruise) return { cause: `${pref}: readiness gate ${type} ${state}; ${kruise}`, next: `kubectl get ${pref} -o jsonpath='{.status.conditions[?(@.type=="${type}")]}'` };
  const patch = JSON.stringify({ status: { conditions: [{ type, status: 'True' }] } });
  return { cause: `${pref}: readiness gate ${type} ${state}: the pod is not Ready until whoever owns the gate sets it True`, next: `kubectl patch ${pref} --subresource=status --type=strategic -p '${patch}'  # what the gate's owner does once the pod may take traffic` };
}

function podReady(p: Obj): boolean {
  const conds = (rec(p.status).conditions as Obj[] | undefined) ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

function podRef(p: Obj): string {
  return `pod/${String(rec(p.metadata).name)}`;
}

/**
 * Whether a budget guards the workload's pods, judged on its pod template's labels. A
 * PodUnavailableBudget's targetRef wins over its selector, and a nil or empty PUB selector matches
 * nothing (Kruise pkg/controller/podunavailablebudget/pub_pod_event_handler.go GetPubForPod); a
 * policy/v1 PodDisruptionBudget's empty selector matches every pod, a missing one none.
 */
export function budgetCoversWorkload(budget: Obj, workload: Obj): boolean {
  const spec = rec(budget.spec);
  const labels = rec(rec(rec(rec(workload.spec).template).metadata).labels) as Record<string, string>;
  if (budget.kind === 'PodUnavailableBudget') {
    const target = rec(spec.targetRef);
    if (Object.keys(target).length > 0) return target.name === rec(workload.metadata).name && target.kind === workload.kind;
    const sel = rec(spec.selector) as LabelSelector;
    const empty = Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
    return !empty && labelSelectorMatches(sel, labels);
  }
  if (spec.selector === undefined || spec.selector === null) return false;
  return labelSelectorMatches(rec(spec.selector) as LabelSelector, labels);
}
