// Every resource-type spelling of the CLI contract, resolved without a cluster.
// Kruise kinds get their version from discovery (resolve.ts); native kinds have
// fixed versions, so they never need a discovery request.

export const KRUISE_GROUP = 'apps.kruise.io';
/** Kruise Rollout (a separate OpenKruise project): Rollout objects; versions from discovery too. */
export const ROLLOUT_GROUP = 'rollouts.kruise.io';

export interface KnownType {
  group: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Fixed version of a native kind; Kruise kinds are discovered. */
  nativeVersion?: string;
  /** Names accepted without a group (kubectl's short names, singular, kind). */
  aliases: string[];
  /** Names accepted only when the group is spelled out ("statefulsets.apps.kruise.io", "sts.apps.kruise.io"). */
  groupAliases?: string[];
  subresources?: string[];
}

const NATIVE: KnownType[] = [
  { group: '', resource: 'pods', kind: 'Pod', namespaced: true, nativeVersion: 'v1', aliases: ['pod', 'po'], subresources: ['status', 'eviction'] },
  { group: 'apps', resource: 'deployments', kind: 'Deployment', namespaced: true, nativeVersion: 'v1', aliases: ['deployment', 'deploy'], subresources: ['status', 'scale'] },
  { group: 'apps', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, nativeVersion: 'v1', aliases: ['replicaset', 'rs'], subresources: ['status', 'scale'] },
  { group: 'apps', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true, nativeVersion: 'v1', aliases: ['statefulset', 'sts'], subresources: ['status', 'scale'] },
  { group: 'apps', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true, nativeVersion: 'v1', aliases: ['daemonset', 'ds'], subresources: ['status'] },
  { group: 'apps', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true, nativeVersion: 'v1', aliases: ['controllerrevision'] },
  { group: 'batch', resource: 'jobs', kind: 'Job', namespaced: true, nativeVersion: 'v1', aliases: ['job'], subresources: ['status'] },
  { group: 'batch', resource: 'cronjobs', kind: 'CronJob', namespaced: true, nativeVersion: 'v1', aliases: ['cronjob', 'cj'], subresources: ['status'] },
  { group: '', resource: 'nodes', kind: 'Node', namespaced: false, nativeVersion: 'v1', aliases: ['node', 'no'], subresources: ['status'] },
  { group: '', resource: 'namespaces', kind: 'Namespace', namespaced: false, nativeVersion: 'v1', aliases: ['namespace', 'ns'], subresources: ['status'] },
  { group: '', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, nativeVersion: 'v1', aliases: ['configmap', 'cm'] },
  { group: '', resource: 'secrets', kind: 'Secret', namespaced: true, nativeVersion: 'v1', aliases: ['secret'] },
  { group: '', resource: 'events', kind: 'Event', namespaced: true, nativeVersion: 'v1', aliases: ['event', 'ev'] },
  // set selector / serviceaccount / subject (kubectl's kinds for them)
  { group: '', resource: 'services', kind: 'Service', namespaced: true, nativeVersion: 'v1', aliases: ['service', 'svc'], subresources: ['status'] },
  { group: '', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true, nativeVersion: 'v1', aliases: ['replicationcontroller', 'rc'], subresources: ['status', 'scale'] },
  { group: '', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, nativeVersion: 'v1', aliases: ['serviceaccount', 'sa'] },
  { group: 'rbac.authorization.k8s.io', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, nativeVersion: 'v1', aliases: ['rolebinding'] },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, nativeVersion: 'v1', aliases: ['clusterrolebinding'] },
];

