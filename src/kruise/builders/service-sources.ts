// What `expose` reads from each kind it takes (kubectl's polymorphichelpers: canbeexposed.go,
// mapbasedselectorforobject.go, portsforobject.go, multiprotocolsforobject.go; kruise-tools adds the
// CloneSet in pkg/internal/polymorphichelpers), one row per kind: the commands never branch on kind.
// - Native kinds exactly as kubectl v1.32 (Pod: its labels; Service: spec.selector and its ports;
//   ReplicationController: spec.selector; Deployment / ReplicaSet: spec.selector.matchLabels only).
// - Kruise workloads as kruise-tools' CloneSet row (matchLabels only, same messages), for every CloneSet
//   version, the Advanced StatefulSet and the UnitedDeployment (its selector; ports from its subset template).
// - Not exposed, as kubectl: DaemonSets (native and Advanced: kruise-tools refuses them too), native
//   StatefulSets, anything else ("cannot expose a Kind.group").
// One deliberate difference from kubectl: a port declared twice with one protocol (two containers
// on 80/TCP) is one port of the Service; kubectl names both "port-1-tcp" and the API refuses them.
import type { KubeObject } from '../types';
import type { LabelSelector } from '../selectors';
import { cloneSetAdapter, advancedStatefulSetAdapter, unitedDeploymentAdapter } from '../workloads';
import { at } from '../workloads/access';
import type { WorkloadAdapter } from '../workloads/types';

/** A map-based selector, or why there is none (kubectl's message). */
export type SelectorResult = { ok: true; labels: Record<string, string> } | { ok: false; reason: string };

export interface ExposeSource {
  group: string;
  kind: string;
  /** kubectl's MapBasedSelectorForObject. */
  selector(obj: KubeObject): SelectorResult;
  /** PortsForObject: the port numbers, each once, in order. */
  ports(obj: KubeObject): number[];
  /** MultiProtocolsForObject: the protocols of each port number (TCP when unset), each once. */
  protocols(obj: KubeObject): Map<number, string[]>;
}

interface PortDecl {
  port: number;
  protocol: string;
}

/** The declarations of a list of ports whose number is at `portField` (a port without a protocol is TCP). */
function portDecls(list: unknown, portField: string): PortDecl[] {
  const out: PortDecl[] = [];
  for (const p of Array.isArray(list) ? list : []) {
    const port = at(p, portField);
    if (typeof port !== 'number') continue;
    const protocol = at(p, 'protocol');
    out.push({ port, protocol: typeof protocol === 'string' && protocol !== '' ? protocol : 'TCP' });
  }
  return out;
}

/** The containers' ports of a pod spec (init containers are not served, as kubectl's getPorts). */
function podSpecPorts(spec: unknown): PortDecl[] {
  const containers = at(spec, 'containers');
  return (Array.isArray(containers) ? containers : []).flatMap((c) => portDecls(at(c, 'ports'), 'containerPort'));
}

const servicePorts = (obj: KubeObject): PortDecl[] => portDecls(at(obj, 'spec', 'ports'), 'port');

function uniquePorts(decls: PortDecl[]): number[] {
  return [...new Set(decls.map((d) => d.port))];
}

function protocolsOf(decls: PortDecl[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const d of decls) {
    const list = out.get(d.port) ?? [];
    if (!list.includes(d.protocol)) list.push(d.protocol);
    out.set(d.port, list);
  }
  return out;
}

/** Go's %+v of []metav1.LabelSelectorRequirement: `[{Key:tier Operator:In Values:[web]}]`. */
export function goRequirements(reqs: NonNullable<LabelSelector['matchExpressions']>): string {
  return `[${reqs.map((r) => `{Key:${r.key} Operator:${r.operator} Values:[${(r.values ?? []).join(' ')}]}`).join(' ')}]`;
}

