// Shared steps of the Kruise Rollout (rollouts.kruise.io) e2e tests on the real CRDs of ../shared
// (kruise v1.9.0 + a kruise-rollout release): start the sandbox with them, apply the fixtures of
// test/fixtures/rollout-kruise with real kubectl, change an image and approve a step as a person would
// with kubectl, and read the outcome back through the API.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { podsOf } from './rollout-helpers';

const SHARED = resolve(REPO_ROOT, '..', 'shared');
export const KRUISE_CRDS = join(SHARED, 'kruise-crds', 'v1.9.0');
export const ROLLOUT_CRDS = (release: string): string => join(SHARED, 'kruise-rollout-crds', release);
export const ROLLOUT_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'rollout-kruise');

/** Whether ../shared holds Kruise's CRDs and those of every Kruise Rollout release named. */
export const haveCrds = (...releases: string[]): boolean => existsSync(KRUISE_CRDS) && releases.every((r) => existsSync(ROLLOUT_CRDS(r)));

/** A sandbox serving Kruise's v1.9.0 CRDs and the Kruise Rollout `release`'s. */
export function startWithRolloutCrds(release: string, extraArgs: string[] = []): Promise<Sandbox> {
  return startSandbox({ readyDelay: '50ms', extraArgs: ['--crds', KRUISE_CRDS, '--crds', ROLLOUT_CRDS(release), ...extraArgs] });
}

/** `kubectl apply -f` of each file of test/fixtures/rollout-kruise, in order. */
export async function applyRolloutFixtures(sb: Sandbox, files: string[]): Promise<void> {
  for (const f of files) {
    const res = await kubectl(['apply', '-f', join(ROLLOUT_FIXTURES, f)], sb.kubeconfig);
    assert.equal(res.code, 0, res.stderr);
  }
}

export interface Cond {
  type: string;
  status: string;
  reason: string;
  message?: string;
}

export const cond = (ro: { status?: { conditions?: Cond[] } }, type: string): Cond | undefined => ro.status?.conditions?.find((c) => c.type === type);

/** `kubectl patch TARGET` of the first container's image (a JSON patch, as for a CloneSet). */
export async function patchImage(sb: Sandbox, target: string[], image: string): Promise<void> {
  const res = await kubectl(['patch', ...target, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])], sb.kubeconfig);
  assert.equal(res.code, 0, res.stderr);
}

/** A person's approval of the step waiting: the sub-status's currentStepState set to StepReady through the status subresource. */
export async function approveStep(sb: Sandbox, rollout: string, sub: 'canaryStatus' | 'blueGreenStatus' = 'canaryStatus'): Promise<void> {
  const res = await kubectl(['patch', 'rollout', rollout, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { [sub]: { currentStepState: 'StepReady' } } })], sb.kubeconfig);
  assert.equal(res.code, 0, res.stderr);
}

/** Waits for the release to end (completed or cancelled): phase Healthy, Progressing reason Completed; returns the Rollout. */
export function waitReleaseEnded(what: string, rollout: () => Promise<any>, timeoutMs = 30_000): Promise<any> {
  return waitUntil(
    what,
    async () => {
      const r = await rollout();
      return r.status?.phase === 'Healthy' && cond(r, 'Progressing')?.reason === 'Completed' ? r : undefined;
    },
    timeoutMs,
  );
}

/** Live pods (not being deleted) labelled app=APP, counted by their first container's image. */
export async function podImages(sb: Sandbox, app: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of await podsOf(sb, `app=${app}`)) out[p.spec.containers[0].image] = (out[p.spec.containers[0].image] ?? 0) + 1;
  return out;
}
