// The Service `expose` creates, by kubectl v1.32's rules (k8s.io/kubectl pkg/cmd/expose/expose.go:
// RunExpose + createService, parseLabels, makeProtocols/parseProtocols):
// - selector: --selector (equality only), else the object's (service-sources.ts);
// - ports: --port (comma-separated), else every port the object declares; several ports are named
//   port-1, port-2...; a port served over several protocols gives one entry per protocol, named
//   port-N-<protocol>; the protocol is --protocol, else the object's for that port, else TCP;
// - targetPort: --target-port (a number or a port name) for every port, else the port itself;
// - labels: --labels, else the object's; name: --name, else the object's cut to 63 characters;
// - type, externalIPs (one), loadBalancerIP (LoadBalancer only), sessionAffinity, clusterIP ("None": headless).
// Everything kubectl leaves to the API server is checked here too (rules/service.ts), so a Service the
// server would refuse is exit 2 before anything is sent. Pure.
import type { KubeObject } from '../types';
import type { ExposeSource } from './service-sources';
import { CLUSTER_IP_NONE, IP_MESSAGE, SERVICE_PROTOCOLS, SERVICE_TYPES, applyServiceDefaults, dns1035LabelMessages, labelValueMessages, normalizeClusterIPs, portNameMessages, qualifiedNameMessages, validateService, type Service, type ServicePort } from '../rules/service';
import { fieldErrorMessage } from '../rules/cloneset-webhook';
import { parseIP, specialIPProblem } from '../ip';

/** kubectl's DNS1035LabelMaxLength: a default name longer than this is cut. */
export const SERVICE_NAME_MAX = 63;

/** The flags of `expose` that shape the Service (strings as typed; undefined or "" = not given, as kubectl). */
export interface ExposeFlags {
  port?: string;
  targetPort?: string;
  protocol?: string;
  name?: string;
  type?: string;
  externalIP?: string;
  loadBalancerIP?: string;
  selector?: string;
  labels?: string;
  sessionAffinity?: string;
  clusterIP?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; message: string };
const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

/** kubectl's parseLabels ("k=v,k2=v2", equality only), plus the API's key and value rules. */
export function parseLabelSpec(spec: string, flag: string): Result<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const part of spec.split(',')) {
    const kv = part.split('=');
    if (kv.length !== 2) return fail(`invalid ${flag} "${spec}": unexpected label spec: ${part} (use key=value[,key=value...]; only equality)`);
    const [key, value] = kv as [string, string];
    if (key === '') return fail(`invalid ${flag} "${spec}": unexpected empty label key`);
    const keyProblem = qualifiedNameMessages(key)[0];
    const problem = keyProblem ?? labelValueMessages(value)[0];
    if (problem) return fail(`invalid ${flag} "${spec}": ${keyProblem ? `key "${key}"` : `value "${value}"`}: ${problem}`);
    out[key] = value;
  }
  return { ok: true, value: out };
}

/** The port numbers of --port ("80" or "80,443"): each 1-65535. */
export function parsePortList(text: string): Result<number[]> {
  const ports: number[] = [];
  for (const part of text.split(',')) {
    // strconv.Atoi's syntax: an optional sign and digits
    if (!/^[+-]?[0-9]+$/.test(part)) return fail(`invalid --port "${text}": "${part}" is not a port number (give one or more numbers, e.g. 80 or 80,443)`);
    const n = Number(part);
    if (n < 1 || n > 65535) return fail(`invalid --port "${text}": ${n} must be between 1 and 65535, inclusive`);
    ports.push(n);
  }
  return { ok: true, value: ports };
}

/** intstr.Parse: a number, else a port name (IANA_SVC_NAME), both checked as the API does. */
export function parseTargetPort(text: string): Result<number | string> {
  if (/^[+-]?[0-9]+$/.test(text)) {
    const n = Number(text);
    if (n < 1 || n > 65535) return fail(`invalid --target-port "${text}": must be between 1 and 65535, inclusive`);
    return { ok: true, value: n };
  }
  const problems = portNameMessages(text);
  if (problems.length) return fail(`invalid --target-port "${text}": a port name ${problems.join(', ')}`);
  return { ok: true, value: text };
}

