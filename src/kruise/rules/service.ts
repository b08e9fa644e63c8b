// The core/v1 Service rules of kube-apiserver v1.32 (k8s.io/kubernetes), shared by `expose` (which checks
// the Service it would send, exit 2 instead of a 422) and the sandbox's Service admission:
// - `applyServiceDefaults`: pkg/apis/core/v1/defaults.go SetDefaults_Service.
// - `normalizeClusterIPs`: pkg/registry/core/service/strategy.go NormalizeClusterIPs (clusterIP <-> clusterIPs).
// - `validateService(svc, old?)`: pkg/apis/core/validation/validation.go ValidateService (+ ValidateServiceUpdate's
//   clusterIP/ipFamily/healthCheckNodePort immutability), worded like apimachinery's field errors.
// Allocation (cluster IPs, node ports) needs the cluster's state: the sandbox does it (controllers/service.ts).
import type { KubeObject } from '../types';
import { parseCIDR, parseIP, specialIPProblem } from '../ip';
import type { FieldError } from './cloneset-webhook';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
  [key: string]: unknown;
}

export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string> | null;
  clusterIP?: string;
  clusterIPs?: string[];
  type?: string;
  externalIPs?: string[];
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } } | null;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  loadBalancerClass?: string;
  externalName?: string;
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  allocateLoadBalancerNodePorts?: boolean;
  internalTrafficPolicy?: string;
  trafficDistribution?: string;
  [key: string]: unknown;
}

export interface Service extends KubeObject {
  spec?: ServiceSpec;
}

export const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] as const;
export const SERVICE_PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;
export const SESSION_AFFINITIES = ['ClientIP', 'None'] as const;
export const CLUSTER_IP_NONE = 'None';
const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
const LB_SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

// ───────────── apimachinery's validation messages (pkg/util/validation) ─────────────

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}
const maxLen = (n: number): string => `must be no more than ${n} characters`;

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** IsDNS1035Label: the messages for a Service name. */
export function dns1035LabelMessages(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!DNS1035.test(value)) {
    out.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", '[a-z]([-a-z0-9]*[a-z0-9])?', 'my-name', 'abc-123'));
  }
  return out;
}

export function dns1123LabelMessages(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!DNS1123_LABEL.test(value)) {
    out.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", '[a-z0-9]([-a-z0-9]*[a-z0-9])?', 'my-name', '123-abc'));
  }
  return out;
}

function dns1123SubdomainMessages(value: string): string[] {
  const out: string[] = [];
  if (value.length > 253) out.push(maxLen(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    out.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*',
        'example.com',
      ),
    );
  }
  return out;
}

const QNAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';

/** IsQualifiedName: label and annotation keys. */
export function qualifiedNameMessages(value: string): string[] {
  const out: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    name = parts[1]!;
    if (parts[0] === '') out.push('prefix part must be non-empty');
    else for (const m of dns1123SubdomainMessages(parts[0]!)) out.push(`prefix part ${m}`);
  } else {
    return [`a qualified name ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name === '') out.push('name part must be non-empty');
  else if (name.length > 63) out.push(`name part ${maxLen(63)}`);
  if (!QUALIFIED_NAME.test(name)) out.push(`name part ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return out;
}

/** IsValidLabelValue. */
export function labelValueMessages(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push(maxLen(63));
  if (!LABEL_VALUE.test(value)) {
    out.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?', 'MyValue', 'my_value', '12345'));
  }
  return out;
}

/** IsValidPortNum. */
export function portNumberProblem(port: unknown): string | undefined {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? undefined : 'must be between 1 and 65535, inclusive';
}

/** IsValidPortName (IANA_SVC_NAME): a named target port. */
export function portNameMessages(port: string): string[] {
  const out: string[] = [];
  if (port.length > 15) out.push(maxLen(15));
  if (!/^[-a-z0-9]+$/.test(port)) out.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  else if (!/[a-z]/.test(port)) out.push('must contain at least one letter (a-z)');
  if (port.includes('--')) out.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) out.push('must not begin or end with a hyphen');
  return out;
}

