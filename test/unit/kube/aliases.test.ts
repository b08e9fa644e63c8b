import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersionPriority, lookupType } from '../../../src/kube/aliases';

function target(input: string): string | undefined {
  const ref = lookupType(input);
  if (!ref) return undefined;
  return `${ref.known.resource}.${ref.known.group || 'core'}${ref.pinnedVersion ? `@${ref.pinnedVersion}` : ''}`;
}

test('every Kruise alias of the contract', () => {
  const table: Record<string, string> = {
    cloneset: 'clonesets.apps.kruise.io',
    clonesets: 'clonesets.apps.kruise.io',
    clone: 'clonesets.apps.kruise.io',
    CloneSet: 'clonesets.apps.kruise.io',
    'clonesets.apps.kruise.io': 'clonesets.apps.kruise.io',
    asts: 'statefulsets.apps.kruise.io',
    advancedstatefulset: 'statefulsets.apps.kruise.io',
    'statefulsets.apps.kruise.io': 'statefulsets.apps.kruise.io',
    'sts.apps.kruise.io': 'statefulsets.apps.kruise.io',
    ads: 'daemonsets.apps.kruise.io',
    advanceddaemonset: 'daemonsets.apps.kruise.io',
    'daemonsets.apps.kruise.io': 'daemonsets.apps.kruise.io',
    crr: 'containerrecreaterequests.apps.kruise.io',
    containerrecreaterequest: 'containerrecreaterequests.apps.kruise.io',
    containerrecreaterequests: 'containerrecreaterequests.apps.kruise.io',
    imagepulljob: 'imagepulljobs.apps.kruise.io',
    imagepulljobs: 'imagepulljobs.apps.kruise.io',
    imagelistpulljob: 'imagelistpulljobs.apps.kruise.io',
    imagelistpulljobs: 'imagelistpulljobs.apps.kruise.io',
    pps: 'persistentpodstates.apps.kruise.io',
    persistentpodstate: 'persistentpodstates.apps.kruise.io',
    persistentpodstates: 'persistentpodstates.apps.kruise.io',
    sidecarset: 'sidecarsets.apps.kruise.io',
    sidecarsets: 'sidecarsets.apps.kruise.io',
  };
  for (const [input, want] of Object.entries(table)) assert.equal(target(input), want, input);
});

test('native aliases; sts/statefulset/daemonset/ds are the native kinds like in kubectl', () => {
  const table: Record<string, string> = {
    deployment: 'deployments.apps',
    deploy: 'deployments.apps',
    deployments: 'deployments.apps',
    'deployments.apps': 'deployments.apps',
    statefulset: 'statefulsets.apps',
    sts: 'statefulsets.apps',
    statefulsets: 'statefulsets.apps',
    'statefulsets.apps': 'statefulsets.apps',
    daemonset: 'daemonsets.apps',
    ds: 'daemonsets.apps',
    pod: 'pods.core',
    po: 'pods.core',
    pods: 'pods.core',
    replicaset: 'replicasets.apps',
    rs: 'replicasets.apps',
    controllerrevision: 'controllerrevisions.apps',
    controllerrevisions: 'controllerrevisions.apps',
    job: 'jobs.batch',
    jobs: 'jobs.batch',
    cronjob: 'cronjobs.batch',
    cj: 'cronjobs.batch',
    node: 'nodes.core',
    no: 'nodes.core',
    nodes: 'nodes.core',
    configmap: 'configmaps.core',
    cm: 'configmaps.core',
    secret: 'secrets.core',
    secrets: 'secrets.core',
    'jobs.batch': 'jobs.batch',
  };
  for (const [input, want] of Object.entries(table)) assert.equal(target(input), want, input);
});

test('version pinning with a .vN infix', () => {
  assert.equal(target('clonesets.v1beta1.apps.kruise.io'), 'clonesets.apps.kruise.io@v1beta1');
  assert.equal(target('cloneset.v1alpha1.apps.kruise.io'), 'clonesets.apps.kruise.io@v1alpha1');
  assert.equal(target('asts.v1beta1.apps.kruise.io'), 'statefulsets.apps.kruise.io@v1beta1');
  assert.equal(target('deployments.v1.apps'), 'deployments.apps@v1');
  assert.equal(target('pods.v1'), 'pods.core@v1');
  // Known type, unserved version: resolution reports it (not "unknown type").
  assert.equal(target('deployments.v2.apps'), 'deployments.apps@v2');
});

test('unknown spellings are undefined', () => {
  for (const bad of ['foo', 'clonesets.apps', 'clone.kruise.io', 'sts.v1beta1.apps.kruise', '', 'pods.', 'clonesets.v1beta1']) {
    assert.equal(target(bad), undefined, bad);
  }
});

test('version priority: GA > beta > alpha, higher numbers first', () => {
  const sorted = ['v1alpha1', 'v1beta1', 'v1', 'v2beta1', 'v1beta2', 'v2', 'v1alpha2'].sort(compareVersionPriority);
  assert.deepEqual(sorted, ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha2', 'v1alpha1']);
});

test('Kruise Rollout: rollout, rollouts and rollouts.rollouts.kruise.io (no short name: the real CRDs declare none)', () => {
  assert.equal(target('rollout'), 'rollouts.rollouts.kruise.io');
  assert.equal(target('rollouts'), 'rollouts.rollouts.kruise.io');
  assert.equal(target('Rollout'), 'rollouts.rollouts.kruise.io');
  assert.equal(target('rollouts.rollouts.kruise.io'), 'rollouts.rollouts.kruise.io');
  assert.equal(target('rollouts.v1alpha1.rollouts.kruise.io'), 'rollouts.rollouts.kruise.io@v1alpha1');
  assert.equal(target('ro'), undefined);
});
