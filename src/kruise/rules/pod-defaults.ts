// The pod spec defaults kube's SetDefaults_PodSpec / SetDefaults_Container write, as far as clients
// read them back: the API server applies them to pods and to the pod templates of built-in kinds,
// and Kruise's webhooks to the templates of their kinds (apis/apps/defaults/pod.go SetDefaultPodSpec),
// which is why a Job or BroadcastJob template without restartPolicy reads "Always" and is refused.
type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * SetDefaults_Container's pull policy (k8s pkg/apis/core/v1/defaults.go): Always when the image's
 * tag is "latest", which parsers.ParseImageName also gives an image with neither tag nor digest;
 * otherwise IfNotPresent (a digest without tag included: `nginx@sha256:…`).
 */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const last = name.slice(name.lastIndexOf('/') + 1); // a registry's port is not a tag
  const colon = last.lastIndexOf(':');
  const tag = colon >= 0 ? last.slice(colon + 1) : at < 0 ? 'latest' : '';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** SetDefaults_Container and the port protocol (SetDefaults_ContainerPort), in place. */
export function defaultContainer(c: Obj): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') c.imagePullPolicy = defaultPullPolicy(c.image);
  for (const p of Array.isArray(c.ports) ? c.ports : []) if (isObj(p)) p.protocol ??= 'TCP';
}

/**
 * Fills kube's defaults in place (a missing or non-object spec is left alone). `kruise`: Kruise's
 * SetDefaultPodSpec for the templates of its own kinds, which gives app containers (not init
 * containers) imagePullPolicy Always whatever the tag, "for in-place update" (apis/apps/defaults/pod.go).
 */
export function defaultPodSpec(spec: unknown, opts: { kruise?: boolean } = {}): void {
  if (!isObj(spec)) return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) if (isObj(c)) defaultContainer(c);
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) {
    if (!isObj(c)) continue;
    if (opts.kruise) c.imagePullPolicy ??= 'Always';
    defaultContainer(c);
  }
}

/**
 * What Kruise's mutating webhooks add to a workload's templates when they inject template defaults
 * (SetDefaultsCloneSet, SetDefaultsCloneSetV1beta1, SetDefaultsStatefulSet in apis/apps/defaults):
 * SetDefaultPodSpec on the pod template, SetDefaults_PersistentVolumeClaim (status.phase Pending) on
 * each volume claim template. In place; `spec` is the workload's spec.
 */
export function injectTemplateDefaults(spec: Obj): void {
  defaultPodSpec((spec.template as Obj | undefined)?.spec, { kruise: true });
  for (const claim of Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []) {
    if (!isObj(claim)) continue;
    const status = (claim.status ??= {}) as Obj;
    if (!status.phase) status.phase = 'Pending';
  }
}