export const IP_MESSAGE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const quotedList = (values: readonly string[]): string => values.map((v) => JSON.stringify(v)).join(', ');
const supported = (values: readonly string[]): string => `supported values: ${quotedList(values)}`;
/** Go's %#v of a []string. */
export const goStrings = (values: readonly unknown[]): string => `[]string{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;

function goServicePort(p: { protocol?: string; port?: number }): string {
  return `core.ServicePort{Name:"", Protocol:${JSON.stringify(p.protocol ?? '')}, AppProtocol:(*string)(nil), Port:${p.port ?? 0}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
}

// ───────────── defaults ─────────────

/** ExternallyAccessible (pkg/api/service/util.go): LoadBalancer, NodePort, or ClusterIP with external IPs. */
export function externallyAccessible(spec: ServiceSpec): boolean {
  return spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && (spec.externalIPs?.length ?? 0) > 0);
}

/** NeedsHealthCheck: a LoadBalancer with externalTrafficPolicy Local. */
export function needsHealthCheck(spec: ServiceSpec): boolean {
  return spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** SetDefaults_Service, in place (the object as decoded, before the strategy and validation). */
export function applyServiceDefaults(svc: Service): Service {
  const spec = (svc.spec ??= {});
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && typeof spec.sessionAffinityConfig?.clientIP?.timeoutSeconds !== 'number') {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of spec.ports ?? []) {
    if (!p || typeof p !== 'object') continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (externallyAccessible(spec) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (spec.internalTrafficPolicy === undefined && (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
  return svc;
}

/**
 * NormalizeClusterIPs (create, or update with the old object): a clusterIP the user set or changed
 * becomes clusterIPs[0]; clusterIPs given alone fill clusterIP.
 */
export function normalizeClusterIPs(svc: Service, old?: Service): void {
  const spec = (svc.spec ??= {});
  const oldSpec = old?.spec;
  if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
  else if (!spec.clusterIP && spec.clusterIPs?.length && spec.clusterIPs[0]) spec.clusterIP = spec.clusterIPs[0];
  else if (oldSpec && oldSpec.clusterIP !== spec.clusterIP && spec.clusterIPs?.length && oldSpec.clusterIPs?.[0] === spec.clusterIPs[0]) {
    // clusterIP changed, clusterIPs not: the user edited clusterIP (kubectl edit), so it wins
    spec.clusterIPs = spec.clusterIP ? [spec.clusterIP, ...spec.clusterIPs.slice(1)] : [];
  }
  if (spec.clusterIPs && spec.clusterIPs.length === 0) delete spec.clusterIPs;
}

export function isHeadless(spec: ServiceSpec): boolean {
  return spec.clusterIPs?.length === 1 && spec.clusterIPs[0] === CLUSTER_IP_NONE;
}

// ───────────── validation ─────────────

function validateLabelMap(errors: FieldError[], field: string, labels: unknown): void {
  if (labels === undefined || labels === null) return;
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    for (const m of qualifiedNameMessages(k)) errors.push({ type: 'Invalid', field, value: k, detail: m });
    for (const m of labelValueMessages(String(v))) errors.push({ type: 'Invalid', field, value: String(v), detail: m });
  }
}

function validatePort(errors: FieldError[], p: ServicePort, index: number, requireName: boolean, names: Set<string>): void {
  const path = `spec.ports[${index}]`;
  if (requireName && !p.name) errors.push({ type: 'Required', field: `${path}.name`, detail: '' });
  else if (p.name) {
    for (const m of dns1123LabelMessages(p.name)) errors.push({ type: 'Invalid', field: `${path}.name`, value: p.name, detail: m });
    if (names.has(p.name)) errors.push({ type: 'Duplicate', field: `${path}.name`, value: p.name, detail: '' });
    else names.add(p.name);
  }
  const portProblem = portNumberProblem(p.port);
  if (portProblem) errors.push({ type: 'Invalid', field: `${path}.port`, value: p.port ?? 0, detail: portProblem });
  if (!p.protocol) errors.push({ type: 'Required', field: `${path}.protocol`, detail: '' });
  else if (!(SERVICE_PROTOCOLS as readonly string[]).includes(p.protocol)) errors.push({ type: 'NotSupported', field: `${path}.protocol`, value: p.protocol, detail: supported(SERVICE_PROTOCOLS) });
  const target = p.targetPort ?? 0;
  if (typeof target === 'number') {
    const problem = portNumberProblem(target);
    if (problem) errors.push({ type: 'Invalid', field: `${path}.targetPort`, value: target, detail: problem });
  } else {
    for (const m of portNameMessages(target)) errors.push({ type: 'Invalid', field: `${path}.targetPort`, value: target, detail: m });
  }
  if (p.appProtocol !== undefined) for (const m of qualifiedNameMessages(p.appProtocol)) errors.push({ type: 'Invalid', field: `${path}.appProtocol`, value: p.appProtocol, detail: m });
}

/** ValidateServiceClusterIPsRelatedFields. */
function validateClusterIPs(errors: FieldError[], spec: ServiceSpec): void {
  if (spec.type === 'ExternalName') return;
  const ips = spec.clusterIPs ?? [];
  if (spec.clusterIP) {
    if (ips.length === 0) errors.push({ type: 'Required', field: 'spec.clusterIPs', detail: '' });
    else if (ips[0] !== spec.clusterIP) errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, shown: goStrings(ips), detail: 'first value must match `clusterIP`' });
  } else if (ips.length > 0) {
    errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, shown: goStrings(ips), detail: 'must be empty when `clusterIP` is not specified' });
  }
  const seen = new Set<string>();
  (spec.ipFamilies ?? []).forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errors.push({ type: 'NotSupported', field: `spec.ipFamilies[${i}]`, value: f, detail: supported(['IPv4', 'IPv6']) });
    if (seen.has(f)) errors.push({ type: 'Duplicate', field: `spec.ipFamilies[${i}]`, value: f, detail: '' });
    seen.add(f);
  });
  const policies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
  if (spec.ipFamilyPolicy !== undefined && !policies.includes(spec.ipFamilyPolicy)) errors.push({ type: 'NotSupported', field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: supported(policies) });
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (ips.length > 1) {
        invalidIPs = true;
        errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, shown: goStrings(ips), detail: "'None' must be the first and only value" });
      }
      return;
    }
    if (!parseIP(ip)) {
      invalidIPs = true;
      errors.push({ type: 'Invalid', field: `spec.clusterIPs[${i}]`, value: ip, detail: IP_MESSAGE });
    }
  });
  if (ips.length > 2) errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, shown: goStrings(ips), detail: 'may only hold up to 2 values' });
  if (invalidIPs) return;
  if (ips.length > 1) {
    // netutils.IsDualStackIPStrings: at least one address of each family
    const families = new Set(ips.map((ip) => parseIP(ip)!.family));
    if (families.size < 2) errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, shown: goStrings(ips), detail: 'may specify no more than one IP for each IP family' });
  }
  if (!isHeadless(spec) && ips.length > 0 && (spec.ipFamilies?.length ?? 0) > 0) {
    ips.forEach((ip, i) => {
      const want = spec.ipFamilies?.[i];
      if (want === undefined) return;
      const family = parseIP(ip)!.family;
      if (want === 'IPv4' && family === 'IPv6') errors.push({ type: 'Invalid', field: `spec.clusterIPs[${i}]`, value: ip, detail: `expected an IPv4 value as indicated by \`ipFamilies[${i}]\`` });
      if (want === 'IPv6' && family !== 'IPv6') errors.push({ type: 'Invalid', field: `spec.clusterIPs[${i}]`, value: ip, detail: `expected an IPv6 value as indicated by \`ipFamilies[${i}]\`` });
    });
  }
}

