// Every simulated controller of the sandbox, in start order: nodes first (the scheduler
// and kubelet need them), then the pod machinery, then workload and Kruise controllers.
// The API server calls createControllers once, runs each `admission` hook on writes, and
// starts every controller against its Store.
import type { ControllerWithAdmission, SimulationSettings } from '../store-api';
import { createAdvancedCronJobController } from './advancedcronjob';
import { createAdvancedDaemonSetController } from './ads';
import { createAdvancedStatefulSetController } from './asts';
import { createBroadcastJobController } from './broadcastjob';
import { createCloneSetController } from './cloneset';
import { createCrrController } from './crr';
import { createDaemonSetController } from './daemonset';
import { createDeploymentController } from './deployment';
import { createGarbageCollector } from './gc';
import { createImagePullJobController } from './imagepulljob';
import { createJobController } from './job';
import { createKruiseManager } from './kruise-manager';
import { createKubelet } from './kubelet';
import { createNodesController } from './nodes';
import { createPodDisruptionBudgetController } from './pdb';
import { createPersistentPodStateController } from './pps';
import { createPodUnavailableBudgetController } from './pub';
import { createPodReadinessController } from './pod-readiness';
import { createReplicaSetController } from './replicaset';
import { createRolloutController } from './rollout';
import { createRolloutNativeDaemonSetController } from './rollout-native-daemonset';
import { createScheduler } from './scheduler';
import { createServiceAllocator } from './service';
import { createSidecarSetController } from './sidecarset';
import { createStatefulSetController } from './statefulset';
import { createUnitedDeploymentController } from './uniteddeployment';

export function createControllers(settings: SimulationSettings): ControllerWithAdmission[] {
  // Every controller receives the settings again in start(); the Kruise ones find kruise-manager's gate there.
  const manager = createKruiseManager();
  settings.kruiseManager = manager.gate;
  return [
    createNodesController(),
    createScheduler(),
    createKubelet(),
    createGarbageCollector(),
    createServiceAllocator(),
    createReplicaSetController(),
    createDeploymentController(),
    createStatefulSetController(),
    createDaemonSetController(),
    createJobController(),
    createCrrController(),
    createImagePullJobController(),
    // kube's disruption controller (PodDisruptionBudget status; the eviction REST reads it)
    createPodDisruptionBudgetController(),
    // kruise-manager: the Kruise controllers below (not Kruise Rollout's, nor kruise-daemon's) run while it does
    manager,
    // --- Kruise workload controllers (cloneset*.ts, asts*.ts, ads*.ts, pps*.ts) ---
    // The Kruise workload developer adds their factories here once their modules build, e.g.
    //   createCloneSetController(), createAdvancedStatefulSetController(), ...
    createCloneSetController(),
    createAdvancedStatefulSetController(),
    createAdvancedDaemonSetController(),
    createPersistentPodStateController(),
    createSidecarSetController(),
    createPodReadinessController(),
    createUnitedDeploymentController(),
    // BroadcastJob and AdvancedCronJob (issue #18)
    createBroadcastJobController(),
    createAdvancedCronJobController(),
    // PodUnavailableBudget controller and pod webhooks (pub.ts; check-and-spend in pub-control.ts)
    createPodUnavailableBudgetController(),
    // Kruise Rollout (rollout.ts): last, so its workload webhook sees the Kruise webhooks' defaults
    createRolloutController(),
    // Kruise Rollout master's pod deleter for native DaemonSets it releases (rollout-native-daemonset.ts)
    createRolloutNativeDaemonSetController(),
  ];
}