/** Every flag that needs no object, checked before anything is read (exit 2). */
export function checkExposeFlags(flags: ExposeFlags): Result<void> {
  const given = (v: string | undefined): v is string => v !== undefined && v !== '';
  if (given(flags.port)) {
    const r = parsePortList(flags.port);
    if (!r.ok) return r;
  }
  if (given(flags.targetPort)) {
    const r = parseTargetPort(flags.targetPort);
    if (!r.ok) return r;
  }
  if (given(flags.protocol) && !(SERVICE_PROTOCOLS as readonly string[]).includes(flags.protocol)) {
    const hint = (SERVICE_PROTOCOLS as readonly string[]).includes(flags.protocol.toUpperCase()) ? ` (protocols are upper case: ${flags.protocol.toUpperCase()})` : '';
    return fail(`invalid --protocol "${flags.protocol}": supported values: "TCP", "UDP", "SCTP"${hint}`);
  }
  if (given(flags.type)) {
    if (flags.type === 'ExternalName') return fail('--type=ExternalName needs spec.externalName, which expose cannot set: create the Service with kubectl create service externalname');
    if (!(SERVICE_TYPES as readonly string[]).includes(flags.type)) return fail(`invalid --type "${flags.type}": supported values: "ClusterIP", "NodePort", "LoadBalancer"`);
  }
  if (given(flags.name)) {
    const problem = dns1035LabelMessages(flags.name)[0];
    if (problem) return fail(`invalid --name "${flags.name}": ${problem}`);
  }
  if (given(flags.selector)) {
    const r = parseLabelSpec(flags.selector, '--selector');
    if (!r.ok) return r;
  }
  if (given(flags.labels)) {
    const r = parseLabelSpec(flags.labels, '--labels');
    if (!r.ok) return r;
  }
  if (given(flags.sessionAffinity) && flags.sessionAffinity !== 'None' && flags.sessionAffinity !== 'ClientIP') {
    return fail(`unknown session affinity: ${flags.sessionAffinity} (legal values: None, ClientIP)`);
  }
  if (given(flags.clusterIP) && flags.clusterIP !== CLUSTER_IP_NONE && !parseIP(flags.clusterIP)) {
    return fail(`invalid --cluster-ip "${flags.clusterIP}": must be empty, 'None', or a valid IP address`);
  }
  if (given(flags.clusterIP) && flags.clusterIP === CLUSTER_IP_NONE && (flags.type === 'NodePort' || flags.type === 'LoadBalancer')) {
    return fail(`--cluster-ip=None (a headless Service) cannot be combined with --type=${flags.type}: the API refuses 'None' for ${flags.type} services`);
  }
  if (given(flags.externalIP)) {
    if (!parseIP(flags.externalIP)) return fail(`invalid --external-ip "${flags.externalIP}": ${IP_MESSAGE}`);
    const special = specialIPProblem(flags.externalIP);
    if (special) return fail(`invalid --external-ip "${flags.externalIP}": ${special}`);
  }
  if (given(flags.loadBalancerIP) && !parseIP(flags.loadBalancerIP)) {
    return fail(`invalid --load-balancer-ip "${flags.loadBalancerIP}": must be a valid IP address`);
  }
  return { ok: true, value: undefined };
}

/** What the exposed object contributes (kubectl's introspection). */
export interface ExposedObject {
  source: ExposeSource;
  object: KubeObject;
}

function serviceName(flags: ExposeFlags, object: KubeObject): string {
  if (flags.name) return flags.name;
  return (object.metadata.name ?? '').slice(0, SERVICE_NAME_MAX);
}

/**
 * kubectl's RunExpose introspection + createService for one object. The Service is as kubectl would
 * send it (no defaults); `problem` names what stops it (kubectl's wording where it has one).
 */
