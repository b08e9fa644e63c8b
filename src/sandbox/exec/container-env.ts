// The environment a sandbox container's process sees, as the kubelet builds it
// (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables): PATH and HOSTNAME from the image and
// runtime, envFrom (ConfigMaps, Secrets, with their prefix), env in order with $(VAR) references
// to earlier ones expanded, valueFrom (the downward API's fieldRef, configMapKeyRef, secretKeyRef,
// resourceFieldRef), then the kubernetes Service variables and HOME. Read at exec time: the
// sandbox's containers have no start-time snapshot (a fieldRef to an annotation that changed since
// shows the new value).
import type { KubeObject, Pod } from '../../kruise/types';
import type { GroupResource } from '../store-api';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface EnvLookup {
  get(gr: GroupResource, namespace: string, name: string): KubeObject | undefined;
}

const CONFIGMAPS: GroupResource = { group: '', resource: 'configmaps' };
const SECRETS: GroupResource = { group: '', resource: 'secrets' };

/** The default Service `kubernetes` in the sandbox (what every pod of a real cluster is told about). */
const SERVICE_ENV: Array<[string, string]> = [
  ['KUBERNETES_SERVICE_HOST', '10.96.0.1'],
  ['KUBERNETES_SERVICE_PORT', '443'],
  ['KUBERNETES_SERVICE_PORT_HTTPS', '443'],
  ['KUBERNETES_PORT', 'tcp://10.96.0.1:443'],
  ['KUBERNETES_PORT_443_TCP', 'tcp://10.96.0.1:443'],
  ['KUBERNETES_PORT_443_TCP_PROTO', 'tcp'],
  ['KUBERNETES_PORT_443_TCP_PORT', '443'],
  ['KUBERNETES_PORT_443_TCP_ADDR', '10.96.0.1'],
];

/** The hostname a pod's containers see: spec.hostname, else the pod's name. */
export function podHostname(pod: Pod): string {
  return typeof pod.spec.hostname === 'string' && pod.spec.hostname ? pod.spec.hostname : (pod.metadata.name ?? '');
}

/** metadata.labels['k'] / metadata.annotations['k'] and the plain fields the downward API offers. */
function fieldValue(pod: Pod, path: string): string | undefined {
  const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (m) return (m[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations)?.[m[2]!] ?? '';
  const status = (pod.status ?? {}) as Obj;
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return typeof pod.spec.serviceAccountName === 'string' ? pod.spec.serviceAccountName : 'default';
    case 'status.hostIP':
      return typeof status.hostIP === 'string' ? status.hostIP : '';
    case 'status.podIP':
      return typeof status.podIP === 'string' ? status.podIP : '';
    case 'status.podIPs':
      return Array.isArray(status.podIPs) ? (status.podIPs as Array<{ ip?: string }>).map((p) => p.ip ?? '').join(',') : '';
    default:
      return undefined;
  }
}

/** Kubernetes' $(VAR) expansion (third_party/forked/golang/expansion): $$ escapes, unknown names stay as written. */
function expandRefs(value: string, env: Map<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, name: string | undefined) => (all === '$$' ? '$' : env.has(name!) ? env.get(name!)! : all));
}

function keyOf(store: EnvLookup, gr: GroupResource, namespace: string, ref: unknown): string | undefined {
  if (!isObj(ref) || typeof ref.name !== 'string' || typeof ref.key !== 'string') return undefined;
  const obj = store.get(gr, namespace, ref.name) as (KubeObject & { data?: Record<string, string> }) | undefined;
  const raw = obj?.data?.[ref.key];
  if (raw === undefined) return undefined;
  return gr === SECRETS ? Buffer.from(raw, 'base64').toString('utf8') : raw;
}

/** The process environment of `container` in `pod`, in the order `env` prints it. */
export function containerEnv(pod: Pod, container: { env?: unknown; envFrom?: unknown; resources?: unknown }, store: EnvLookup, tty: boolean): Array<[string, string]> {
  const ns = pod.metadata.namespace ?? 'default';
  const env = new Map<string, string>([
    ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    ['HOSTNAME', podHostname(pod)],
  ]);
  if (tty) env.set('TERM', 'xterm');
  for (const from of Array.isArray(container.envFrom) ? (container.envFrom as unknown[]) : []) {
    if (!isObj(from)) continue;
    const prefix = typeof from.prefix === 'string' ? from.prefix : '';
    const ref = (isObj(from.configMapRef) ? from.configMapRef : isObj(from.secretRef) ? from.secretRef : undefined) as Obj | undefined;
    if (!ref || typeof ref.name !== 'string') continue;
    const gr = isObj(from.configMapRef) ? CONFIGMAPS : SECRETS;
    const data = (store.get(gr, ns, ref.name) as { data?: Record<string, string> } | undefined)?.data ?? {};
    for (const [k, v] of Object.entries(data)) env.set(`${prefix}${k}`, gr === SECRETS ? Buffer.from(v, 'base64').toString('utf8') : v);
  }
  for (const e of Array.isArray(container.env) ? (container.env as unknown[]) : []) {
    if (!isObj(e) || typeof e.name !== 'string') continue;
    let value: string | undefined;
    if (typeof e.value === 'string') value = expandRefs(e.value, env);
    else if (isObj(e.valueFrom)) {
      const vf = e.valueFrom;
      if (isObj(vf.fieldRef) && typeof vf.fieldRef.fieldPath === 'string') value = fieldValue(pod, vf.fieldRef.fieldPath);
      else if (isObj(vf.configMapKeyRef)) value = keyOf(store, CONFIGMAPS, ns, vf.configMapKeyRef);
      else if (isObj(vf.secretKeyRef)) value = keyOf(store, SECRETS, ns, vf.secretKeyRef);
      else if (isObj(vf.resourceFieldRef) && typeof vf.resourceFieldRef.resource === 'string') {
        const [kind, res] = vf.resourceFieldRef.resource.split('.') as [string, string];
        const resources = (isObj(container.resources) ? container.resources : {}) as Obj;
        const set = (isObj(resources[kind]) ? resources[kind] : {}) as Record<string, string>;
        value = set[res] ?? '0';
      }
    } else value = '';
    if (value !== undefined) env.set(e.name, value);
  }
  for (const [k, v] of SERVICE_ENV) if (!env.has(k)) env.set(k, v);
  if (!env.has('HOME')) env.set('HOME', '/root');
  return [...env.entries()];
}