/** The apps-style rule: matchLabels required, matchExpressions refused (checked in that order, as kubectl). */
function matchLabelsOnly(what: string, selector: (obj: KubeObject) => LabelSelector | undefined): ExposeSource['selector'] {
  return (obj) => {
    const sel = selector(obj);
    if (!sel || !sel.matchLabels || Object.keys(sel.matchLabels).length === 0) return { ok: false, reason: `invalid ${what}: no selectors, therefore cannot be exposed` };
    if (sel.matchExpressions && sel.matchExpressions.length > 0) return { ok: false, reason: `couldn't convert expressions - "${goRequirements(sel.matchExpressions)}" to map-based selector format` };
    return { ok: true, labels: { ...sel.matchLabels } };
  };
}

const templateSpec = (obj: KubeObject): unknown => at(obj, 'spec', 'template', 'spec');

function nativeWorkload(group: string, kind: string, what: string): ExposeSource {
  return {
    group,
    kind,
    selector: matchLabelsOnly(what, (o) => at(o, 'spec', 'selector') as LabelSelector | undefined),
    ports: (o) => uniquePorts(podSpecPorts(templateSpec(o))),
    protocols: (o) => protocolsOf(podSpecPorts(templateSpec(o))),
  };
}

function kruiseWorkload(adapter: WorkloadAdapter, kind: string, what: string): ExposeSource {
  const spec = (o: KubeObject): unknown => at(adapter.template(o), 'spec');
  return {
    group: adapter.group,
    kind,
    selector: matchLabelsOnly(what, (o) => adapter.selector(o)),
    ports: (o) => uniquePorts(podSpecPorts(spec(o))),
    protocols: (o) => protocolsOf(podSpecPorts(spec(o))),
  };
}

export const EXPOSE_SOURCES: readonly ExposeSource[] = [
  {
    group: '',
    kind: 'Pod',
    selector: (o) => (o.metadata.labels && Object.keys(o.metadata.labels).length > 0 ? { ok: true, labels: { ...o.metadata.labels } } : { ok: false, reason: 'the pod has no labels and cannot be exposed' }),
    ports: (o) => uniquePorts(podSpecPorts(o.spec)),
    protocols: (o) => protocolsOf(podSpecPorts(o.spec)),
  },
  {
    group: '',
    kind: 'Service',
    selector: (o) => {
      const sel = at(o, 'spec', 'selector');
      return sel === undefined || sel === null ? { ok: false, reason: 'the service has no pod selector set' } : { ok: true, labels: { ...(sel as Record<string, string>) } };
    },
    ports: (o) => uniquePorts(servicePorts(o)),
    protocols: (o) => protocolsOf(servicePorts(o)),
  },
  {
    group: '',
    kind: 'ReplicationController',
    selector: (o) => ({ ok: true, labels: { ...((at(o, 'spec', 'selector') as Record<string, string> | undefined) ?? {}) } }),
    ports: (o) => uniquePorts(podSpecPorts(templateSpec(o))),
    protocols: (o) => protocolsOf(podSpecPorts(templateSpec(o))),
  },
  nativeWorkload('apps', 'Deployment', 'deployment'),
  nativeWorkload('apps', 'ReplicaSet', 'replicaset'),
  kruiseWorkload(cloneSetAdapter, 'CloneSet', 'CloneSet'),
  kruiseWorkload(advancedStatefulSetAdapter, 'StatefulSet', 'Advanced StatefulSet'),
  kruiseWorkload(unitedDeploymentAdapter, 'UnitedDeployment', 'UnitedDeployment'),
];

export function exposeSourceFor(group: string, kind: string): ExposeSource | undefined {
  return EXPOSE_SOURCES.find((s) => s.group === group && s.kind === kind);
}

/** kubectl's canBeExposed refusal ("cannot expose a DaemonSet.apps"), or undefined for a kind it takes. */
export function exposeRefusal(group: string, kind: string): string | undefined {
  return exposeSourceFor(group, kind) ? undefined : `cannot expose a ${kind}${group ? `.${group}` : ''}`;
}
