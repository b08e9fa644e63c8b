// Kruise Rollout's per-kind "batch release control" table (openkruise/rollouts v0.6.2
// pkg/controller/batchrelease/batchrelease_executor.go getReleaseController), like kubectl's per-kind
// helper tables: one `ReleaseControl` (release-workload.ts) per (rolling style, group, kind).
//
// EXTENSION POINT (ro-deploy-bg): Deployment (Partition / Canary) and blue-green (CloneSet, Deployment)
// controls are entries of RELEASE_CONTROLS, written in their own modules and added to the list below
// (one import + one entry); nothing else in the controller dispatches on the workload kind. The
// strategy (canary / blueGreen) dispatch is RELEASE_MANAGERS in state-machine.ts.
import { cloneSetReleaseControl } from './release-control-cloneset';
import { deploymentReleaseControl } from './release-control-deployment';
import { cloneSetBlueGreenControl, deploymentBlueGreenControl } from './release-control-bluegreen';
import { deploymentCanaryControl } from './release-control-deployment-canary';
import { advancedDaemonSetReleaseControl } from './release-control-daemonset';
import { advancedStatefulSetReleaseControl, statefulSetReleaseControl } from './release-control-statefulset';
import { nativeDaemonSetReleaseControl } from './release-control-native-daemonset';
import type { KruiseRolloutRelease, ReleaseControl, RollingStyle } from './release-workload';

export function releaseControlKey(group: string, kind: string, style: RollingStyle): string {
  return `${style}:${group}/${kind}`;
}

/** Every supported (kind, style): partition-style kinds here; ro-deploy-bg adds Deployment and blue-green. */
export const RELEASE_CONTROLS: ReadonlyMap<string, ReleaseControl> = new Map(
  [
    cloneSetReleaseControl,
    advancedStatefulSetReleaseControl,
    statefulSetReleaseControl,
    advancedDaemonSetReleaseControl,
    deploymentReleaseControl,
    cloneSetBlueGreenControl,
    deploymentBlueGreenControl,
    deploymentCanaryControl,
    nativeDaemonSetReleaseControl,
  ].map((c) => [releaseControlKey(c.group, c.kind, c.style), c]),
);

/**
 * batchrelease_executor.go getReleaseController: the control of a workloadRef under a rolling style in
 * `release` (a kind only a later release knows has none: its Rollout reads "Workload Not Found");
 * Canary falls through to Partition for every kind but Deployment, as upstream does.
 */
export function releaseControlFor(apiVersion: string, kind: string, style: RollingStyle | undefined, release: KruiseRolloutRelease = 'v0.6'): ReleaseControl | undefined {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const s = style ?? 'Partition';
  const control = RELEASE_CONTROLS.get(releaseControlKey(group, kind, s)) ?? (s === 'Canary' ? RELEASE_CONTROLS.get(releaseControlKey(group, kind, 'Partition')) : undefined);
  return control && (control.releases === undefined || control.releases.includes(release)) ? control : undefined;
}

