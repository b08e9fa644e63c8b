// The annotations Kruise Rollout master keeps on a native (apps/v1) DaemonSet it releases
// (openkruise/rollouts master pkg/util/constant.go, parse_utils.go): the DaemonSet has no partition, so
// the release plan's partition and revisions ride on annotations, as small JSON objects whose empty
// fields are left out (Go's `omitempty`).
import type { KubeObject } from '../types';
import { isObj } from '../workloads/access';

/** The canary and stable revision hashes the Rollout controller read from the ControllerRevisions. */
export const DAEMONSET_REVISION_ANNOTATION = 'rollouts.kruise.io/daemonset-revision';
/** The batch's partition (pods kept at the old revision) and the revision the batch updates to. */
export const DAEMONSET_ADVANCED_CONTROL_ANNOTATION = 'rollouts.kruise.io/daemonset-advanced-control';
/** spec.updateStrategy.type before the workload webhook switched the DaemonSet to OnDelete. */
export const DAEMONSET_ORIGINAL_UPDATE_STRATEGY_ANNOTATION = 'rollouts.kruise.io/daemonset-original-update-strategy';

function jsonFields(obj: KubeObject, annotation: string): Record<string, unknown> {
  const raw = obj.metadata.annotations?.[annotation];
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObj(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The JSON of a struct with `omitempty` string fields, in declaration order. */
function omitEmpty(fields: Array<[string, string]>): string {
  return JSON.stringify(Object.fromEntries(fields.filter(([, v]) => v !== '')));
}

/** ParseDaemonSetRevision: '' for each revision the annotation lacks (or when it is not JSON). */
export function daemonSetRevisions(obj: KubeObject): { canary: string; stable: string } {
  const f = jsonFields(obj, DAEMONSET_REVISION_ANNOTATION);
  return { canary: text(f['canary-revision']), stable: text(f['stable-revision']) };
}

/** SetDaemonSetRevision's value. */
export function daemonSetRevisionValue(canary: string, stable: string): string {
  return omitEmpty([
    ['canary-revision', canary],
    ['stable-revision', stable],
  ]);
}

/** ParseDaemonSetAdvancedControl: the partition (a decimal string) and the batch revision, '' when absent. */
export function daemonSetAdvancedControl(obj: KubeObject): { partition: string; batchRevision: string } {
  const f = jsonFields(obj, DAEMONSET_ADVANCED_CONTROL_ANNOTATION);
  return { partition: text(f.partition), batchRevision: text(f['batch-revision']) };
}

/** SetDaemonSetAdvancedControl's value. */
export function daemonSetAdvancedControlValue(partition: string, batchRevision: string): string {
  return omitEmpty([
    ['partition', partition],
    ['batch-revision', batchRevision],
  ]);
}
