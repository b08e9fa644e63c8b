// Kruise's SidecarSet webhooks: the defaults the mutating webhook writes before hashing
// (apis/apps/defaults/v1beta1.go SetDefaultsSidecarSetV1beta1, v1alpha1.go SetDefaultsSidecarSet) and the
// validating webhook's rules (pkg/webhook/sidecarset/validating/sidecarset_create_update_handler.go,
// Kruise v1.9.0) that a user meets first: selector, containers, strategies, conflicts. Not ported: the
// full pod-spec validation of the sidecar containers, transferEnv downward-API paths, resourcesPolicy.
import type { LabelSelector } from '../selectors';
import type { KubeObject } from '../types';
import type { FieldError } from './cloneset-webhook';
import { validatePositiveIntOrPercent } from './intstr-validation';
import { defaultContainer } from './pod-defaults';
import { pinnedRevision, readSidecarSet, type SidecarContainer, type SidecarSetView } from './sidecarset';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function defaultSidecarContainer(c: Obj, injectPolicy: string): void {
  c.podInjectPolicy ??= injectPolicy;
  const up = (c.upgradeStrategy = isObj(c.upgradeStrategy) ? c.upgradeStrategy : {});
  up.upgradeType ??= 'ColdUpgrade';
  const share = (c.shareVolumePolicy = isObj(c.shareVolumePolicy) ? c.shareVolumePolicy : {});
  share.type ??= 'disabled';
  defaultContainer(c); // v1alpha1.go setDefaultContainer: v1.SetDefaults_Container, ports TCP
}

/**
 * The SidecarSet after the mutating webhook's defaults: updateStrategy type RollingUpdate, maxUnavailable 1,
 * partition 0; containers BeforeAppContainer (init containers AfterAppContainer from v1.4; v1.3 defaults
 * both to BeforeAppContainer), ColdUpgrade, shareVolumePolicy disabled, container defaults;
 * revisionHistoryLimit 10; patchPolicy Retain; injection revision policy Always.
 */
export function sidecarSetDefaults(obj: KubeObject, release: string): KubeObject {
  const out = structuredClone(obj);
  const spec = (out.spec = isObj(out.spec) ? out.spec : {}) as Obj;
  const us = (spec.updateStrategy = isObj(spec.updateStrategy) ? spec.updateStrategy : {});
  us.type ??= 'RollingUpdate';
  us.maxUnavailable ??= 1;
  us.partition ??= 0;
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) if (isObj(c)) defaultSidecarContainer(c, release === 'v1.3' ? 'BeforeAppContainer' : 'AfterAppContainer');
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) if (isObj(c)) defaultSidecarContainer(c, 'BeforeAppContainer');
  spec.revisionHistoryLimit ??= 10;
  for (const p of Array.isArray(spec.patchPodMetadata) ? spec.patchPodMetadata : []) if (isObj(p)) p.patchPolicy ??= 'Retain';
  const inj = isObj(spec.injectionStrategy) ? spec.injectionStrategy : undefined;
  if (inj && isObj(inj.revision)) inj.revision.policy ??= 'Always';
  return out;
}

function selectorErrors(sel: LabelSelector | undefined, field: string): FieldError[] {
  if (!sel) return [];
  if (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0) {
    return [{ type: 'Invalid', field, value: sel, detail: 'empty selector is not valid for sidecarset.' }];
  }
  return [];
}

const isNativeSidecar = (c: SidecarContainer) => c.restartPolicy === 'Always';

/**
 * validateSidecarSet: spec rules, container upgrade types immutable and containers not added on update,
 * and no container / init container / volume name shared with another SidecarSet (volumes only when they differ).
 */
