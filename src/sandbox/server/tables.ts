// Server-side printing (meta.k8s.io/v1 Table): CRD additionalPrinterColumns, and
// kubectl's own columns for the built-in kinds, so `kubectl get` looks like a real cluster.
import { apiGroupOf } from '../../kruise/api-version';
import { eventsV1ToCoreEvent } from './event-versions';
import type { KubeObject } from '../../kruise/types';
import { jsonPathValues } from './jsonpath';
import type { PrinterColumn, ResourceType, ServedVersion } from './resource-types';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

interface Printer {
  columns: ColumnDefinition[];
  cells(o: KubeObject, now: number): unknown[];
}

const col = (name: string, type = 'string', priority = 0, format = ''): ColumnDefinition => ({ name, type, format, description: name, priority });
const NAME = col('Name', 'string', 0, 'name');
const AGE = col('Age', 'string');

/** kube's duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.floor(hours / 24) % 365;
    return d === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(o: KubeObject, now: number): string {
  const t = o.metadata.creationTimestamp;
  return t ? humanDuration(now - Date.parse(t)) : '<unknown>';
}

type Any = Record<string, any>;
const spec = (o: KubeObject): Any => (o.spec as Any) ?? {};
const status = (o: KubeObject): Any => (o.status as Any) ?? {};
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

function templateContainers(o: KubeObject): Any[] {
  return (spec(o).template?.spec?.containers as Any[]) ?? [];
}
const containerNames = (o: KubeObject): string => templateContainers(o).map((c) => c.name).join(',');
const containerImages = (o: KubeObject): string => templateContainers(o).map((c) => c.image).join(',');

function selectorString(sel: Any | undefined): string {
  if (!sel) return '<none>';
  const parts: string[] = Object.entries((sel.matchLabels as Record<string, string>) ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of (sel.matchExpressions as Any[]) ?? []) {
    const op = String(e.operator);
    if (op === 'In' || op === 'NotIn') parts.push(`${e.key} ${op.toLowerCase()} (${(e.values ?? []).join(',')})`);
    else if (op === 'Exists') parts.push(e.key);
    else if (op === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.length ? parts.join(',') : '<none>';
}

/** kubectl's printPod status logic, condensed. */
export function podStatusReason(o: KubeObject): { reason: string; ready: number; total: number; restarts: number } {
  const st = status(o);
  const containers = (spec(o).containers as Any[]) ?? [];
  let reason: string = st.reason ?? st.phase ?? 'Pending';
  let restarts = 0;
  let ready = 0;
  let initializing = false;
  const initStatuses = (st.initContainerStatuses as Any[]) ?? [];
  initStatuses.forEach((c, i) => {
    restarts += num(c.restartCount);
    if (c.state?.terminated && c.state.terminated.exitCode === 0) return;
    if (initializing) return;
    if (c.state?.terminated) reason = c.state.terminated.reason ? `Init:${c.state.terminated.reason}` : `Init:ExitCode:${c.state.terminated.exitCode}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${((spec(o).initContainers as Any[]) ?? []).length}`;
    initializing = true;
  });
  if (!initializing) {
    let hasRunning = false;
    const statuses = [...((st.containerStatuses as Any[]) ?? [])].reverse();
    for (const c of statuses) {
      restarts += num(c.restartCount);
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (c.state?.terminated?.reason) reason = c.state.terminated.reason;
      else if (c.state?.terminated) reason = `ExitCode:${c.state.terminated.exitCode}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = ((st.conditions as Any[]) ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }
  if (o.metadata.deletionTimestamp) reason = st.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return { reason, ready, total: containers.length, restarts };
}

const BUILTIN_PRINTERS: Record<string, Printer> = {
  '/pods': {
    columns: [NAME, col('Ready'), col('Status'), col('Restarts', 'string'), AGE, col('IP', 'string', 1), col('Node', 'string', 1), col('Nominated Node', 'string', 1), col('Readiness Gates', 'string', 1)],
    cells(o, now) {
      const s = podStatusReason(o);
      const gates = (spec(o).readinessGates as Any[]) ?? [];
      const conds = (status(o).conditions as Any[]) ?? [];
      const passed = gates.filter((g) => conds.some((c) => c.type === g.conditionType && c.status === 'True')).length;
      return [o.metadata.name, `${s.ready}/${s.total}`, s.reason, String(s.restarts), age(o, now), status(o).podIP ?? '<none>', spec(o).nodeName ?? '<none>', status(o).nominatedNodeName ?? '<none>', gates.length ? `${passed}/${gates.length}` : '<none>'];
    },
  },
  'apps/deployments': {
    columns: [NAME, col('Ready'), col('Up-to-date', 'integer'), col('Available', 'integer'), AGE, col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)],
    cells: (o, now) => [o.metadata.name, `${num(status(o).readyReplicas)}/${spec(o).replicas ?? 1}`, num(status(o).updatedReplicas), num(status(o).availableReplicas), age(o, now), containerNames(o), containerImages(o), selectorString(spec(o).selector)],
  },
  'apps/replicasets': {
    columns: [NAME, col('Desired', 'integer'), col('Current', 'integer'), col('Ready', 'integer'), AGE, col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)],
    cells: (o, now) => [o.metadata.name, spec(o).replicas ?? 1, num(status(o).replicas), num(status(o).readyReplicas), age(o, now), containerNames(o), containerImages(o), selectorString(spec(o).selector)],
  },
  'apps/statefulsets': {
    columns: [NAME, col('Ready'), AGE, col('Containers', 'string', 1), col('Images', 'string', 1)],
    cells: (o, now) => [o.metadata.name, `${num(status(o).readyReplicas)}/${spec(o).replicas ?? 1}`, age(o, now), containerNames(o), containerImages(o)],
  },
  'apps/daemonsets': {
    columns: [NAME, col('Desired', 'integer'), col('Current', 'integer'), col('Ready', 'integer'), col('Up-to-date', 'integer'), col('Available', 'integer'), col('Node Selector'), AGE, col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)],
    cells(o, now) {
      const st = status(o);
      const ns = spec(o).template?.spec?.nodeSelector as Record<string, string> | undefined;
      const nodeSel = ns && Object.keys(ns).length ? Object.entries(ns).map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
      return [o.metadata.name, num(st.desiredNumberScheduled), num(st.currentNumberScheduled), num(st.numberReady), num(st.updatedNumberScheduled), num(st.numberAvailable), nodeSel, age(o, now), containerNames(o), containerImages(o), selectorString(spec(o).selector)];
    },
  },
  'apps/controllerrevisions': {
    columns: [NAME, col('Controller'), col('Revision', 'integer'), AGE],
    cells(o, now) {
      const owner = o.metadata.ownerReferences?.find((r) => r.controller);
      let controller = '<none>';
      if (owner) {
        const group = apiGroupOf(owner.apiVersion);
        controller = `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
      }
      return [o.metadata.name, controller, num((o as Any).revision), age(o, now)];
    },
  },
  '/nodes': {
    columns: [NAME, col('Status'), col('Roles'), AGE, col('Version'), col('Internal-IP', 'string', 1), col('External-IP', 'string', 1), col('OS-Image', 'string', 1), col('Kernel-Version', 'string', 1), col('Container-Runtime', 'string', 1)],
    cells(o, now) {
      const st = status(o);
      const readyCond = ((st.conditions as Any[]) ?? []).find((c) => c.type === 'Ready');
      let s = readyCond?.status === 'True' ? 'Ready' : readyCond ? 'NotReady' : 'Unknown';
      if (spec(o).unschedulable) s += ',SchedulingDisabled';
      const roles = Object.keys(o.metadata.labels ?? {})
        .filter((k) => k.startsWith('node-role.kubernetes.io/'))
        .map((k) => k.slice('node-role.kubernetes.io/'.length));
      const addr = (t: string): string => ((st.addresses as Any[]) ?? []).find((a) => a.type === t)?.address ?? '<none>';
      const info = (st.nodeInfo as Any) ?? {};
      return [o.metadata.name, s, roles.length ? roles.join(',') : '<none>', age(o, now), info.kubeletVersion ?? '', addr('InternalIP'), addr('ExternalIP'), info.osImage ?? '<unknown>', info.kernelVersion ?? '<unknown>', info.containerRuntimeVersion ?? '<unknown>'];
    },
  },
  '/namespaces': {
    columns: [NAME, col('Status'), AGE],
    cells: (o, now) => [o.metadata.name, status(o).phase ?? 'Active', age(o, now)],
  },
  '/services': {
    columns: [NAME, col('Type'), col('Cluster-IP'), col('External-IP'), col('Port(s)'), AGE, col('Selector', 'string', 1)],
    cells(o, now) {
      const sp = spec(o);
      const ports = ((sp.ports as Any[]) ?? []).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
      const sel = sp.selector ? Object.entries(sp.selector as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
      // kubectl's getServiceExternalIP
      const external = (sp.externalIPs as string[] | undefined) ?? [];
      const lb = (((status(o).loadBalancer as Any | undefined)?.ingress as Any[] | undefined) ?? []).map((i) => i.ip ?? i.hostname).filter(Boolean);
      const externalIP =
        sp.type === 'ExternalName' ? (sp.externalName ?? '') : sp.type === 'LoadBalancer' ? [...lb, ...external].join(',') || '<pending>' : external.join(',') || '<none>';
      return [o.metadata.name, sp.type ?? 'ClusterIP', sp.clusterIP || '<none>', externalIP, ports || '<none>', age(o, now), sel];
    },
  },
  '/configmaps': {
    columns: [NAME, col('Data', 'integer'), AGE],
    cells: (o, now) => [o.metadata.name, Object.keys((o as Any).data ?? {}).length + Object.keys((o as Any).binaryData ?? {}).length, age(o, now)],
  },
  '/secrets': {
    columns: [NAME, col('Type'), col('Data', 'integer'), AGE],
    cells: (o, now) => [o.metadata.name, (o as Any).type ?? 'Opaque', Object.keys((o as Any).data ?? {}).length, age(o, now)],
  },
  '/events': {
    columns: [col('Last Seen'), col('Type'), col('Reason'), col('Object'), col('Message')],
    cells(o, now) {
      const e = o as Any;
      const last = e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? o.metadata.creationTimestamp;
      const inv = e.involvedObject ?? {};
      return [last ? humanDuration(now - Date.parse(last)) : '<unknown>', e.type ?? '', e.reason ?? '', `${String(inv.kind ?? '').toLowerCase()}/${inv.name ?? ''}`, e.message ?? ''];
    },
  },
  // kube prints both Event APIs with core's printer (one storage, one table convertor).
  'events.k8s.io/events': {
    columns: [col('Last Seen'), col('Type'), col('Reason'), col('Object'), col('Message')],
    cells: (o, now) => BUILTIN_PRINTERS['/events']!.cells(eventsV1ToCoreEvent(o), now),
  },
  'batch/jobs': {
    columns: [NAME, col('Status'), col('Completions'), col('Duration'), AGE, col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)],
    cells(o, now) {
      const st = status(o);
      const conds = (st.conditions as Any[]) ?? [];
      const has = (t: string): boolean => conds.some((c) => c.type === t && c.status === 'True');
      const state = has('Complete') ? 'Complete' : has('Failed') ? 'Failed' : spec(o).suspend ? 'Suspended' : 'Running';
      const start = st.startTime ? Date.parse(st.startTime) : undefined;
      const end = st.completionTime ? Date.parse(st.completionTime) : now;
      return [o.metadata.name, state, `${num(st.succeeded)}/${spec(o).completions ?? 1}`, start ? humanDuration(end - start) : '', age(o, now), containerNames(o), containerImages(o), selectorString(spec(o).selector)];
    },
  },
  'batch/cronjobs': {
    columns: [NAME, col('Schedule'), col('Timezone'), col('Suspend', 'boolean'), col('Active', 'integer'), col('Last Schedule'), AGE],
    cells(o, now) {
      const st = status(o);
      return [o.metadata.name, spec(o).schedule ?? '', spec(o).timeZone ?? '<none>', Boolean(spec(o).suspend), ((st.active as Any[]) ?? []).length, st.lastScheduleTime ? humanDuration(now - Date.parse(st.lastScheduleTime)) : '<none>', age(o, now)];
    },
  },
  '/serviceaccounts': {
    columns: [NAME, col('Secrets', 'integer'), AGE],
    cells: (o, now) => [o.metadata.name, ((o as Any).secrets ?? []).length, age(o, now)],
  },
  'apiextensions.k8s.io/customresourcedefinitions': {
    columns: [NAME, col('Created At', 'date')],
    cells: (o) => [o.metadata.name, o.metadata.creationTimestamp],
  },
};

