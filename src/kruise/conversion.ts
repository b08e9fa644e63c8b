// Conversion between the served versions of Kruise kinds, as Kruise's conversion webhook does it
// (apis/apps/v1alpha1/*_conversion.go, apis/policy/v1alpha1/podunavailablebudget_conversion.go; v1beta1
// is the hub). Used by the sandbox API server (multi-version CRDs) and by clients that read one shape
// and write another. One module per kind in ./conversions; kinds not listed there (ImagePullJob,
// ImageListPullJob, BroadcastJob, NodeImage, Advanced StatefulSet) only get their apiVersion changed.
import type { KubeObject } from './types';
import { splitApiVersion } from './api-version';
import { ConversionError, type KindConversion } from './conversions/fields';
import { cloneSetConversion } from './conversions/cloneset';
import { crrConversion } from './conversions/crr';
import { pubConversion } from './conversions/pub';
import { unitedDeploymentConversion } from './conversions/uniteddeployment';
import { workloadSpreadConversion } from './conversions/workloadspread';
import { resourceDistributionConversion } from './conversions/resourcedistribution';
import { persistentPodStateConversion } from './conversions/pps';
import { daemonSetConversion } from './conversions/daemonset';
import { advancedCronJobConversion } from './conversions/advancedcronjob';
import { sidecarSetConversion } from './conversions/sidecarset';

export { ConversionError };
export { EXCLUDE_PREPARING_DELETE_LABEL } from './conversions/cloneset';

/** The groups whose kinds Kruise's webhook converts. */
export const KRUISE_CONVERTED_GROUPS: ReadonlySet<string> = new Set(['apps.kruise.io', 'policy.kruise.io']);

const CONVERSIONS: Record<string, KindConversion> = {
  'apps.kruise.io/CloneSet': cloneSetConversion,
  'apps.kruise.io/ContainerRecreateRequest': crrConversion,
  'apps.kruise.io/UnitedDeployment': unitedDeploymentConversion,
  'apps.kruise.io/WorkloadSpread': workloadSpreadConversion,
  'apps.kruise.io/ResourceDistribution': resourceDistributionConversion,
  'apps.kruise.io/PersistentPodState': persistentPodStateConversion,
  'apps.kruise.io/DaemonSet': daemonSetConversion,
  'apps.kruise.io/AdvancedCronJob': advancedCronJobConversion,
  'apps.kruise.io/SidecarSet': sidecarSetConversion,
  'policy.kruise.io/PodUnavailableBudget': pubConversion,
};

/**
 * Returns a copy of `obj` converted to `toApiVersion` (e.g. "apps.kruise.io/v1beta1"); never mutates
 * `obj`. Throws ConversionError across groups, to a malformed apiVersion, or when Kruise's own
 * conversion fails (a PodUnavailableBudget annotation it cannot parse, an ImageListPullJob template
 * asked for in v1alpha1).
 */
export function convertKruiseObject(obj: KubeObject, toApiVersion: string): KubeObject {
  const from = splitApiVersion(obj.apiVersion);
  const to = splitApiVersion(toApiVersion);
  if (!to.version) throw new ConversionError(`invalid apiVersion "${toApiVersion}"`);
  if (obj.apiVersion && from.group !== to.group) {
    throw new ConversionError(`cannot convert ${obj.kind ?? 'object'} from ${obj.apiVersion} to ${toApiVersion}: different API groups`);
  }
  const copy = structuredClone(obj);
  copy.apiVersion = toApiVersion;
  const conversion = CONVERSIONS[`${to.group}/${obj.kind ?? ''}`];
  if (!conversion || from.version === to.version || !obj.apiVersion) return copy;
  if (from.version === 'v1alpha1' && to.version === 'v1beta1') return conversion.toV1beta1(copy);
  if (from.version === 'v1beta1' && to.version === 'v1alpha1') return conversion.toV1alpha1(copy);
  return copy;
}
