// Kruise Rollout's traffic routing on an nginx Ingress, pure (openkruise/rollouts v0.6.2
// pkg/trafficrouting/manager.go DoTrafficRouting/PatchStableService/RestoreStableService/RestoreGateway/
// RemoveCanaryService/createCanaryService, pkg/trafficrouting/network/ingress/ingress.go EnsureRoutes/
// buildCanaryIngress/Finalise, lua_configuration/trafficrouting_ingress/nginx.lua):
// - the stable Service's selector is pinned to the stable revision, a "<service>-canary" Service selects
//   the canary revision (pod-template-hash);
// - a "<ingress>-canary" Ingress, a copy of the stable one whose backends point at the canary Service,
//   carries nginx.ingress.kubernetes.io/canary "true" and canary-weight (and canary-by-header[-value|-pattern],
//   canary-by-cookie for matches), as the nginx Lua script writes them;
// - finalising deletes the canary Ingress and Service and unpins the stable Service.
// Only the first trafficRouting is used (upstream's ObjectRef[0]); only Ingress (nginx) is imitated.
// Grace periods: DoTrafficRouting waits gracePeriodSeconds after the last change (status lastUpdateTime);
// the finalising steps' in-memory grace (pkg/util/grace) is not imitated.
import type { KubeObject } from '../types';
import { at, isObj, numAt, strAt } from '../workloads/access';
import { rolloutScaledValue } from './step-math';
import type { RolloutContext, RolloutStepSpec } from './rollout-context';
import type { SubStatusObj } from './rollout-status';
import { compareText } from '../../lib/compare';

export const SERVICES = { group: '', resource: 'services' };
export const INGRESSES = { group: 'networking.k8s.io', resource: 'ingresses' };
export const NGINX = 'nginx.ingress.kubernetes.io';
/** The label a CloneSet/partition workload's pods carry their revision hash in (Workload.RevisionLabelKey). */
const REVISION_LABEL_KEY = 'pod-template-hash';

export interface IngressRouting {
  service: string;
  ingress?: string;
  classType: string;
  gracePeriodSeconds: number;
}

/** The first trafficRouting of the strategy, when it names a Service. */
export function ingressRoutingOf(strategySpec: Record<string, unknown>): IngressRouting | undefined {
  const list = at(strategySpec, 'trafficRoutings');
  const first = Array.isArray(list) ? list[0] : undefined;
  const service = strAt(first, 'service');
  if (!service) return undefined;
  const grace = numAt(first, 'gracePeriodSeconds');
  return {
    service,
    ingress: strAt(first, 'ingress', 'name'),
    classType: strAt(first, 'ingress', 'classType') ?? 'nginx',
    gracePeriodSeconds: grace !== undefined && grace > 0 ? grace : 3,
  };
}

/** Names the sandbox controller fetches for a Rollout (Services and Ingresses, stable and canary). */
export function trafficObjectNames(strategySpec: Record<string, unknown>): { services: string[]; ingresses: string[] } {
  const r = ingressRoutingOf(strategySpec);
  if (!r) return { services: [], ingresses: [] };
  return { services: [r.service, `${r.service}-canary`], ingresses: r.ingress ? [r.ingress, `${r.ingress}-canary`] : [] };
}

/** nginx.lua: the canary annotations for a weight (undefined: no weight) and matches. */
export function nginxCanaryAnnotations(current: Record<string, string>, weight: number | undefined, matches: unknown[] | undefined): Record<string, string> {
  const a: Record<string, string> = { ...current, [`${NGINX}/canary`]: 'true' };
  for (const k of ['canary-by-cookie', 'canary-by-header', 'canary-by-header-pattern', 'canary-by-header-value', 'canary-weight']) delete a[`${NGINX}/${k}`];
  if (weight !== undefined) a[`${NGINX}/canary-weight`] = String(weight);
  for (const m of matches ?? []) {
    const headers = at(m, 'headers');
    const header = Array.isArray(headers) ? headers[0] : undefined;
    if (!isObj(header)) continue;
    const name = strAt(header, 'name') ?? '';
    const value = strAt(header, 'value') ?? '';
    if (name === 'canary-by-cookie') a[`${NGINX}/canary-by-cookie`] = value;
    else {
      a[`${NGINX}/canary-by-header`] = name;
      a[`${NGINX}/${strAt(header, 'type') === 'RegularExpression' ? 'canary-by-header-pattern' : 'canary-by-header-value'}`] = value;
    }
  }
  return a;
}