const KRUISE: KnownType[] = [
  { group: KRUISE_GROUP, resource: 'clonesets', kind: 'CloneSet', namespaced: true, aliases: ['cloneset', 'clone'], subresources: ['status', 'scale'] },
  {
    group: KRUISE_GROUP,
    resource: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    aliases: ['asts', 'advancedstatefulset', 'advancedstatefulsets'],
    groupAliases: ['statefulset', 'sts'],
    subresources: ['status', 'scale'],
  },
  {
    group: KRUISE_GROUP,
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    aliases: ['ads', 'advanceddaemonset', 'advanceddaemonsets', 'daemon'],
    groupAliases: ['daemonset'],
    subresources: ['status'],
  },
  { group: KRUISE_GROUP, resource: 'uniteddeployments', kind: 'UnitedDeployment', namespaced: true, aliases: ['uniteddeployment', 'ud'], subresources: ['status', 'scale'] },
  { group: KRUISE_GROUP, resource: 'containerrecreaterequests', kind: 'ContainerRecreateRequest', namespaced: true, aliases: ['containerrecreaterequest', 'crr'], subresources: ['status'] },
  { group: KRUISE_GROUP, resource: 'imagepulljobs', kind: 'ImagePullJob', namespaced: true, aliases: ['imagepulljob'], subresources: ['status'] },
  { group: KRUISE_GROUP, resource: 'imagelistpulljobs', kind: 'ImageListPullJob', namespaced: true, aliases: ['imagelistpulljob'], subresources: ['status'] },
  { group: KRUISE_GROUP, resource: 'persistentpodstates', kind: 'PersistentPodState', namespaced: true, aliases: ['persistentpodstate', 'pps'], subresources: ['status'] },
  { group: KRUISE_GROUP, resource: 'sidecarsets', kind: 'SidecarSet', namespaced: false, aliases: ['sidecarset'], subresources: ['status'] },
  { group: KRUISE_GROUP, resource: 'broadcastjobs', kind: 'BroadcastJob', namespaced: true, aliases: ['broadcastjob', 'bcj'], subresources: ['status'] },
  { group: KRUISE_GROUP, resource: 'advancedcronjobs', kind: 'AdvancedCronJob', namespaced: true, aliases: ['advancedcronjob', 'acj'], subresources: ['status'] },
  // The real CRDs declare no short name, so none here either ("ro" would be ours alone).
  { group: ROLLOUT_GROUP, resource: 'rollouts', kind: 'Rollout', namespaced: true, aliases: ['rollout'], subresources: ['status'] },
];

export const KNOWN_TYPES: readonly KnownType[] = [...NATIVE, ...KRUISE];

export interface TypeReference {
  known: KnownType;
  /** Version pinned in the type ("clonesets.v1beta1.apps.kruise.io"), else undefined. */
  pinnedVersion?: string;
  /** What the user typed, for messages. */
  input: string;
}

const VERSION_RE = /^v\d+(?:(?:alpha|beta)\d+)?$/;

function matches(t: KnownType, name: string, withGroup: boolean): boolean {
  if (name === t.resource || name === t.kind.toLowerCase()) return true;
  if (t.aliases.includes(name)) return true;
  return withGroup && (t.groupAliases?.includes(name) ?? false);
}

/**
 * Parses a kubectl type spelling: "cloneset", "clone", "clonesets.apps.kruise.io",
 * "clonesets.v1beta1.apps.kruise.io", "deployments.apps", "deploy.v1.apps", "sts" (native).
 * Returns undefined when the type is not one this CLI knows.
 */
export function lookupType(input: string): TypeReference | undefined {
  const text = input.trim().toLowerCase();
  if (text === '') return undefined;
  const dot = text.indexOf('.');
  if (dot === -1) {
    // Bare names: native first, so "sts"/"statefulset" are apps/v1 as in kubectl.
    const known = NATIVE.find((t) => matches(t, text, false)) ?? KRUISE.find((t) => matches(t, text, false));
    return known ? { known, input } : undefined;
  }
  const head = text.slice(0, dot);
  let rest = text.slice(dot + 1);
  let pinnedVersion: string | undefined;
  const nextDot = rest.indexOf('.');
  const firstPart = nextDot === -1 ? rest : rest.slice(0, nextDot);
  if (VERSION_RE.test(firstPart)) {
    pinnedVersion = firstPart;
    rest = nextDot === -1 ? '' : rest.slice(nextDot + 1);
  }
  // "pods.v1" names the core group with a version; "pods." is malformed. What remains is the group.
  if (rest === '' && pinnedVersion === undefined) return undefined;
  const known = KNOWN_TYPES.find((t) => t.group === rest && matches(t, head, true));
  // A version the kind does not have is still a known type: resolution reports it as not served.
  return known ? { known, pinnedVersion, input } : undefined;
}

/** Finds a type by apiVersion group and kind (objects read from -f files). */
export function lookupKind(group: string, kind: string): KnownType | undefined {
  return KNOWN_TYPES.find((t) => t.group === group && t.kind === kind);
}

/**
 * Kubernetes version priority (GA > beta > alpha; higher numbers first), as used for
 * preferring a version: negative when `a` is preferred over `b`.
 */
export function compareVersionPriority(a: string, b: string): number {
  const parse = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [-1, 0, 0];
    const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stability, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa[0] === -1 && pb[0] === -1) return a < b ? -1 : a > b ? 1 : 0;
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i]! - pa[i]!;
  return 0;
}