const DEFAULT_PRINTER: Printer = { columns: [NAME, AGE], cells: (o, now) => [o.metadata.name, age(o, now)] };

function crdPrinter(columns: PrinterColumn[]): Printer {
  return {
    columns: [NAME, ...columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? c.name, priority: c.priority ?? 0 }))],
    cells(o, now) {
      return [
        o.metadata.name,
        ...columns.map((c) => {
          const values = jsonPathValues(o, c.jsonPath);
          if (values.length === 0 || values[0] === undefined || values[0] === null) return null;
          const v = values.length > 1 ? values.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(',') : values[0];
          if (c.type === 'date' && typeof v === 'string') return humanDuration(now - Date.parse(v));
          if (typeof v === 'object') return JSON.stringify(v);
          return v;
        }),
      ];
    },
  };
}

function printerFor(type: ResourceType, version: ServedVersion): Printer {
  if (type.builtin) return BUILTIN_PRINTERS[`${type.group}/${type.resource}`] ?? DEFAULT_PRINTER;
  if (version.printerColumns && version.printerColumns.length) return crdPrinter(version.printerColumns);
  return { columns: [NAME, col('Age', 'date')], cells: (o, now) => [o.metadata.name, age(o, now)] };
}

function partialMetadata(o: KubeObject): object {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** A Table of `objects` (already in the requested version). */
export function buildTable(type: ResourceType, version: ServedVersion, objects: KubeObject[], opts: { includeObject?: IncludeObject; noHeaders?: boolean; resourceVersion?: string; continueToken?: string; apiVersion?: string }): object {
  const printer = printerFor(type, version);
  const now = Date.now();
  const include = opts.includeObject ?? 'Metadata';
  const rows = objects.map((o) => {
    const row: Record<string, unknown> = { cells: printer.cells(o, now) };
    if (include === 'Object') row.object = o;
    else if (include === 'Metadata') row.object = partialMetadata(o);
    return row;
  });
  const metadata: Record<string, string> = {};
  if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continueToken) metadata.continue = opts.continueToken;
  const table: Record<string, unknown> = { kind: 'Table', apiVersion: opts.apiVersion ?? 'meta.k8s.io/v1', metadata };
  if (!opts.noHeaders) table.columnDefinitions = printer.columns;
  table.rows = rows;
  return table;
}

/** Which Table version the Accept header asks for, if any. */
export function wantsTable(accept: string | undefined): string | undefined {
  if (!accept || !accept.includes('as=Table')) return undefined;
  for (const part of accept.split(',')) {
    if (!part.includes('as=Table')) continue;
    if (/v=v1beta1/.test(part)) return 'meta.k8s.io/v1beta1';
    if (/v=v1(;|$|\s)/.test(part)) return 'meta.k8s.io/v1';
  }
  return undefined;
}
