// The Job a job check creates for one step of one release: its manifest with a name of our own, unique per
// (Rollout, canary revision, step, check) and the same on every run — a rerun, or a second pipeline, follows
// the Job already there instead of starting another — labels saying what it checks, an owner reference to
// the Rollout (deleted with it), and the release's variables in every container's environment. Pure.
import type { KubeObject } from '../types';
import { shortHash } from '../builders/hash';
import type { Variables } from './checks';

export const VERIFY_LABELS = {
  rollout: 'verify.kubectl-kruise.io/rollout',
  step: 'verify.kubectl-kruise.io/step',
  check: 'verify.kubectl-kruise.io/check',
  revision: 'verify.kubectl-kruise.io/revision-hash',
} as const;

/** Pod names add 6 characters to a Job's; a label value (job-name) holds 63. */
const JOB_NAME_MAX = 52;

export function verifyJobName(rollout: string, revision: string, step: number, check: string): string {
  const tail = `-${check}-s${step}-${shortHash(`${rollout}/${revision}/${step}/${check}`, 6)}`;
  const head = rollout.slice(0, Math.max(1, JOB_NAME_MAX - tail.length)).replace(/[-.]+$/, '');
  return `${head}${tail}`.slice(0, JOB_NAME_MAX).replace(/[-.]+$/, '');
}

const ENV_OF: Array<[string, keyof Variables]> = [
  ['CANARY_POD_TEMPLATE_HASH', 'canaryHash'],
  ['CANARY_REVISION', 'canaryRevision'],
  ['STABLE_REVISION', 'stableRevision'],
  ['ROLLOUT_NAME', 'rollout'],
  ['ROLLOUT_NAMESPACE', 'namespace'],
  ['ROLLOUT_STEP', 'step'],
];

type Obj = Record<string, unknown>;

export function verifyJob(manifest: Obj, o: { name: string; check: string; vars: Variables; rollout: KubeObject }): KubeObject {
  const job = structuredClone(manifest) as Obj & { metadata?: Obj; spec: Obj & { template: Obj & { metadata?: Obj; spec: Obj } } };
  const meta = { ...(job.metadata ?? {}) } as Obj;
  for (const k of ['generateName', 'resourceVersion', 'uid', 'creationTimestamp', 'namespace', 'ownerReferences', 'managedFields']) delete meta[k];
  const labels: Record<string, string> = {
    ...((meta.labels as Record<string, string> | undefined) ?? {}),
    [VERIFY_LABELS.rollout]: o.vars.rollout,
    [VERIFY_LABELS.step]: o.vars.step,
    [VERIFY_LABELS.check]: o.check,
    [VERIFY_LABELS.revision]: shortHash(o.vars.canaryRevision, 10),
  };
  meta.name = o.name;
  meta.labels = labels;
  meta.ownerReferences = [{ apiVersion: o.rollout.apiVersion, kind: 'Rollout', name: o.rollout.metadata.name, uid: o.rollout.metadata.uid }];
  job.metadata = meta;
  const env = ENV_OF.map(([name, key]) => ({ name, value: o.vars[key] }));
  const podSpec = job.spec.template.spec as { containers?: Array<Obj & { env?: Array<{ name: string }> }> };
  for (const c of podSpec.containers ?? []) {
    const own = (c.env ?? []).filter((e) => !ENV_OF.some(([n]) => n === e.name));
    c.env = [...own, ...env];
  }
  return job as unknown as KubeObject;
}