/** ingress.go buildCanaryIngress: the stable Ingress's rules that reach the stable Service, pointed at the canary one. */
export function buildCanaryIngress(stable: KubeObject, stableService: string, canaryService: string, owner: Record<string, unknown>): KubeObject {
  const rulesIn = at(stable, 'spec', 'rules');
  const rules: unknown[] = [];
  for (const rule of Array.isArray(rulesIn) ? rulesIn : []) {
    const paths = at(rule, 'http', 'paths');
    const canaryPaths = (Array.isArray(paths) ? paths : [])
      .filter((p) => strAt(p, 'backend', 'service', 'name') === stableService)
      .map((p) => {
        const path = structuredClone(p) as { backend: { service: { name: string } } };
        path.backend.service.name = canaryService;
        return path;
      });
    if (canaryPaths.length > 0) rules.push({ ...(strAt(rule, 'host') ? { host: strAt(rule, 'host') } : {}), http: { paths: canaryPaths } });
  }
  const spec: Record<string, unknown> = { rules };
  const cls = strAt(stable, 'spec', 'ingressClassName');
  if (cls) spec.ingressClassName = cls;
  const tls = at(stable, 'spec', 'tls');
  if (tls !== undefined) spec.tls = tls;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name: `${stable.metadata.name}-canary`,
      namespace: stable.metadata.namespace,
      ...(stable.metadata.labels ? { labels: { ...stable.metadata.labels } } : {}),
      annotations: { ...(stable.metadata.annotations ?? {}) },
      ownerReferences: [owner as never],
    },
    spec,
  };
}

function ownerOf(c: RolloutContext): Record<string, unknown> {
  return { apiVersion: c.rolloutObject.apiVersion ?? 'rollouts.kruise.io/v1beta1', kind: 'Rollout', name: c.rollout.name, uid: c.rollout.uid ?? '', controller: true, blockOwnerDeletion: true };
}

function selectorOf(svc: KubeObject | undefined): Record<string, string> {
  const s = at(svc, 'spec', 'selector');
  return isObj(s) ? (s as Record<string, string>) : {};
}

/** PatchStableService (before the first batch): the stable Service selects only the stable revision. Done when nothing to change. */
export function patchStableService(c: RolloutContext, sub: SubStatusObj): boolean {
  const r = ingressRoutingOf(c.rollout.strategySpec);
  if (!r) return true;
  const stable = c.traffic.services.get(r.service);
  if (!stable || !sub.stableRevision) return true;
  if (selectorOf(stable)[REVISION_LABEL_KEY] === sub.stableRevision) return true;
  c.writes.push({ kind: 'patchObject', gr: SERVICES, name: r.service, patch: { spec: { selector: { [REVISION_LABEL_KEY]: sub.stableRevision } } } });
  sub.lastUpdateTime = c.nowIso;
  return false;
}

/** DoTrafficRouting for the current step: true once the canary Ingress carries the step's weight and matches. */
export function doTrafficRouting(c: RolloutContext, sub: SubStatusObj, step: RolloutStepSpec): boolean {
  const r = ingressRoutingOf(c.rollout.strategySpec);
  if (!r) return true;
  if (step.traffic === undefined && !step.hasMatches) return true;
  const stable = c.traffic.services.get(r.service);
  if (!stable) return false;
  const since = Date.parse(sub.lastUpdateTime ?? '');
  if (Number.isFinite(since) && since + r.gracePeriodSeconds * 1000 > c.now.getTime()) {
    c.recheckMs = Math.min(c.recheckMs ?? Infinity, since + r.gracePeriodSeconds * 1000 - c.now.getTime());
    return false;
  }
  const canaryName = `${r.service}-canary`;
  if (!sub.stableRevision || !sub.podTemplateHash) return false;
  const canaryRevision = sub.podTemplateHash;
  let modified = false;
  const canary = c.traffic.services.get(canaryName);
  if (!canary) {
    // createCanaryService: the stable Service's spec without its addresses, selecting the canary revision
    const spec = structuredClone((stable.spec ?? {}) as Record<string, unknown>);
    for (const k of ['clusterIP', 'clusterIPs', 'externalIPs', 'ipFamilyPolicy', 'ipFamilies', 'loadBalancerIP']) delete spec[k];
    spec.selector = { ...selectorOf(stable), [REVISION_LABEL_KEY]: canaryRevision };
    if (Array.isArray(spec.ports)) spec.ports = spec.ports.map((p) => (isObj(p) ? (({ nodePort: _n, ...rest }) => rest)(p) : p));
    c.writes.push({ kind: 'createObject', gr: SERVICES, object: { apiVersion: 'v1', kind: 'Service', metadata: { name: canaryName, namespace: c.rollout.namespace, ownerReferences: [ownerOf(c) as never] }, spec } });
    modified = true;
  } else if (selectorOf(canary)[REVISION_LABEL_KEY] !== canaryRevision) {
    c.writes.push({ kind: 'patchObject', gr: SERVICES, name: canaryName, patch: { spec: { selector: { [REVISION_LABEL_KEY]: canaryRevision } } } });
    modified = true;
  }
  if (selectorOf(stable)[REVISION_LABEL_KEY] !== sub.stableRevision) {
    c.writes.push({ kind: 'patchObject', gr: SERVICES, name: r.service, patch: { spec: { selector: { [REVISION_LABEL_KEY]: sub.stableRevision } } } });
    modified = true;
  }
  if (modified) {
    sub.lastUpdateTime = c.nowIso;
    c.recheckMs = Math.min(c.recheckMs ?? Infinity, r.gracePeriodSeconds * 1000);
    return false;
  }
  return ensureRoutes(c, r, canaryName, step);
}

