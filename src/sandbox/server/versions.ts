// Serving one stored object through every served version of its kind. Kruise kinds convert
// through src/kruise/conversion (Kruise's conversion webhook rules), Kruise Rollout kinds through
// src/kruise/rollout-conversion; kinds whose versions share a shape only change apiVersion (kube's
// "None" conversion strategy).
import type { KubeObject } from '../../kruise/types';
import { convertKruiseObject, ConversionError, KRUISE_CONVERTED_GROUPS } from '../../kruise/conversion';
import { convertRolloutObject } from '../../kruise/rollout-conversion';
import { ApiError } from './errors';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './event-versions';
import { groupVersion, type ResourceType } from './resource-types';

/**
 * Returns `obj` in `version` of its kind; the same object when nothing changes. A conversion Kruise's
 * webhook refuses is kube-apiserver's answer to a failed webhook: 500, "conversion webhook for
 * <group>/<version>, Kind=<kind> failed: <the webhook's message>", on reads and writes alike.
 */
export function convertTo(type: ResourceType, obj: KubeObject, version: string): KubeObject {
  const target = groupVersion(type.group, version);
  if (obj.apiVersion === target) return obj;
  if (type.storedAs) return coreEventToEventsV1(obj);
  // Kruise Rollout's own conversion webhook (Rollout v1alpha1 ↔ v1beta1).
  if (type.group === 'rollouts.kruise.io') return convertRolloutObject(obj, version);
  if (!KRUISE_CONVERTED_GROUPS.has(type.group)) return { ...obj, apiVersion: target };
  try {
    return convertKruiseObject(obj, target);
  } catch (err) {
    if (!(err instanceof ConversionError)) throw err;
    throw new ApiError(500, '', `conversion webhook for ${obj.apiVersion ?? target}, Kind=${type.kind} failed: ${err.message}`);
  }
}

/** `obj` (in a served version of its kind) as it is stored: its storage version, or the kind it is stored as. */
export function toStorage(type: ResourceType, obj: KubeObject): KubeObject {
  return type.storedAs ? eventsV1ToCoreEvent(obj) : convertTo(type, obj, type.storageVersion);
}