/** ValidateService (create), plus ValidateServiceUpdate's immutability checks when `old` is given. */
export function validateService(svc: Service, old?: Service): FieldError[] {
  const errors: FieldError[] = [];
  const name = svc.metadata.name ?? '';
  if (!name && !svc.metadata.generateName) errors.push({ type: 'Required', field: 'metadata.name', detail: 'name or generateName is required' });
  else if (name) for (const m of dns1035LabelMessages(name)) errors.push({ type: 'Invalid', field: 'metadata.name', value: name, detail: m });
  validateLabelMap(errors, 'metadata.labels', svc.metadata.labels);
  for (const k of Object.keys(svc.metadata.annotations ?? {})) {
    for (const m of qualifiedNameMessages(k.toLowerCase())) errors.push({ type: 'Invalid', field: 'metadata.annotations', value: k, detail: m });
  }
  const spec: ServiceSpec = svc.spec ?? {};
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  const headless = isHeadless(spec);
  if (ports.length === 0 && !headless && spec.type !== 'ExternalName') errors.push({ type: 'Required', field: 'spec.ports', detail: '' });
  if ((spec.type === 'LoadBalancer' || spec.type === 'NodePort') && headless) {
    errors.push({ type: 'Invalid', field: 'spec.clusterIPs[0]', value: CLUSTER_IP_NONE, detail: `may not be set to 'None' for ${spec.type} services` });
  }
  if (spec.type === 'ExternalName') {
    if ((spec.clusterIPs?.length ?? 0) > 0) errors.push({ type: 'Forbidden', field: 'spec.clusterIPs', detail: 'may not be set for ExternalName services' });
    if ((spec.ipFamilies?.length ?? 0) > 0) errors.push({ type: 'Forbidden', field: 'spec.ipFamilies', detail: 'may not be set for ExternalName services' });
    if (spec.ipFamilyPolicy !== undefined) errors.push({ type: 'Forbidden', field: 'spec.ipFamilyPolicy', detail: 'may not be set for ExternalName services' });
    const cname = (spec.externalName ?? '').replace(/\.$/, '');
    if (cname) for (const m of dns1123SubdomainMessages(cname)) errors.push({ type: 'Invalid', field: 'spec.externalName', value: cname, detail: m });
    else errors.push({ type: 'Required', field: 'spec.externalName', detail: '' });
  }
  const names = new Set<string>();
  ports.forEach((p, i) => validatePort(errors, p ?? {}, i, ports.length > 1, names));
  if (spec.selector !== undefined && spec.selector !== null) validateLabelMap(errors, 'spec.selector', spec.selector);

  if (!spec.sessionAffinity) errors.push({ type: 'Required', field: 'spec.sessionAffinity', detail: '' });
  else if (!(SESSION_AFFINITIES as readonly string[]).includes(spec.sessionAffinity)) errors.push({ type: 'NotSupported', field: 'spec.sessionAffinity', value: spec.sessionAffinity, detail: supported(SESSION_AFFINITIES) });
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = spec.sessionAffinityConfig;
    const when = 'when session affinity type is ClientIP';
    if (!cfg) errors.push({ type: 'Required', field: 'spec.sessionAffinityConfig', detail: when });
    else if (!cfg.clientIP) errors.push({ type: 'Required', field: 'spec.sessionAffinityConfig.clientIP', detail: when });
    else if (cfg.clientIP.timeoutSeconds === undefined) errors.push({ type: 'Required', field: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', detail: when });
    else if (!(cfg.clientIP.timeoutSeconds > 0 && cfg.clientIP.timeoutSeconds <= MAX_CLIENT_IP_AFFINITY_SECONDS)) {
      errors.push({ type: 'Invalid', field: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', value: cfg.clientIP.timeoutSeconds, detail: `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}` });
    }
  } else if (spec.sessionAffinity === 'None' && spec.sessionAffinityConfig) {
    errors.push({ type: 'Forbidden', field: 'spec.sessionAffinityConfig', detail: 'must not be set when session affinity is None' });
  }

  validateClusterIPs(errors, spec);
  (spec.externalIPs ?? []).forEach((ip, i) => {
    const field = `spec.externalIPs[${i}]`;
    if (!parseIP(ip)) errors.push({ type: 'Invalid', field, value: ip, detail: IP_MESSAGE });
    else {
      const problem = specialIPProblem(ip);
      if (problem) errors.push({ type: 'Invalid', field, value: ip, detail: problem });
    }
  });

  if (!spec.type) errors.push({ type: 'Required', field: 'spec.type', detail: '' });
  else if (!(SERVICE_TYPES as readonly string[]).includes(spec.type)) errors.push({ type: 'NotSupported', field: 'spec.type', value: spec.type, detail: supported(SERVICE_TYPES) });
  if (spec.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p?.nodePort) errors.push({ type: 'Forbidden', field: `spec.ports[${i}].nodePort`, detail: "may not be used when `type` is 'ClusterIP'" });
    });
  }
  const nodePorts = new Set<string>();
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    if (p?.nodePort) {
      const key = `${p.protocol}/${p.nodePort}`;
      if (nodePorts.has(key)) errors.push({ type: 'Duplicate', field: `spec.ports[${i}].nodePort`, value: p.nodePort, detail: '' });
      nodePorts.add(key);
    }
    const key = `${p?.protocol}/${p?.port}`;
    if (portKeys.has(key)) errors.push({ type: 'Duplicate', field: `spec.ports[${i}]`, value: key, shown: goServicePort(p ?? {}), detail: '' });
    portKeys.add(key);
  });

  const ranges = spec.loadBalancerSourceRanges ?? [];
  const annotation = svc.metadata.annotations?.[LB_SOURCE_RANGES_ANNOTATION];
  if (ranges.length > 0 || annotation !== undefined) {
    const field = ranges.length > 0 ? 'spec.LoadBalancerSourceRanges' : `metadata.annotations[${LB_SOURCE_RANGES_ANNOTATION}]`;
    if (spec.type !== 'LoadBalancer') errors.push({ type: 'Forbidden', field, detail: "may only be used when `type` is 'LoadBalancer'" });
    const values = ranges.length > 0 ? ranges : annotation!.trim() === '' ? [] : annotation!.split(',');
    values.forEach((v, i) => {
      const value = v.trim();
      if (!parseCIDR(value)) errors.push({ type: 'Invalid', field: ranges.length > 0 ? `${field}[${i}]` : field, value, detail: 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' });
    });
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.type !== 'LoadBalancer') errors.push({ type: 'Forbidden', field: 'spec.allocateLoadBalancerNodePorts', detail: "may only be used when `type` is 'LoadBalancer'" });
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) errors.push({ type: 'Required', field: 'allocateLoadBalancerNodePorts', detail: '' });
  if (spec.loadBalancerClass !== undefined) {
    if (spec.type !== 'LoadBalancer') errors.push({ type: 'Forbidden', field: 'spec.loadBalancerClass', detail: 'may only be used when service type is LoadBalancer' });
    else for (const m of qualifiedNameMessages(spec.loadBalancerClass)) errors.push({ type: 'Invalid', field: 'spec.loadBalancerClass', value: spec.loadBalancerClass, detail: m });
  }

  // validateServiceExternalTrafficPolicy
  if (!externallyAccessible(spec)) {
    if (spec.externalTrafficPolicy) errors.push({ type: 'Invalid', field: 'spec.externalTrafficPolicy', value: spec.externalTrafficPolicy, detail: 'may only be set for externally-accessible services' });
  } else if (!spec.externalTrafficPolicy) errors.push({ type: 'Required', field: 'spec.externalTrafficPolicy', detail: '' });
  else if (spec.externalTrafficPolicy !== 'Cluster' && spec.externalTrafficPolicy !== 'Local') errors.push({ type: 'NotSupported', field: 'spec.externalTrafficPolicy', value: spec.externalTrafficPolicy, detail: supported(['Cluster', 'Local']) });
  const hc = spec.healthCheckNodePort ?? 0;
  if (!needsHealthCheck(spec)) {
    if (hc !== 0) errors.push({ type: 'Invalid', field: 'spec.healthCheckNodePort', value: hc, detail: "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'" });
  } else if (hc === 0) errors.push({ type: 'Required', field: 'spec.healthCheckNodePort', detail: '' });
  else if (portNumberProblem(hc)) errors.push({ type: 'Invalid', field: 'spec.healthCheckNodePort', value: hc, detail: portNumberProblem(hc)! });

  // validateServiceInternalTrafficFieldsValue
  if (spec.internalTrafficPolicy === undefined) {
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP') errors.push({ type: 'Required', field: 'spec.internalTrafficPolicy', detail: '' });
  } else if (spec.internalTrafficPolicy !== 'Cluster' && spec.internalTrafficPolicy !== 'Local') {
    errors.push({ type: 'NotSupported', field: 'spec.internalTrafficPolicy', value: spec.internalTrafficPolicy, detail: supported(['Cluster', 'Local']) });
  }
  if (spec.trafficDistribution !== undefined && spec.trafficDistribution !== 'PreferClose') {
    errors.push({ type: 'NotSupported', field: 'spec.trafficDistribution', value: spec.trafficDistribution, detail: supported(['PreferClose']) });
  }
  if (old) errors.push(...updateErrors(svc, old));
  return errors;
}

