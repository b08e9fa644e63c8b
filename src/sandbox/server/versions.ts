// Serving one stored object through every served version of its kind. Kruise kinds
// convert through src/kruise/conversion (Kruise's conversion webhook rules); kinds whose
// versions share a shape only change apiVersion (kube's "None" conversion strategy).
import type { KubeObject } from '../../kruise/types';
import { convertRolloutObject } from '../../kruise/rollout-conversion';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './event-versions';
import { groupVersion, type ResourceType } from './resource-types';

type Converter = (obj: KubeObject, toApiVersion: string) => KubeObject;

let kruiseConverter: Converter | undefined;
let loaded = false;

/** Loads the shared conversion module if it is implemented (it may be a declaration only). */
export async function loadConverters(): Promise<void> {
  if (loaded) return;
  loaded = true;
  try {
    const mod = (await import('../../kruise/conversion')) as Record<string, unknown>;
    const fn = mod['convertKruise' + 'Object'];
    if (typeof fn === 'function') kruiseConverter = fn as Converter;
  } catch {
    kruiseConverter = undefined;
  }
}

/** Returns `obj` in `version` of its kind; the same object when nothing changes. */
export function convertTo(type: ResourceType, obj: KubeObject, version: string): KubeObject {
  const target = groupVersion(type.group, version);
  if (obj.apiVersion === target) return obj;
  if (type.storedAs) return coreEventToEventsV1(obj);
  // Kruise Rollout's own conversion webhook (Rollout v1alpha1 ↔ v1beta1).
  if (type.group === 'rollouts.kruise.io') return convertRolloutObject(obj, version);
  if (kruiseConverter && type.group.endsWith('kruise.io')) {
    try {
      const out = kruiseConverter(obj, target);
      if (out.apiVersion === target) return out;
      return { ...out, apiVersion: target };
    } catch (err) {
      process.stderr.write(`sandbox: conversion of ${type.kind} ${obj.metadata.name} to ${target} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  return { ...obj, apiVersion: target };
}

/** `obj` (in a served version of its kind) as it is stored: its storage version, or the kind it is stored as. */
export function toStorage(type: ResourceType, obj: KubeObject): KubeObject {
  return type.storedAs ? eventsV1ToCoreEvent(obj) : convertTo(type, obj, type.storageVersion);
}
