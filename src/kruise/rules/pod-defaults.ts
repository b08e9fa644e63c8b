// The pod spec defaults kube's SetDefaults_PodSpec / SetDefaults_Container write, as far as clients
// read them back: the API server applies them to pods and to the pod templates of built-in kinds,
// and Kruise's webhooks to the templates of their kinds (apis/apps/defaults/pod.go SetDefaultPodSpec),
// which is why a Job or BroadcastJob template without restartPolicy reads "Always" and is refused.
type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Fills the defaults in place (a missing or non-object spec is left alone). */
export function defaultPodSpec(spec: unknown): void {
  if (!isObj(spec)) return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])];
  for (const c of containers) {
    if (!isObj(c)) continue;
    c.terminationMessagePath ??= '/dev/termination-log';
    c.terminationMessagePolicy ??= 'File';
    if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
      const tag = c.image.includes('@') ? 'digest' : (c.image.split('/').pop()!.split(':')[1] ?? 'latest');
      c.imagePullPolicy = tag === 'latest' ? 'Always' : 'IfNotPresent';
    }
    for (const p of Array.isArray(c.ports) ? c.ports : []) if (isObj(p)) p.protocol ??= 'TCP';
  }
}