/** ingress.go EnsureRoutes: create the canary Ingress (weight 0), then bring its annotations to the step's. */
function ensureRoutes(c: RolloutContext, r: IngressRouting, canaryService: string, step: RolloutStepSpec): boolean {
  if (!r.ingress) return true;
  const weight = step.traffic !== undefined ? rolloutScaledValue(step.traffic, 100) : undefined;
  const canaryName = `${r.ingress}-canary`;
  const canary = c.traffic.ingresses.get(canaryName);
  if (!canary) {
    if (weight === 0) return true;
    const stable = c.traffic.ingresses.get(r.ingress);
    if (!stable) return false;
    const built = buildCanaryIngress(stable, r.service, canaryService, ownerOf(c));
    built.metadata.annotations = nginxCanaryAnnotations(built.metadata.annotations ?? {}, 0, undefined);
    c.writes.push({ kind: 'createObject', gr: INGRESSES, object: built });
    return false;
  }
  const current = canary.metadata.annotations ?? {};
  const next = nginxCanaryAnnotations(current, weight, step.matches);
  if (JSON.stringify(sortKeys(current)) === JSON.stringify(sortKeys(next))) return true;
  const patch: Record<string, string | null> = {};
  for (const k of Object.keys(current)) if (!(k in next)) patch[k] = null;
  for (const [k, v] of Object.entries(next)) if (current[k] !== v) patch[k] = v;
  c.writes.push({ kind: 'patchObject', gr: INGRESSES, name: canaryName, patch: { metadata: { annotations: patch } } });
  return false;
}

function sortKeys(o: Record<string, string>): Array<[string, string]> {
  return Object.entries(o).sort(([a], [b]) => compareText(a, b));
}

/** RestoreStableService: the stable Service selects every revision again. Returns true to retry. */
export function restoreStableService(c: RolloutContext): boolean {
  const r = ingressRoutingOf(c.rollout.strategySpec);
  const stable = r && c.traffic.services.get(r.service);
  if (!r || !stable || selectorOf(stable)[REVISION_LABEL_KEY] === undefined) return false;
  c.writes.push({ kind: 'patchObject', gr: SERVICES, name: r.service, patch: { spec: { selector: { [REVISION_LABEL_KEY]: null } } } });
  return true;
}

/** RestoreGateway (ingress.go Finalise): delete the canary Ingress. Returns true to retry. */
export function restoreGateway(c: RolloutContext): boolean {
  const r = ingressRoutingOf(c.rollout.strategySpec);
  const canary = r?.ingress ? c.traffic.ingresses.get(`${r.ingress}-canary`) : undefined;
  if (!r?.ingress || !canary || canary.metadata.deletionTimestamp) return false;
  c.writes.push({ kind: 'deleteObject', gr: INGRESSES, name: `${r.ingress}-canary` });
  return true;
}

/** RemoveCanaryService: delete "<service>-canary". Returns true to retry. */
export function removeCanaryService(c: RolloutContext): boolean {
  const r = ingressRoutingOf(c.rollout.strategySpec);
  if (!r || !c.traffic.services.get(`${r.service}-canary`)) return false;
  c.writes.push({ kind: 'deleteObject', gr: SERVICES, name: `${r.service}-canary` });
  return true;
}
