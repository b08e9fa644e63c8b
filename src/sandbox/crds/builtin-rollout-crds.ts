// Minimal CustomResourceDefinitions of Kruise Rollout's kinds (group rollouts.kruise.io), per
// imitated release, for a sandbox whose --crds folders hold none: served/storage versions, names,
// the status subresource and printer columns as in the real CRDs of v0.4.4, v0.6.2 and master
// (../shared/kruise-rollout-crds), with a permissive schema. Written by hand, not copied upstream.
import type { KubeObject } from '../../kruise/types';
import { PERMISSIVE_SCHEMA } from './builtin-crds';

export type RolloutRelease = 'v0.4' | 'v0.6' | 'master';

export const ROLLOUT_RELEASES: RolloutRelease[] = ['v0.4', 'v0.6', 'master'];
export const ROLLOUT_GROUP = 'rollouts.kruise.io';

interface Column {
  name: string;
  type: string;
  jsonPath: string;
}

interface RolloutKindSpec {
  plural: string;
  kind: string;
  /** Served versions per release; "*" marks the storage version. */
  versions: Record<RolloutRelease, string[]>;
  /** Printer columns per version (none: the CRD declares none). */
  columns: (version: string) => Column[];
}

const AGE: Column = { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' };

const KINDS: RolloutKindSpec[] = [
  {
    plural: 'rollouts',
    kind: 'Rollout',
    // v1beta1 became the storage version in v0.5; v1alpha1 stays served.
    versions: { 'v0.4': ['v1alpha1*'], 'v0.6': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
    // v1beta1 mirrors the step index/state at the top of status, and its columns read them there.
    columns: (v) => {
      const step = v === 'v1beta1' ? '.status' : '.status.canaryStatus';
      return [
        { name: 'STATUS', type: 'string', jsonPath: '.status.phase' },
        { name: 'CANARY_STEP', type: 'integer', jsonPath: `${step}.currentStepIndex` },
        { name: 'CANARY_STATE', type: 'string', jsonPath: `${step}.currentStepState` },
        { name: 'MESSAGE', type: 'string', jsonPath: '.status.message' },
        AGE,
      ];
    },
  },
  {
    plural: 'batchreleases',
    kind: 'BatchRelease',
    versions: { 'v0.4': ['v1alpha1*'], 'v0.6': ['v1alpha1', 'v1beta1*'], master: ['v1alpha1', 'v1beta1*'] },
    columns: () => [
      { name: 'KIND', type: 'string', jsonPath: '.spec.targetReference.workloadRef.kind' },
      { name: 'PHASE', type: 'string', jsonPath: '.status.phase' },
      { name: 'BATCH', type: 'integer', jsonPath: '.status.canaryStatus.currentBatch' },
      { name: 'BATCH-STATE', type: 'string', jsonPath: '.status.canaryStatus.batchState' },
      AGE,
    ],
  },
  {
    plural: 'trafficroutings',
    kind: 'TrafficRouting',
    versions: { 'v0.4': ['v1alpha1*'], 'v0.6': ['v1alpha1*'], master: ['v1alpha1*'] },
    columns: () => [
      { name: 'STATUS', type: 'string', jsonPath: '.status.phase' },
      { name: 'MESSAGE', type: 'string', jsonPath: '.status.message' },
      AGE,
    ],
  },
  {
    plural: 'rollouthistories',
    kind: 'RolloutHistory',
    versions: { 'v0.4': ['v1alpha1*'], 'v0.6': ['v1alpha1*'], master: ['v1alpha1*'] },
    columns: () => [],
  },
];

/** Normalises "v0.6", "0.6.2", "v0.4.4", "main" → "v0.6" / "v0.4" / "master"; undefined when unknown. */
export function parseRolloutRelease(value: string): RolloutRelease | undefined {
  if (value === 'master' || value === 'main') return 'master';
  const m = value.match(/^v?0\.(\d+)(\.\d+)?$/);
  if (!m) return undefined;
  if (m[1] === '4') return 'v0.4';
  if (m[1] === '6') return 'v0.6';
  return undefined;
}

/** The Rollout versions a release serves, storage marked with "*" (for contradiction checks against --crds). */
export function rolloutVersionsOf(release: RolloutRelease): string[] {
  return KINDS[0]!.versions[release];
}

export function builtinRolloutCrds(release: RolloutRelease): KubeObject[] {
  return KINDS.map((k) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${ROLLOUT_GROUP}`, annotations: { 'kruise-sandbox/builtin': `kruise-rollout-${release}` } },
    spec: {
      group: ROLLOUT_GROUP,
      scope: 'Namespaced',
      names: { plural: k.plural, singular: k.kind.toLowerCase(), kind: k.kind, listKind: `${k.kind}List` },
      versions: k.versions[release].map((v) => {
        const name = v.replace('*', '');
        const columns = k.columns(name);
        return {
          name,
          served: true,
          storage: v.endsWith('*'),
          schema: { openAPIV3Schema: PERMISSIVE_SCHEMA },
          subresources: { status: {} },
          ...(columns.length ? { additionalPrinterColumns: columns } : {}),
        };
      }),
    },
  }));
}
