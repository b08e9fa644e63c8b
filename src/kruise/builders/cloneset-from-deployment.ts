// A CloneSet made from a Deployment (`migrate`): the same selector, labels, pod template,
// minReadySeconds, revision history and progress deadline, its rolling update mapped onto the
// CloneSet's (recreate pods, as a Deployment does), in the shape of the served version. What a
// CloneSet cannot do the Deployment's way is a problem (the command refuses, nothing written).
//
// kruise-tools (pkg/conversion/cloneset_convertion.go, DeploymentToCloneSet) copies the same spec
// fields but also the Deployment's finalizers and every annotation (its revision number, kubectl's
// last-applied configuration), and its replicas; here those stay with the Deployment.
import type { KubeObject } from '../types';
import { convertKruiseObject } from '../conversion';
import { labelSelectorString, type LabelSelector } from '../selectors';
import { CLONESET_INSTANCE_ID_LABEL, LIFECYCLE_STATE_LABEL } from '../rules/cloneset';
import { POD_TEMPLATE_HASH_LABEL, REVISION_HASH_LABEL } from '../rules/revisions';
import { MIGRATION_ANNOTATION, MIGRATION_TARGET_ANNOTATION } from '../plans/migrate';

/** Labels a CloneSet writes on its own pods: a selector that requires them would disown its pods. */
const CLONESET_POD_LABELS = [REVISION_HASH_LABEL, POD_TEMPLATE_HASH_LABEL, CLONESET_INSTANCE_ID_LABEL, LIFECYCLE_STATE_LABEL];

/** Deployment annotations that describe the Deployment itself, not its workload. */
function keepAnnotation(key: string): boolean {
  if (key === MIGRATION_ANNOTATION || key === MIGRATION_TARGET_ANNOTATION) return false;
  if (key === 'kubectl.kubernetes.io/last-applied-configuration') return false;
  return !key.startsWith('deployment.kubernetes.io/') && !key.startsWith('rollouts.kruise.io/');
}

export interface CloneSetFromDeploymentInput {
  deployment: KubeObject;
  name: string;
  /** The served CloneSet version: "apps.kruise.io/v1alpha1" or "apps.kruise.io/v1beta1". */
  apiVersion: string;
  replicas: number;
  /** The migration record (MIGRATION_ANNOTATION). */
  record: string;
  /** Whether the cluster's CloneSet has spec.progressDeadlineSeconds (Kruise >= 1.9). */
  progressDeadline: boolean;
}

export interface CloneSetConversion {
  /** Present when there is no problem. */
  cloneSet?: KubeObject;
  /** Why the Deployment cannot become a CloneSet (each names the field). */
  problems: string[];
  /** What was mapped rather than copied, one line each. */
  notes: string[];
}

interface DeploymentSpecShape {
  replicas?: number;
  selector?: LabelSelector;
  template?: { metadata?: Record<string, unknown>; spec?: Record<string, unknown> };
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  paused?: boolean;
}

/** The keys a label selector requires something of (matchLabels and matchExpressions). */
function selectorKeys(sel: LabelSelector): string[] {
  return [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((e) => e.key)];
}

export function cloneSetFromDeployment(input: CloneSetFromDeploymentInput): CloneSetConversion {
  const { deployment } = input;
  const src = `deployment/${deployment.metadata.name ?? ''}`;
  const spec = (deployment.spec ?? {}) as DeploymentSpecShape;
  const problems: string[] = [];
  const notes: string[] = [];
  if (!spec.selector || labelSelectorString(spec.selector) === '') problems.push(`${src} has an empty selector: a CloneSet needs one`);
  if (!spec.template?.spec) problems.push(`${src} has no pod template`);
  for (const key of spec.selector ? selectorKeys(spec.selector) : []) {
    if (CLONESET_POD_LABELS.includes(key)) {
      problems.push(`the selector of ${src} uses the label "${key}", which a CloneSet sets on its pods itself: its pods would not match its own selector`);
    }
  }
  if (problems.length > 0) return { problems, notes };

  const updateStrategy: Record<string, unknown> = { type: 'ReCreate' };
  if (spec.strategy?.type === 'Recreate') {
    // A CloneSet has no "stop every pod, then start the new ones": the nearest is replacing all at once.
    updateStrategy.maxUnavailable = '100%';
    updateStrategy.maxSurge = 0;
    notes.push(`strategy Recreate: the CloneSet replaces every pod at once on a template change (maxUnavailable 100%, maxSurge 0), new pods may start before the old ones have stopped`);
  } else {
    // The API server defaults both to 25% (apps/v1 SetDefaults_Deployment); a CloneSet's defaults differ.
    updateStrategy.maxUnavailable = spec.strategy?.rollingUpdate?.maxUnavailable ?? '25%';
    updateStrategy.maxSurge = spec.strategy?.rollingUpdate?.maxSurge ?? '25%';
  }
  if (spec.paused) {
    updateStrategy.paused = true;
    notes.push(`${src} is paused: so is the CloneSet's update strategy (scaling goes on; resume it with rollout resume)`);
  }

  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(deployment.metadata.annotations ?? {})) if (keepAnnotation(k)) annotations[k] = v;
  annotations[MIGRATION_ANNOTATION] = input.record;
  const labels = deployment.metadata.labels;
  const cloneSetSpec: Record<string, unknown> = {
    replicas: input.replicas,
    selector: structuredClone(spec.selector),
    template: structuredClone(spec.template),
    updateStrategy,
  };
  if (spec.minReadySeconds !== undefined) cloneSetSpec.minReadySeconds = spec.minReadySeconds;
  if (spec.revisionHistoryLimit !== undefined) cloneSetSpec.revisionHistoryLimit = spec.revisionHistoryLimit;
  if (spec.progressDeadlineSeconds !== undefined) {
    if (input.progressDeadline) cloneSetSpec.progressDeadlineSeconds = spec.progressDeadlineSeconds;
    else notes.push(`progressDeadlineSeconds (${spec.progressDeadlineSeconds}) left out: this cluster's CloneSet has no such field (Kruise < 1.9)`);
  }
  const v1alpha1: KubeObject = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: {
      name: input.name,
      ...(deployment.metadata.namespace ? { namespace: deployment.metadata.namespace } : {}),
      ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
      annotations,
    },
    spec: cloneSetSpec,
  };
  return { cloneSet: convertKruiseObject(v1alpha1, input.apiVersion), problems, notes };
}