export function validateSidecarSet(obj: KubeObject, old: KubeObject | undefined, others: KubeObject[], revisions?: KubeObject[]): FieldError[] {
  const ss = readSidecarSet(obj);
  const errs: FieldError[] = [];
  errs.push(...injectionStrategyErrors(obj, revisions));
  if (ss.updateStrategy.type === 'RollingUpdate' && ss.initContainers.some(isNativeSidecar)) {
    errs.push({ type: 'Required', field: 'spec.updateStrategy', detail: 'The initContainer in-place upgrade is not currently supported.' });
  }
  if (!ss.selector) errs.push({ type: 'Required', field: 'spec.selector', detail: 'no selector defined for SidecarSet' });
  else errs.push(...selectorErrors(ss.selector, 'spec.selector'));
  if (ss.namespaceSelector) errs.push(...selectorErrors(ss.namespaceSelector, 'spec.namespaceSelector'));
  const us = ss.updateStrategy;
  if (us.type === 'RollingUpdate') {
    const partitionSet = us.partition !== undefined && us.partition !== null && us.partition !== 0;
    if (partitionSet && us.selector) errs.push({ type: 'Invalid', field: 'updateStrategy', value: us, detail: 'Partition and Selector cannot be used together' });
    if (us.selector) errs.push(...selectorErrors(us.selector, 'spec.updateStrategy.selector'));
    if (us.partition !== undefined) errs.push(...validatePositiveIntOrPercent('spec.updateStrategy.partition', us.partition));
    if (us.maxUnavailable !== undefined) errs.push(...validatePositiveIntOrPercent('spec.updateStrategy.maxUnavailable', us.maxUnavailable));
  }
  if (ss.initContainers.length === 0 && ss.containers.length === 0) errs.push({ type: 'Required', field: '', detail: 'no initContainer or container defined for SidecarSet' });
  const seen = new Set<string>();
  for (const [i, c] of [...ss.initContainers, ...ss.containers].entries()) {
    if (seen.has(c.name)) errs.push({ type: 'Duplicate', field: `spec.containers[${i}].name`, value: c.name, detail: '' });
    seen.add(c.name);
  }
  for (const c of ss.containers) {
    if (c.podInjectPolicy !== 'BeforeAppContainer' && c.podInjectPolicy !== 'AfterAppContainer') {
      errs.push({ type: 'Invalid', field: 'spec.container.podInjectPolicy', value: c.podInjectPolicy ?? '', detail: 'unsupported pod inject policy' });
    }
    const share = c.shareVolumePolicy?.type;
    if (share !== 'enabled' && share !== 'disabled') errs.push({ type: 'Invalid', field: 'spec.container.shareVolumePolicy', value: c.shareVolumePolicy ?? {}, detail: 'unsupported share volume policy' });
    if (!c.image) errs.push({ type: 'Required', field: `spec.containers[${ss.containers.indexOf(c)}].image`, detail: '' });
  }
  if (old) {
    const oldTypes = new Map(readSidecarSet(old).containers.map((c) => [c.name, c.upgradeStrategy?.upgradeType ?? '']));
    for (const c of ss.containers) {
      const t = oldTypes.get(c.name);
      if (t === undefined) errs.push({ type: 'Invalid', field: 'spec.containers.name', value: c.name, detail: `container ${c.name} is not found` });
      else if (t !== '' && (c.upgradeStrategy?.upgradeType ?? '') !== t) {
        errs.push({ type: 'Invalid', field: 'spec.containers.upgradeStrategy.upgradeType', value: c.name, detail: `container ${c.name} upgradeType is immutable` });
      }
    }
  }
  if (errs.length) return errs;
  for (const o of others) {
    const other = readSidecarSet(o);
    if (other.name === ss.name || !namespacesOverlap(ss, other) || !selectorsOverlap(ss.selector, other.selector)) continue;
    for (const c of ss.initContainers) {
      if (other.initContainers.some((x) => x.name === c.name)) errs.push({ type: 'Invalid', field: 'spec.containers', value: c.name, detail: `container ${c.name} already exist in ${other.name}` });
    }
    for (const c of ss.containers) {
      if (other.containers.some((x) => x.name === c.name)) errs.push({ type: 'Invalid', field: 'spec.containers', value: c.name, detail: `container ${c.name} already exist in ${other.name}` });
    }
    for (const v of ss.volumes) {
      const ov = other.volumes.find((x) => x.name === v.name);
      if (ov && JSON.stringify(ov) !== JSON.stringify(v)) errs.push({ type: 'Invalid', field: 'spec.volumes', value: v.name, detail: `volume ${v.name} is in conflict with sidecarset ${other.name}` });
    }
  }
  return errs;
}

/** util.isDisjoint: a matchLabels value of `b` outside what `a` allows for that key (value, In values, Exists = any). */
function isDisjoint(a: LabelSelector, b: LabelSelector): boolean {
  const allowed = new Map<string, string[]>();
  for (const [k, v] of Object.entries(a.matchLabels ?? {})) allowed.set(k, [v]);
  for (const r of a.matchExpressions ?? []) {
    if (r.operator === 'In') allowed.set(r.key, [...(allowed.get(r.key) ?? []), ...(r.values ?? [])]);
    if (r.operator === 'Exists') allowed.set(r.key, ['ALL']);
  }
  for (const [k, v] of Object.entries(b.matchLabels ?? {})) {
    const vals = allowed.get(k);
    if (vals && !vals.includes('ALL') && !vals.includes(v)) return true;
  }
  return false;
}

/** util.IsSelectorOverlapping (matchLabels against matchLabels / In / Exists; other expressions are taken to overlap). */
export function selectorsOverlap(a: LabelSelector | undefined, b: LabelSelector | undefined): boolean {
  if (!a || !b) return false;
  return !(isDisjoint(a, b) || isDisjoint(b, a));
}

/** isSidecarSetNamespaceOverlapping, on what the objects say (a pinned namespace on each side must agree). */
function namespacesOverlap(a: SidecarSetView, b: SidecarSetView): boolean {
  if (a.namespaceSelector && b.namespaceSelector && !selectorsOverlap(a.namespaceSelector, b.namespaceSelector)) return false;
  const pinned = (s: SidecarSetView) => s.namespace ?? s.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
  const na = pinned(a);
  const nb = pinned(b);
  return !na || !nb || na === nb;
}

/** validateSidecarSetInjectionStrategy: a revision needs a name or custom version that exists (when `revisions` is given), and a known policy. */
function injectionStrategyErrors(obj: KubeObject, revisions: KubeObject[] | undefined): FieldError[] {
  const spec = (isObj(obj.spec) ? obj.spec : {}) as Obj;
  const inj = isObj(spec.injectionStrategy) ? spec.injectionStrategy : undefined;
  const rev = inj && isObj(inj.revision) ? (inj.revision as { revisionName?: string; customVersion?: string; policy?: string }) : undefined;
  if (!rev) return [];
  if (!rev.revisionName && !rev.customVersion) return [{ type: 'Invalid', field: 'revision', value: rev, detail: 'revisionName and customVersion cannot be empty simultaneously' }];
  const errs: FieldError[] = [];
  if (revisions && !pinnedRevision(obj, revisions)) {
    errs.push({ type: 'Invalid', field: 'revision', value: rev, detail: `Cannot find specific ControllerRevision, err: controllerrevisions.apps "${rev.revisionName ?? rev.customVersion}" not found` });
  }
  if (rev.policy && rev.policy !== 'Always' && rev.policy !== 'Partial') {
    errs.push({ type: 'Invalid', field: 'revision.policy', value: rev, detail: `Invalid policy ${rev.policy}, supported: [Always, Partial]` });
  }
  return errs;
}
