// Defaults a real API server fills in for built-in workload kinds, so clients that
// read them (kubectl rollout status/undo, the plugin) see what they would on a cluster.
import type { KubeObject } from '../../kruise/types';
import { defaultPodSpec } from '../../kruise/rules/pod-defaults';
import { applyServiceDefaults, type Service } from '../../kruise/rules/service';

type Any = Record<string, any>;

export function applyBuiltinDefaults(group: string, resource: string, obj: KubeObject): void {
  const o = obj as Any;
  if (!o.spec || typeof o.spec !== 'object') return;
  const spec = o.spec as Any;
  if (group === 'apps' || (group === '' && resource === 'replicationcontrollers')) {
    if (resource !== 'daemonsets' && resource !== 'controllerrevisions') spec.replicas ??= 1;
    if (resource !== 'controllerrevisions') spec.revisionHistoryLimit ??= 10;
    if (spec.template) defaultPodSpec(spec.template.spec);
  }
  if (group === 'apps' && resource === 'controllerrevisions') delete o.spec;
  if (group === 'apps' && resource === 'deployments') {
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: 'RollingUpdate' };
    if ((spec.strategy.type ?? 'RollingUpdate') === 'RollingUpdate') {
      spec.strategy.type = 'RollingUpdate';
      spec.strategy.rollingUpdate ??= {};
      spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
      spec.strategy.rollingUpdate.maxSurge ??= '25%';
    }
  }
  if (group === 'apps' && resource === 'statefulsets') {
    spec.podManagementPolicy ??= 'OrderedReady';
    spec.updateStrategy ??= { type: 'RollingUpdate' };
    if (spec.updateStrategy.type === 'RollingUpdate') spec.updateStrategy.rollingUpdate ??= { partition: 0 };
    spec.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: 'Retain', whenScaled: 'Retain' };
  }
  if (group === 'apps' && resource === 'daemonsets') {
    spec.updateStrategy ??= { type: 'RollingUpdate' };
    if (spec.updateStrategy.type === 'RollingUpdate') {
      spec.updateStrategy.rollingUpdate ??= {};
      spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
      spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
    }
  }
  if (group === '' && resource === 'pods') defaultPodSpec(spec);
  // SetDefaults_Service (the cluster IP, node ports and validation come at admission: controllers/service.ts)
  if (group === '' && resource === 'services') applyServiceDefaults(obj as Service);
}
