// Minimal CustomResourceDefinitions of the Kruise kinds, per imitated release, for a sandbox
// started without `--crds`: the served/storage versions of kruise-semantics §1, names, scope,
// subresources and printer columns (§7), with a permissive schema (no field validation;
// start with `--crds <folder of real CRDs>` for that). Written by hand, not copied upstream.
import type { KubeObject } from '../../kruise/types';

export type KruiseRelease = 'v1.3' | 'v1.8' | 'v1.9' | 'master';

interface Column {
  name: string;
  type: string;
  jsonPath: string;
  priority?: number;
}

interface KindSpec {
  /** apps.kruise.io unless set (PodUnavailableBudget is policy.kruise.io). */
  group?: string;
  plural: string;
  kind: string;
  shortNames?: string[];
  scope?: 'Namespaced' | 'Cluster';
  scale?: boolean;
  columns: Column[];
  /** versions served in each release; the one marked with * is the storage version. */
  versions: Record<KruiseRelease, string[]> | ((r: KruiseRelease) => string[] | undefined);
}

const AGE: Column = { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' };

const KINDS: KindSpec[] = [
  {
    plural: 'clonesets',
    kind: 'CloneSet',
    shortNames: ['clone'],
    scale: true,
    columns: [
      { name: 'DESIRED', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'UPDATED', type: 'integer', jsonPath: '.status.updatedReplicas' },
      { name: 'UPDATED_READY', type: 'integer', jsonPath: '.status.updatedReadyReplicas' },
      { name: 'UPDATED_AVAILABLE', type: 'integer', jsonPath: '.status.updatedAvailableReplicas' },
      { name: 'READY', type: 'integer', jsonPath: '.status.readyReplicas' },
      { name: 'TOTAL', type: 'integer', jsonPath: '.status.replicas' },
      AGE,
      { name: 'CONTAINERS', type: 'string', jsonPath: '.spec.template.spec.containers[*].name', priority: 1 },
      { name: 'IMAGES', type: 'string', jsonPath: '.spec.template.spec.containers[*].image', priority: 1 },
      { name: 'SELECTOR', type: 'string', jsonPath: '.status.labelSelector', priority: 1 },
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'statefulsets',
    kind: 'StatefulSet',
    shortNames: ['sts', 'asts'],
    scale: true,
    columns: [
      { name: 'DESIRED', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'CURRENT', type: 'integer', jsonPath: '.status.replicas' },
      { name: 'UPDATED', type: 'integer', jsonPath: '.status.updatedReplicas' },
      { name: 'READY', type: 'integer', jsonPath: '.status.readyReplicas' },
      AGE,
      { name: 'CONTAINERS', type: 'string', jsonPath: '.spec.template.spec.containers[*].name', priority: 1 },
      { name: 'IMAGES', type: 'string', jsonPath: '.spec.template.spec.containers[*].image', priority: 1 },
    ],
    versions: { 'v1.3': ['v1alpha1', 'v1beta1*'], 'v1.8': ['v1alpha1', 'v1beta1*'], 'v1.9': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'daemonsets',
    kind: 'DaemonSet',
    shortNames: ['daemon', 'ads'],
    columns: [
      { name: 'DESIRED', type: 'integer', jsonPath: '.status.desiredNumberScheduled' },
      { name: 'CURRENT', type: 'integer', jsonPath: '.status.currentNumberScheduled' },
      { name: 'READY', type: 'integer', jsonPath: '.status.numberReady' },
      { name: 'UP-TO-DATE', type: 'integer', jsonPath: '.status.updatedNumberScheduled' },
      { name: 'AVAILABLE', type: 'integer', jsonPath: '.status.numberAvailable' },
      AGE,
      { name: 'CONTAINERS', type: 'string', jsonPath: '.spec.template.spec.containers[*].name', priority: 1 },
      { name: 'IMAGES', type: 'string', jsonPath: '.spec.template.spec.containers[*].image', priority: 1 },
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'containerrecreaterequests',
    kind: 'ContainerRecreateRequest',
    shortNames: ['crr'],
    columns: [
      { name: 'PHASE', type: 'string', jsonPath: '.status.phase' },
      { name: 'POD', type: 'string', jsonPath: '.spec.podName' },
      { name: 'NODE', type: 'string', jsonPath: '.metadata.labels.crr\\.apps\\.kruise\\.io/node-name' },
      AGE,
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'imagepulljobs',
    kind: 'ImagePullJob',
    columns: [
      { name: 'TOTAL', type: 'integer', jsonPath: '.status.desired' },
      { name: 'ACTIVE', type: 'integer', jsonPath: '.status.active' },
      { name: 'SUCCEED', type: 'integer', jsonPath: '.status.succeeded' },
      { name: 'FAILED', type: 'integer', jsonPath: '.status.failed' },
      AGE,
      { name: 'MESSAGE', type: 'string', jsonPath: '.status.message' },
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'imagelistpulljobs',
    kind: 'ImageListPullJob',
    columns: [
      { name: 'TOTAL', type: 'integer', jsonPath: '.status.desired' },
      { name: 'SUCCEEDED', type: 'integer', jsonPath: '.status.succeeded' },
      { name: 'COMPLETED', type: 'integer', jsonPath: '.status.completed' },
      AGE,
    ],
    // ImageListPullJob ships from v1.4 on (absent from the v1.3 CRDs).
    versions: (r) => (r === 'v1.3' ? undefined : r === 'v1.8' ? ['v1alpha1*'] : ['v1alpha1', 'v1beta1*']),
  },
  {
    plural: 'broadcastjobs',
    kind: 'BroadcastJob',
    shortNames: ['bcj'],
    columns: [
      { name: 'Desired', type: 'integer', jsonPath: '.status.desired' },
      { name: 'Active', type: 'integer', jsonPath: '.status.active' },
      { name: 'Succeeded', type: 'integer', jsonPath: '.status.succeeded' },
      { name: 'Failed', type: 'integer', jsonPath: '.status.failed' },
      AGE,
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'advancedcronjobs',
    kind: 'AdvancedCronJob',
    shortNames: ['acj'],
    columns: [
      { name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' },
      { name: 'Type', type: 'string', jsonPath: '.status.type' },
      { name: 'LastScheduleTime', type: 'date', jsonPath: '.status.lastScheduleTime' },
      AGE,
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'persistentpodstates',
    kind: 'PersistentPodState',
    columns: [],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'uniteddeployments',
    kind: 'UnitedDeployment',
    shortNames: ['ud'],
    scale: true,
    columns: [
      { name: 'DESIRED', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'CURRENT', type: 'integer', jsonPath: '.status.replicas' },
      { name: 'UPDATED', type: 'integer', jsonPath: '.status.updatedReplicas' },
      { name: 'READY', type: 'integer', jsonPath: '.status.readyReplicas' },
      AGE,
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'sidecarsets',
    kind: 'SidecarSet',
    scope: 'Cluster',
    columns: [
      { name: 'MATCHED', type: 'integer', jsonPath: '.status.matchedPods' },
      { name: 'UPDATED', type: 'integer', jsonPath: '.status.updatedPods' },
      { name: 'READY', type: 'integer', jsonPath: '.status.readyPods' },
      AGE,
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  // No controllers: kinds the CLI lists (get all) and the API converts (master's v1beta1).
  {
    plural: 'workloadspreads',
    kind: 'WorkloadSpread',
    shortNames: ['ws'],
    columns: [
      { name: 'WorkloadName', type: 'string', jsonPath: '.spec.targetRef.name' },
      { name: 'WorkloadKind', type: 'string', jsonPath: '.spec.targetRef.kind' },
      { name: 'Adaptive', type: 'boolean', jsonPath: '.spec.scheduleStrategy.type[?(@ == "Adaptive")]' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    plural: 'resourcedistributions',
    kind: 'ResourceDistribution',
    shortNames: ['distributor'],
    scope: 'Cluster',
    columns: [
      { name: 'TOTAL', type: 'integer', jsonPath: '.status.desired' },
      { name: 'SUCCEED', type: 'integer', jsonPath: '.status.succeeded' },
      { name: 'FAILED', type: 'integer', jsonPath: '.status.failed' },
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
  {
    group: 'policy.kruise.io',
    plural: 'podunavailablebudgets',
    kind: 'PodUnavailableBudget',
    shortNames: ['pub'],
    columns: [
      { name: 'Allowed', type: 'integer', jsonPath: '.status.unavailableAllowed' },
      { name: 'Current', type: 'integer', jsonPath: '.status.currentAvailable' },
      { name: 'Desired', type: 'integer', jsonPath: '.status.desiredAvailable' },
      { name: 'Total', type: 'integer', jsonPath: '.status.totalReplicas' },
    ],
    versions: { 'v1.3': ['v1alpha1*'], 'v1.8': ['v1alpha1*'], 'v1.9': ['v1alpha1*'], master: ['v1alpha1', 'v1beta1*'] },
  },
];

/** The schema of a built-in definition: any spec and status (the sandbox's rules check the rest). */
export const PERMISSIVE_SCHEMA = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

export const KRUISE_RELEASES: KruiseRelease[] = ['v1.3', 'v1.8', 'v1.9', 'master'];

/** Normalises "v1.9.0", "1.9", "v1.8.4" → "v1.9" / "v1.8"; undefined when unknown. */
export function parseKruiseRelease(value: string): KruiseRelease | undefined {
  if (value === 'master' || value === 'main') return 'master';
  const m = value.match(/^v?1\.(\d+)(\.\d+)?$/);
  if (!m) return undefined;
  const minor = Number(m[1]);
  if (minor === 3) return 'v1.3';
  if (minor === 8) return 'v1.8';
  if (minor === 9) return 'v1.9';
  return undefined;
}

export function builtinKruiseCrds(release: KruiseRelease): KubeObject[] {
  const out: KubeObject[] = [];
  for (const k of KINDS) {
    const versions = typeof k.versions === 'function' ? k.versions(release) : k.versions[release];
    if (!versions) continue;
    const group = k.group ?? 'apps.kruise.io';
    out.push({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${k.plural}.${group}`, annotations: { 'kruise-sandbox/builtin': release } },
      spec: {
        group,
        scope: k.scope ?? 'Namespaced',
        names: { plural: k.plural, singular: k.kind.toLowerCase(), kind: k.kind, listKind: `${k.kind}List`, ...(k.shortNames ? { shortNames: k.shortNames } : {}) },
        versions: versions.map((v) => ({
          name: v.replace('*', ''),
          served: true,
          storage: v.endsWith('*'),
          schema: { openAPIV3Schema: PERMISSIVE_SCHEMA },
          subresources: {
            status: {},
            ...(k.scale ? { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } } : {}),
          },
          ...(k.columns.length ? { additionalPrinterColumns: k.columns } : {}),
        })),
      },
    });
  }
  return out;
}
