// Conversion between the served versions of Kruise kinds, as Kruise's conversion
// webhook does it (kruise-semantics §3.2 CloneSet, §6 PersistentPodState). Used by the
// sandbox API server (multi-version CRDs) and by clients that read one shape and write another.
import type { KubeObject } from './types';

/**
 * Returns a copy of `obj` converted to `toApiVersion` (e.g. "apps.kruise.io/v1beta1").
 * Kinds whose versions share a shape only get their apiVersion changed.
 */
export declare function convertKruiseObject(obj: KubeObject, toApiVersion: string): KubeObject;
