// The Kruise kinds `get all` lists, in the order their tables are printed: workloads first, then jobs,
// then the objects that act on other workloads' pods. Versions and scope come from discovery.

export interface AllKind {
  group: string;
  resource: string;
  /** For the help text and messages. */
  title: string;
}

export const GET_ALL_KINDS: readonly AllKind[] = [
  { group: 'apps.kruise.io', resource: 'clonesets', title: 'CloneSet' },
  { group: 'apps.kruise.io', resource: 'statefulsets', title: 'Advanced StatefulSet' },
  { group: 'apps.kruise.io', resource: 'daemonsets', title: 'Advanced DaemonSet' },
  { group: 'apps.kruise.io', resource: 'sidecarsets', title: 'SidecarSet' },
  { group: 'apps.kruise.io', resource: 'uniteddeployments', title: 'UnitedDeployment' },
  { group: 'apps.kruise.io', resource: 'broadcastjobs', title: 'BroadcastJob' },
  { group: 'apps.kruise.io', resource: 'advancedcronjobs', title: 'AdvancedCronJob' },
  { group: 'apps.kruise.io', resource: 'imagepulljobs', title: 'ImagePullJob' },
  { group: 'apps.kruise.io', resource: 'containerrecreaterequests', title: 'ContainerRecreateRequest' },
  { group: 'apps.kruise.io', resource: 'persistentpodstates', title: 'PersistentPodState' },
  { group: 'apps.kruise.io', resource: 'workloadspreads', title: 'WorkloadSpread' },
  { group: 'policy.kruise.io', resource: 'podunavailablebudgets', title: 'PodUnavailableBudget' },
  { group: 'rollouts.kruise.io', resource: 'rollouts', title: 'Rollout' },
];

/** Lists of these kinds run at most this many at once (13 kinds: quick, yet gentle on API priority and fairness). */
export const GET_ALL_CONCURRENCY = 4;
