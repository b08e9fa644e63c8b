// core/v1 Service admission: what kube-apiserver v1.32's Service REST storage does on create and update
// (pkg/registry/core/service/storage: beginCreate/beginUpdate -> alloc.go; strategy.go PrepareForUpdate,
// dropTypeDependentFields), on a single-stack IPv4 cluster with --service-cluster-ip-range=10.96.0.0/12 and
// the node port range 30000-32767:
// - IP family fields (initIPFamilyFields), then cluster IPs (the next free address; a requested one must be
//   in the range and free), node ports (one per port number, kept from the old object on updates) and the
//   health-check node port, each failure the 422 kube returns ("failed to allocate IP ...");
// - then the Service's validation (src/kruise/rules/service.ts), every error in one 422;
// - a new Service gets `status: {loadBalancer: {}}` as kube's PrepareForCreate leaves it.
// Allocation reads the Services stored (no allocator state of its own to leak on failures or deletes).
import { applyServiceDefaults, CLUSTER_IP_NONE, goStrings, isHeadless, needsHealthCheck, normalizeClusterIPs, validateService, type Service, type ServiceSpec } from '../../kruise/rules/service';
import { cidrContains, ipv4ToNumber, numberToIPv4, parseCIDR, parseIP } from '../../kruise/ip';
import type { FieldError } from '../../kruise/rules/cloneset-webhook';
import { jsonEqual } from '../../lib/json-equal';
import type { KubeObject } from '../../kruise/types';
import type { AdmissionHook, ControllerWithAdmission, GroupResource, Store } from '../store-api';
import { rejectInvalid } from './revisions-admission';

export const SERVICES: GroupResource = { group: '', resource: 'services' };
export const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';
export const NODE_PORT_RANGE = { base: 30000, size: 2768 };
const RANGE = parseCIDR(SERVICE_CLUSTER_IP_RANGE)!;

const needsClusterIP = (spec: ServiceSpec): boolean => spec.type !== 'ExternalName';
const needsNodePorts = (spec: ServiceSpec): boolean => spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);

function invalid(svc: Service, errors: FieldError[]): void {
  rejectInvalid(SERVICES, 'Service', svc, errors);
}

