// The built-in (non-CRD) kinds the sandbox serves, with the names, scope and subresources
// of a real v1.32 API server, so kubectl's discovery-driven resolution behaves the same.
import { ALL_VERBS, type ResourceType } from './resource-types';

interface Spec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: boolean;
  verbs?: string[];
  extra?: string[];
  storedAs?: { group: string; resource: string };
}

const SPECS: Spec[] = [
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], status: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], status: true },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', shortNames: ['po'], categories: ['all'], status: true, extra: ['log', 'eviction', 'exec'] },
  { group: '', version: 'v1', resource: 'services', kind: 'Service', shortNames: ['svc'], categories: ['all'], status: true },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'] },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret' },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'] },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', shortNames: ['ev'] },
  { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', shortNames: ['ep'] },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', shortNames: ['pvc'], status: true },
  { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'], status: true },
  { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', shortNames: ['rc'], categories: ['all'], status: true, scale: true },
  { group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', shortNames: ['quota'], status: true },
  { group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', shortNames: ['limits'] },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', shortNames: ['deploy'], categories: ['all'], status: true, scale: true },
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', shortNames: ['rs'], categories: ['all'], status: true, scale: true },
  { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', shortNames: ['sts'], categories: ['all'], status: true, scale: true },
  { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', shortNames: ['ds'], categories: ['all'], status: true },
  { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision' },
  { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', categories: ['all'], status: true },
  { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', shortNames: ['cj'], categories: ['all'], status: true },
  // Kruise Rollout's traffic routing (nginx provider) writes canary Ingresses
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', shortNames: ['ing'], status: true },
  { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', shortNames: ['pdb'], status: true },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease' },
  // One store for both Event APIs, as kube-apiserver has (event-versions.ts converts).
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', shortNames: ['ev'], storedAs: { group: '', resource: 'events' } },
  { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], status: true },
  // Answered from the requesting user (kubectl auth can-i / whoami), never stored.
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: ['create'] },
  { group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: ['create'] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
];

function singularOf(kind: string): string {
  return kind.toLowerCase();
}

export function builtinResourceTypes(): ResourceType[] {
  return SPECS.map((s) => ({
    group: s.group,
    resource: s.resource,
    kind: s.kind,
    listKind: `${s.kind}List`,
    singular: singularOf(s.kind),
    namespaced: s.namespaced ?? true,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    verbs: s.verbs ?? ALL_VERBS,
    versions: [
      {
        name: s.version,
        served: true,
        storage: true,
        status: s.status ?? false,
        scale: s.scale ? { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } : undefined,
      },
    ],
    storageVersion: s.version,
    builtin: true,
    extraSubresources: s.extra,
    storedAs: s.storedAs,
  }));
}