export function exposeService(flags: ExposeFlags, exposed: ExposedObject): Result<Service> {
  const { source, object } = exposed;
  let selector: Record<string, string>;
  if (flags.selector) {
    const r = parseLabelSpec(flags.selector, '--selector');
    if (!r.ok) return r;
    selector = r.value;
  } else {
    const s = source.selector(object);
    if (!s.ok) return fail(`couldn't retrieve selectors via --selector flag or introspection: ${s.reason}`);
    selector = s.labels;
  }
  if (Object.keys(selector).length === 0) return fail('selector must be specified (the object has an empty selector: give one with --selector)');
  for (const [k, v] of Object.entries(selector)) {
    const problem = qualifiedNameMessages(k)[0] ?? labelValueMessages(v)[0];
    if (problem) return fail(`the selector ${k}=${v} would be refused: ${problem}`);
  }
  const headless = flags.clusterIP === CLUSTER_IP_NONE;
  let ports: number[];
  if (flags.port) {
    const r = parsePortList(flags.port);
    if (!r.ok) return r;
    ports = r.value;
  } else {
    ports = source.ports(object);
    if (ports.length === 0 && !headless) return fail("couldn't find port via --port flag or introspection (its pod template declares no containerPorts: give the Service's port with --port)");
  }
  const protocols = source.protocols(object);
  let labels: Record<string, string> | undefined;
  if (flags.labels) {
    const r = parseLabelSpec(flags.labels, '--labels');
    if (!r.ok) return r;
    labels = r.value;
  } else if (object.metadata.labels && Object.keys(object.metadata.labels).length > 0) labels = { ...object.metadata.labels };
  const name = serviceName(flags, object);
  if (!name) return fail('name must be specified');

  const entries: ServicePort[] = [];
  ports.forEach((port, i) => {
    const portName = ports.length > 1 ? `port-${i + 1}` : undefined;
    let protocol = flags.protocol || undefined;
    if (!protocol && protocols.size > 0) {
      const known = protocols.get(port);
      if (known && known.length > 1) {
        for (const p of known) entries.push({ name: `port-${i + 1}-${p.toLowerCase()}`, protocol: p, port });
        return;
      }
      protocol = known?.[0];
    }
    entries.push({ ...(portName ? { name: portName } : {}), protocol: protocol ?? 'TCP', port });
  });
  let targetPort: number | string | undefined;
  if (flags.targetPort) {
    const r = parseTargetPort(flags.targetPort);
    if (!r.ok) return r;
    targetPort = r.value;
  }
  for (const e of entries) e.targetPort = targetPort ?? e.port;

  const spec: Service['spec'] = {};
  if (entries.length > 0) spec.ports = entries;
  spec.selector = selector;
  if (flags.clusterIP) spec.clusterIP = flags.clusterIP;
  if (flags.type) spec.type = flags.type;
  if (flags.externalIP) spec.externalIPs = [flags.externalIP];
  if (flags.sessionAffinity) spec.sessionAffinity = flags.sessionAffinity;
  if (flags.type === 'LoadBalancer' && flags.loadBalancerIP) spec.loadBalancerIP = flags.loadBalancerIP;
  return { ok: true, value: { apiVersion: 'v1', kind: 'Service', metadata: { name, ...(labels ? { labels } : {}) }, spec } };
}

/** The API server's verdict on a Service as sent (defaults, then validation): one line per problem, empty when fine. */
export function serviceProblems(svc: Service): string[] {
  const checked = applyServiceDefaults(structuredClone(svc));
  normalizeClusterIPs(checked);
  return validateService(checked).map((e) => `${e.field}: ${fieldErrorMessage(e)}`);
}

/** Strategic merge keys of a core/v1 Service (k8s.io/api struct tags), for --override-type=strategic. */
export function serviceListMerge(path: readonly string[]): { key: string } | 'set' | undefined {
  const p = path.join('.');
  if (p === 'spec.ports') return { key: 'port' };
  if (p === 'metadata.ownerReferences') return { key: 'uid' };
  if (p === 'metadata.finalizers') return 'set';
  if (p === 'status.conditions') return { key: 'type' };
  return undefined;
}

/** After --overrides: kubectl decodes the result into a typed Service, so unknown top-level fields are dropped. */
export function typedServiceFields(obj: Service): Service {
  const out: Service = { metadata: obj.metadata };
  for (const k of ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const) if (obj[k] !== undefined) (out as Record<string, unknown>)[k] = obj[k];
  return out;
}
