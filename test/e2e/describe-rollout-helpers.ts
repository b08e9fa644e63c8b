// Shared steps of the describe/get rollout e2e tests: a CloneSet "web" under Rollout "rollout-web",
// the CloneSet moved by partition and the Rollout's status written through the API the way Kruise
// Rollout's controller writes it (openkruise/rollouts v0.6.2 rollout_canary.go / rollout_status.go).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { kubectl } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';
import { applyFixture, getObject, PATHS, waitSettled } from './rollout-helpers';
import { haveCrds, ROLLOUT_FIXTURES } from './rollout-kruise-helpers';

export const haveRealCrds = haveCrds('v0.6.2', 'v0.4.4');

export const rolloutPath = (version: string, name = 'rollout-web', ns = 'default'): string => `/apis/rollouts.kruise.io/${version}/namespaces/${ns}/rollouts/${name}`;

export interface CanaryRevisions {
  stable: string;
  canary: string;
  generation: number;
}

/** CloneSet web (8 pods, nginx:1.25) settled. */
export async function setupWeb(sb: Sandbox): Promise<void> {
  await applyFixture(sb, 'cloneset-web.yaml');
  await waitSettled(sb, PATHS.cloneset());
}

/**
 * The Rollout of `fixture` (annotated for the sandbox's controller to leave it alone), applied once the
 * canary pods are out: Kruise Rollout's workload webhook (simulated too) would otherwise hold the
 * CloneSet's new revision for a controller that does not run here.
 */
export async function applyRollout(sb: Sandbox, fixture = 'describe-rollout-web-v1beta1.yaml'): Promise<void> {
  const r = await kubectl(['apply', '-f', join(ROLLOUT_FIXTURES, fixture)], sb.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
}

/** A new image held back by a partition so that `updated` pods take it (what the BatchRelease does). */
export async function releaseCanaryPods(sb: Sandbox, image: string, updated: number): Promise<CanaryRevisions> {
  const before = await getObject(sb, PATHS.cloneset());
  const stable = before.status.currentRevision ?? before.status.updateRevision;
  const res = await sb.api('PATCH', PATHS.cloneset(), { spec: { updateStrategy: { partition: before.spec.replicas - updated }, template: { spec: { containers: [{ name: 'app', image }] } } } }, { contentType: 'application/merge-patch+json' });
  assert.equal(res.status, 200, res.text);
  const cs = await waitUntil('canary pods updated and ready', async () => {
    const o = (await sb.api('GET', PATHS.cloneset())).body;
    const s = o.status ?? {};
    return s.observedGeneration === o.metadata.generation && s.updatedReplicas === updated && s.updatedReadyReplicas === updated && s.readyReplicas === o.spec.replicas ? o : undefined;
  }, 20_000);
  return { stable, canary: cs.status.updateRevision, generation: cs.metadata.generation };
}

/**
 * CloneSet web's canary out (2 of 8 pods on nginx:1.26) under Rollout rollout-web (v1beta1), its status
 * at step 1 waiting for approval: where the describe tests start.
 */
export async function webCanaryPausedAtStep1(sb: Sandbox): Promise<CanaryRevisions> {
  await setupWeb(sb);
  const rev = await releaseCanaryPods(sb, 'nginx:1.26', 2);
  await applyRollout(sb);
  await writeRolloutStatus(sb, 'v1beta1', rev, { step: 1, state: 'StepPaused', canaryReplicas: 2 });
  return rev;
}

export interface StepStatus {
  step: number;
  state: 'StepUpgrade' | 'StepTrafficRouting' | 'StepPaused' | 'StepReady' | 'Completed';
  canaryReplicas: number;
  /** ISO time the step state was entered (a timed pause counts from it). */
  since?: string;
  phase?: string;
  message?: string;
  succeeded?: 'True' | 'False';
  progressingReason?: string;
}

const hashOf = (revision: string): string => revision.slice(revision.lastIndexOf('-') + 1);

/** Writes status as the v0.6.2 controller does (sub-status plus v1beta1 top mirrors); returns the Rollout. */
export async function writeRolloutStatus(sb: Sandbox, version: 'v1alpha1' | 'v1beta1', rev: CanaryRevisions, st: StepStatus, name = 'rollout-web'): Promise<any> {
  const ro = await getObject(sb, rolloutPath(version, name));
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const since = st.since ?? now;
  const message = st.message ?? `Rollout is in step(${st.step}/3), and ${st.state === 'StepPaused' ? 'you need manually confirm to enter the next step' : 'upgrade workload to new version'}`;
  const canaryStatus: Record<string, unknown> = {
    observedWorkloadGeneration: rev.generation,
    observedRolloutID: '',
    rolloutHash: 'h',
    // CloneSet: the hash suffixes of currentRevision / updateRevision (pkg/util/controller_finder.go getKruiseCloneSet).
    stableRevision: hashOf(rev.stable),
    canaryRevision: hashOf(rev.canary),
    podTemplateHash: hashOf(rev.canary),
    canaryReplicas: st.canaryReplicas,
    canaryReadyReplicas: st.canaryReplicas,
    currentStepIndex: st.step,
    currentStepState: st.state,
    message,
    lastUpdateTime: since,
  };
  if (version === 'v1beta1') Object.assign(canaryStatus, { nextStepIndex: Math.min(st.step + 1, 3), finalisingStep: '' });
  const conditions: Array<Record<string, string>> = [
    { type: 'Progressing', status: st.succeeded ? 'False' : 'True', reason: st.progressingReason ?? (st.succeeded === 'True' ? 'Completed' : st.succeeded === 'False' ? 'Cancelled' : 'InRolling'), message: 'Rollout is in Progressing', lastUpdateTime: now, lastTransitionTime: now },
  ];
  if (st.succeeded) conditions.push({ type: 'Succeeded', status: st.succeeded, reason: st.succeeded === 'True' ? 'Completed' : 'Cancelled', message: '', lastUpdateTime: now, lastTransitionTime: now });
  const status: Record<string, unknown> = { observedGeneration: ro.metadata.generation, phase: st.phase ?? 'Progressing', message, canaryStatus, conditions };
  if (version === 'v1beta1') Object.assign(status, { currentStepIndex: st.step, currentStepState: st.state });
  const res = await sb.api('PATCH', `${rolloutPath(version, name)}/status`, { status }, { contentType: 'application/merge-patch+json' });
  assert.equal(res.status, 200, res.text);
  return res.body;
}