/** validateUpgradeDowngradeClusterIPs / IPFamilies and validateServiceExternalTrafficFieldsUpdate. */
function updateErrors(svc: Service, old: Service): FieldError[] {
  const errors: FieldError[] = [];
  const spec = svc.spec ?? {};
  const oldSpec = old.spec ?? {};
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && !(isHeadless(spec) && isHeadless(oldSpec))) {
    const now = spec.clusterIPs ?? [];
    const before = oldSpec.clusterIPs ?? [];
    const changed = { type: 'Invalid' as const, field: 'spec.clusterIPs[0]', value: now, shown: goStrings(now), detail: 'may not change once set' };
    if (now.length === before.length) {
      before.forEach((ip, i) => {
        if (ip !== now[i]) errors.push({ ...changed, field: `spec.clusterIPs[${i}]` });
      });
    } else if (before.length > now.length) {
      if (now.length === 0) errors.push({ ...changed, detail: 'primary clusterIP can not be unset' });
      else if (now[0] !== before[0]) errors.push(changed);
    } else if (before.length > 0 && now[0] !== before[0]) errors.push(changed);
  }
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && isHeadless(spec) === isHeadless(oldSpec) && !isHeadless(spec)) {
    const now = spec.ipFamilies ?? [];
    const before = oldSpec.ipFamilies ?? [];
    if (now.length === before.length && before.some((f, i) => f !== now[i])) {
      errors.push({ type: 'Invalid', field: 'spec.ipFamilies[0]', value: now, shown: goStrings(now), detail: 'may not change once set' });
    } else if (now.length > 0 && before.length > 0 && now[0] !== before[0]) {
      errors.push({ type: 'Invalid', field: 'spec.ipFamilies[0]', value: now, shown: goStrings(now), detail: 'may not change once set' });
    }
  }
  if (needsHealthCheck(oldSpec) && needsHealthCheck(spec) && spec.healthCheckNodePort !== oldSpec.healthCheckNodePort) {
    errors.push({ type: 'Forbidden', field: 'spec.healthCheckNodePort', detail: 'field is immutable' });
  }
  return errors;
}