/** initIPFamilyFields on a single-stack IPv4 cluster. */
function initIPFamilies(svc: Service, old: Service | undefined): void {
  const spec = svc.spec!;
  if (spec.type === 'ExternalName') return;
  const selectorless = !spec.selector || Object.keys(spec.selector).length === 0;
  if (spec.ipFamilyPolicy === undefined) {
    if (old?.spec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.spec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = spec.clusterIP === CLUSTER_IP_NONE && selectorless ? 'RequireDualStack' : 'SingleStack';
  }
  const pre = validateService(svc).filter((e) => e.field.startsWith('spec.clusterIPs') || e.field.startsWith('spec.ipFamil'));
  if (pre.length) invalid(svc, pre);
  const errors: FieldError[] = [];
  if (spec.ipFamilyPolicy === 'SingleStack') {
    if (spec.clusterIPs?.length === 2) errors.push({ type: 'Invalid', field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified" });
    if (spec.ipFamilies?.length === 2) errors.push({ type: 'Invalid', field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified" });
  }
  const ips = spec.clusterIPs ?? [];
  for (let i = 0; i < ips.length && ips[i] !== CLUSTER_IP_NONE; i++) {
    const family = parseIP(ips[i]!)!.family;
    if (i >= (spec.ipFamilies?.length ?? 0)) {
      if (family !== 'IPv4') errors.push({ type: 'Invalid', field: `spec.clusterIPs[${i}]`, value: ips, shown: goStrings(ips), detail: `${family} is not configured on this cluster` });
      else spec.ipFamilies = [...(spec.ipFamilies ?? []), family];
    }
  }
  if (errors.length) invalid(svc, errors);
  if (spec.clusterIP === CLUSTER_IP_NONE && selectorless) {
    if (!spec.ipFamilies?.length) spec.ipFamilies = ['IPv4'];
    if (spec.ipFamilies.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') spec.ipFamilies = [...spec.ipFamilies, spec.ipFamilies[0] === 'IPv4' ? 'IPv6' : 'IPv4'];
    return;
  }
  if (spec.ipFamilyPolicy === 'RequireDualStack') errors.push({ type: 'Invalid', field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: 'this cluster is not configured for dual-stack services' });
  (spec.ipFamilies ?? []).forEach((f, i) => {
    if (f !== 'IPv4') errors.push({ type: 'Invalid', field: `spec.ipFamilies[${i}]`, value: f, detail: 'not configured on this cluster' });
  });
  if (errors.length) invalid(svc, errors);
  if (!spec.ipFamilies?.length) spec.ipFamilies = ['IPv4'];
}

function usedClusterIPs(store: Store, self: Service): Set<string> {
  const used = new Set<string>();
  for (const o of store.list(SERVICES)) {
    if (o.metadata.namespace === self.metadata.namespace && o.metadata.name === self.metadata.name) continue;
    for (const ip of ((o as Service).spec?.clusterIPs ?? [])) if (ip !== CLUSTER_IP_NONE) used.add(ip);
  }
  return used;
}

function allocateClusterIP(svc: Service, store: Store): void {
  const spec = svc.spec!;
  if (!needsClusterIP(spec) || isHeadless(spec)) return;
  const used = usedClusterIPs(store, svc);
  const wanted = spec.clusterIPs?.[0] ?? '';
  if (wanted === '') {
    // kube hands out addresses from above the range's static band (its first 256 addresses, kept for
    // Services that ask for one: ServiceIPStaticSubrange); here in order rather than at random.
    const first = ipv4ToNumber(RANGE.ip) + 256;
    const last = ipv4ToNumber(RANGE.ip) + 2 ** (32 - RANGE.prefix) - 2;
    for (let n = first; n <= last; n++) {
      const ip = numberToIPv4(n);
      if (!used.has(ip)) {
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
        return;
      }
    }
    throw new Error('failed to allocate a serviceIP: range is full');
  }
  const ip = parseIP(wanted)!;
  const inRange = cidrContains(RANGE, ip) && ipv4ToNumber(ip) !== ipv4ToNumber(RANGE.ip);
  const reason = !inRange ? `the provided IP (${wanted}) is not in the valid range. The range of valid IPs is ${SERVICE_CLUSTER_IP_RANGE}` : used.has(wanted) ? 'provided IP is already allocated' : undefined;
  if (reason) invalid(svc, [{ type: 'Invalid', field: 'spec.clusterIPs', value: spec.clusterIPs, shown: goStrings(spec.clusterIPs ?? []), detail: `failed to allocate IP ${wanted}: ${reason}` }]);
}

function usedNodePorts(store: Store, self: Service): Set<number> {
  const used = new Set<number>();
  for (const o of store.list(SERVICES)) {
    if (o.metadata.namespace === self.metadata.namespace && o.metadata.name === self.metadata.name) continue;
    const spec = (o as Service).spec;
    for (const p of spec?.ports ?? []) if (p.nodePort) used.add(p.nodePort);
    if (spec?.healthCheckNodePort) used.add(spec.healthCheckNodePort);
  }
  return used;
}

function allocateNodePorts(svc: Service, store: Store): void {
  const spec = svc.spec!;
  const wantsHealthCheck = needsHealthCheck(spec);
  const mayHave = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  if (!mayHave && !wantsHealthCheck) return;
  const used = usedNodePorts(store, svc);
  const errors: FieldError[] = [];
  const inRange = (n: number): boolean => n >= NODE_PORT_RANGE.base && n < NODE_PORT_RANGE.base + NODE_PORT_RANGE.size;
  const claim = (n: number, field: string): void => {
    const reason = !inRange(n) ? `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE.base}-${NODE_PORT_RANGE.base + NODE_PORT_RANGE.size - 1}` : used.has(n) ? 'provided port is already allocated' : undefined;
    if (reason) errors.push({ type: 'Invalid', field, value: n, detail: reason });
    used.add(n);
  };
  const next = (): number => {
    for (let n = NODE_PORT_RANGE.base; n < NODE_PORT_RANGE.base + NODE_PORT_RANGE.size; n++) if (!used.has(n)) return (used.add(n), n);
    throw new Error('failed to allocate a nodePort: range is full');
  };
  if (mayHave) {
    // initNodePorts: ports sharing a number (TCP and UDP of 53) share one node port; a LoadBalancer with
    // allocateLoadBalancerNodePorts=false only gets the node ports it asks for.
    const allocates = needsNodePorts(spec);
    const ports = spec.ports ?? [];
    const byPort = new Map<number, number>();
    ports.forEach((p, i) => {
      if (!p.nodePort && !allocates) return;
      const number = p.port ?? 0;
      const shared = byPort.get(number);
      const field = `spec.ports[${i}].nodePort`;
      if (shared === undefined) {
        const requested = ports.slice(i).find((q) => q.port === number && q.nodePort)?.nodePort;
        if (requested) claim(requested, field);
        p.nodePort = requested ?? next();
        byPort.set(number, p.nodePort);
      } else if (p.nodePort !== shared) {
        if (!p.nodePort) p.nodePort = shared;
        else claim(p.nodePort, field);
      }
    });
  }
  if (wantsHealthCheck) {
    if (spec.healthCheckNodePort) claim(spec.healthCheckNodePort, 'spec.healthCheckNodePort');
    else spec.healthCheckNodePort = next();
  }
  if (errors.length) invalid(svc, errors);
}

/** PrepareForUpdate's patchAllocatedValues and dropTypeDependentFields: what a write of the Service keeps and drops. */
function carryOver(svc: Service, old: Service): void {
  const spec = svc.spec!;
  const before = old.spec ?? {};
  if (needsClusterIP(before) && needsClusterIP(spec)) {
    if (!spec.clusterIP && before.clusterIP) spec.clusterIP = before.clusterIP;
    if (!spec.clusterIPs?.length && before.clusterIPs?.length) spec.clusterIPs = [...before.clusterIPs];
  }
  if (needsNodePorts(before) && needsNodePorts(spec)) {
    for (const p of spec.ports ?? []) {
      if (p.nodePort) continue;
      const was = (before.ports ?? []).find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (was?.nodePort) p.nodePort = was.nodePort;
    }
  }
  if (needsHealthCheck(before) && needsHealthCheck(spec) && !spec.healthCheckNodePort) spec.healthCheckNodePort = before.healthCheckNodePort;
  // A type change drops what the new type cannot have, when the user left it as it was.
  if (!needsClusterIP(spec) && jsonEqual(spec.clusterIPs, before.clusterIPs)) {
    delete spec.clusterIP;
    delete spec.clusterIPs;
    if (jsonEqual(spec.ipFamilies, before.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === before.ipFamilyPolicy) delete spec.ipFamilyPolicy;
  }
  if (!needsNodePorts(spec) && needsNodePorts(before)) {
    for (const p of spec.ports ?? []) {
      const was = (before.ports ?? []).find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (p.nodePort && was?.nodePort === p.nodePort) delete p.nodePort;
    }
  }
  if (!needsHealthCheck(spec) && spec.healthCheckNodePort === before.healthCheckNodePort) delete spec.healthCheckNodePort;
  if (spec.type !== 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === before.allocateLoadBalancerNodePorts) delete spec.allocateLoadBalancerNodePorts;
  if (spec.type !== 'LoadBalancer' && spec.loadBalancerClass === before.loadBalancerClass) delete spec.loadBalancerClass;
  const accessible = spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && (spec.externalIPs?.length ?? 0) > 0);
  if (!accessible && spec.externalTrafficPolicy === before.externalTrafficPolicy) delete spec.externalTrafficPolicy;
}

export const serviceAdmission: AdmissionHook = {
  gr: SERVICES,
  operations: ['CREATE', 'UPDATE'],
  admit(op, obj, old, store) {
    // status writes keep the spec: nothing to allocate or check
    if (op === 'UPDATE' && old && jsonEqual(old.spec, obj.spec)) return obj;
    const svc = structuredClone(obj) as Service;
    applyServiceDefaults(svc);
    const prev = op === 'UPDATE' ? (old as Service | undefined) : undefined;
    if (prev) carryOver(svc, prev);
    normalizeClusterIPs(svc, prev);
    initIPFamilies(svc, prev);
    allocateClusterIP(svc, store);
    allocateNodePorts(svc, store);
    invalid(svc, validateService(svc, prev));
    if (op === 'CREATE') svc.status = { loadBalancer: {} };
    return svc as KubeObject;
  },
};

/** No reconcile loop: kube's Service REST storage is admission-time work only. */
export function createServiceAllocator(): ControllerWithAdmission {
  return { name: 'service-allocator', admission: [serviceAdmission], start() {}, stop() {} };
}
