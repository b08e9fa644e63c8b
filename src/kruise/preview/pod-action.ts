// One pod's fate under a template change: the same inPlaceUpdateDecision the sandbox controllers
// call (rules/cloneset-inplace.ts), turned into an action, the containers touched and their restart
// order (container launch priority).
import { jsonEqual } from '../../lib/json-equal';
import { inPlaceUpdateDecision, type InPlaceUpdatePlan } from '../rules/cloneset-inplace';
import type { Container } from '../types';
import { podNeedsBeUnready } from '../rules/inplace-vertical';
import type { GateState, PodAction, PodPreview } from './types';

export const VERTICAL_GATE = 'InPlaceWorkloadVerticalScaling';
export const LAUNCH_PRIORITY_ANNOTATION = 'apps.kruise.io/container-launch-priority';
const PRIORITY_ENV = 'KRUISE_CONTAINER_PRIORITY';
const BARRIER_ENV = 'KRUISE_CONTAINER_BARRIER';

export type PolicyName = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly';

export interface DecideInput {
  from: Record<string, unknown> | undefined;
  to: Record<string, unknown>;
  policy: PolicyName;
  envFromMetadata: boolean;
  verticalScaling: GateState;
}

type Decision = Pick<PodPreview, 'action' | 'images' | 'restartOrder' | 'resize' | 'reasons' | 'ifGateOn' | 'staysReady'>;

/**
 * A container's launch priority (higher starts, and is updated, first): env KRUISE_CONTAINER_PRIORITY,
 * the barrier env the pod webhook injects (configMapKeyRef key `p_N`), or under the pod annotation
 * `apps.kruise.io/container-launch-priority: Ordered` the order of the list (earlier first).
 */
export function containerLaunchPriority(container: Container, index: number, count: number, ordered: boolean): number {
  for (const e of (container.env ?? []) as Array<{ name: string; value?: string; valueFrom?: { configMapKeyRef?: { key?: string } } }>) {
    if (e.name === PRIORITY_ENV && e.value !== undefined && /^-?\d+$/.test(e.value)) return Number(e.value);
    const key = e.valueFrom?.configMapKeyRef?.key;
    if (e.name === BARRIER_ENV && key && /^p_-?\d+$/.test(key)) return Number(key.slice(2));
  }
  return ordered ? count - index : 0;
}

/** Containers to restart, grouped in launch-priority batches (Kruise updates the highest first and waits for it). */
export function restartBatches(template: Record<string, unknown>, names: ReadonlySet<string>): string[][] {
  const meta = (template.metadata ?? {}) as { annotations?: Record<string, string> };
  const ordered = meta.annotations?.[LAUNCH_PRIORITY_ANNOTATION] === 'Ordered';
  const containers = (((template.spec ?? {}) as { containers?: Container[] }).containers ?? []) as Container[];
  const ranked = containers
    .map((c, i) => ({ name: c.name, p: containerLaunchPriority(c, i, containers.length, ordered) }))
    .filter((c) => names.has(c.name))
    .sort((a, b) => b.p - a.p);
  const out: string[][] = [];
  let last: number | undefined;
  for (const c of ranked) {
    if (last === c.p) out[out.length - 1]!.push(c.name);
    else out.push([c.name]);
    last = c.p;
  }
  return out;
}

function inPlaceAction(plan: InPlaceUpdatePlan, to: Record<string, unknown>, vertical: boolean): Decision {
  const images = plan.containerImages;
  const restarted = new Set([...Object.keys(images), ...plan.envFromMetadataContainers, ...plan.resizeRestartContainers]);
  const action: PodAction = Object.keys(images).length > 0 ? 'update-in-place' : Object.keys(plan.containerResources).length > 0 ? 'resize-in-place' : plan.envFromMetadataContainers.length > 0 ? 'restart-in-place' : 'update-in-place';
  const out: Decision = { action };
  if (Object.keys(images).length > 0) out.images = images;
  if (Object.keys(plan.containerResources).length > 0) out.resize = plan.containerResources;
  if (restarted.size > 0) out.restartOrder = restartBatches(to, restarted);
  // Kruise's workload pods carry the InPlaceUpdateReady gate (its pod webhook adds it)
  const containers = (((to.spec ?? {}) as { containers?: Container[] }).containers ?? []) as Container[];
  if (!podNeedsBeUnready({ spec: { containers, readinessGates: [{ conditionType: 'InPlaceUpdateReady' }] } }, plan, vertical)) out.staysReady = true;
  return out;
}

function decideWithGate(input: DecideInput, vertical: boolean): Decision {
  if (input.policy === 'ReCreate') return { action: 'recreate', reasons: ['the update policy recreates pods'] };
  const d = inPlaceUpdateDecision(input.from, input.to, { envFromMetadata: input.envFromMetadata, verticalScaling: vertical });
  if (d.inPlace) return inPlaceAction(d.plan, input.to, vertical);
  return { action: input.policy === 'InPlaceOnly' ? 'refused' : 'recreate', reasons: d.reasons };
}

/** What Kruise does to a pod at template `from` when the workload moves to `to`. */
export function decidePodAction(input: DecideInput): Decision {
  if (input.from && jsonEqual(input.from, input.to)) return { action: 'unchanged' };
  // InPlaceOnly: Kruise's webhook (ValidateCloneSetUpdate, the ASTS validateTemplateInPlaceOnly) takes image
  // replaces only, whatever the gates, so a resize is refused there before any controller sees it
  if (input.policy === 'InPlaceOnly') return decideWithGate(input, false);
  if (input.verticalScaling !== 'unknown') return decideWithGate(input, input.verticalScaling === 'on');
  const off = decideWithGate(input, false);
  const on = decideWithGate(input, true);
  if (off.action === on.action) return off;
  return { ...off, ifGateOn: { gate: VERTICAL_GATE, action: on.action } };
}
