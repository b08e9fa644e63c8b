// Which of the two CloneSet shapes an object has (kruise-semantics §3.1/§3.2), and where its rolling fields
// live: what both the adapter (workloads/cloneset.ts) and the controller's rules (rules/cloneset*.ts) read, in
// a module of its own so that neither imports the other for it.
import type { KubeObject } from '../types';
import { at, groupVersion, strAt } from './access';
import { ROLLING_UPDATE } from './base';

/** Whether the object has the v1beta1 shape (by apiVersion; by shape when apiVersion is missing). */
export function isCloneSetV1beta1(obj: KubeObject): boolean {
  const { version } = groupVersion(obj);
  if (version === 'v1beta1') return true;
  if (version === 'v1alpha1') return false;
  const type = strAt(obj, 'spec', 'updateStrategy', 'type');
  return type === 'RollingUpdate' || at(obj, 'spec', 'updateStrategy', 'rollingUpdate') !== undefined;
}

/** Path of the object holding partition/maxUnavailable/maxSurge/paused in this shape. */
export function cloneSetRollingPath(obj: KubeObject): string[] {
  return isCloneSetV1beta1(obj) ? ROLLING_UPDATE : ['spec', 'updateStrategy'];
}
