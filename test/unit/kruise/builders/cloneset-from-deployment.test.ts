// The CloneSet `migrate` makes from a Deployment (src/kruise/builders/cloneset-from-deployment.ts):
// what is copied, what is mapped, what is refused, in both served shapes, and every object valid
// against the real CRDs of v1.3.0, v1.9.0 and master (../shared/kruise-crds) and Kruise's webhook rules.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { cloneSetFromDeployment, type CloneSetFromDeploymentInput } from '../../../../src/kruise/builders/cloneset-from-deployment';
import { validateCloneSet } from '../../../../src/kruise/rules/cloneset-webhook';
import { MIGRATION_ANNOTATION } from '../../../../src/kruise/plans/migrate';
import type { KubeObject } from '../../../../src/kruise/types';
import { crdSchema, servedVersions, validate } from './crd-schema';

const FIXTURE = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'migrate', 'deployment-web.yaml');
const deployment = (): KubeObject => {
  const d = parse(readFileSync(FIXTURE, 'utf8')) as KubeObject;
  // As the API server stores it: namespace, uid, defaults.
  d.metadata = { ...d.metadata, namespace: 'shop', uid: 'd-1', generation: 3, resourceVersion: '812', annotations: { ...d.metadata.annotations, 'deployment.kubernetes.io/revision': '3' } };
  return d;
};

const input = (over: Partial<CloneSetFromDeploymentInput> = {}): CloneSetFromDeploymentInput => ({
  deployment: deployment(),
  name: 'web',
  apiVersion: 'apps.kruise.io/v1alpha1',
  replicas: 0,
  record: '{"from":"web"}',
  progressDeadline: true,
  ...over,
});

type Spec = Record<string, unknown> & { updateStrategy: Record<string, unknown> };

describe('cloneSetFromDeployment', () => {
  it('v1alpha1: selector, labels, template, minReadySeconds, history and deadline copied; the rolling update mapped onto ReCreate', () => {
    const { cloneSet, problems, notes } = cloneSetFromDeployment(input());
    assert.deepEqual(problems, []);
    assert.deepEqual(notes, []);
    const d = deployment();
    const spec = cloneSet!.spec as Spec;
    assert.equal(cloneSet!.apiVersion, 'apps.kruise.io/v1alpha1');
    assert.equal(cloneSet!.kind, 'CloneSet');
    // No finalizers: they stay with the Deployment (kruise-tools copies them).
    assert.deepEqual(cloneSet!.metadata, {
      name: 'web',
      namespace: 'shop',
      labels: { app: 'web', team: 'storefront' },
      // The Deployment's own bookkeeping (revision, kubectl's last-applied) stays with it.
      annotations: { 'example.com/owner': 'storefront-oncall', [MIGRATION_ANNOTATION]: '{"from":"web"}' },
    });
    const ds = d.spec as Record<string, unknown>;
    assert.deepEqual(spec.selector, ds.selector);
    assert.deepEqual(spec.template, ds.template);
    assert.equal(spec.replicas, 0);
    assert.equal(spec.minReadySeconds, 1);
    assert.equal(spec.revisionHistoryLimit, 5);
    assert.equal(spec.progressDeadlineSeconds, 300);
    assert.deepEqual(spec.updateStrategy, { type: 'ReCreate', maxUnavailable: 0, maxSurge: 2 });
  });

  it('v1beta1 (served on master): RollingUpdate with podUpdatePolicy ReCreate and the limits under rollingUpdate', () => {
    const { cloneSet } = cloneSetFromDeployment(input({ apiVersion: 'apps.kruise.io/v1beta1' }));
    assert.equal(cloneSet!.apiVersion, 'apps.kruise.io/v1beta1');
    assert.deepEqual((cloneSet!.spec as Spec).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'ReCreate', maxUnavailable: 0, maxSurge: 2 } });
  });

  it('a Deployment stored without rollingUpdate values keeps the apps/v1 defaults (25%/25%), not the CloneSet ones (20%/0)', () => {
    const d = deployment();
    (d.spec as { strategy?: unknown }).strategy = { type: 'RollingUpdate' };
    assert.deepEqual((cloneSetFromDeployment(input({ deployment: d })).cloneSet!.spec as Spec).updateStrategy, { type: 'ReCreate', maxUnavailable: '25%', maxSurge: '25%' });
  });

  it('strategy Recreate: every pod replaced at once (maxUnavailable 100%, maxSurge 0), said in a note', () => {
    const d = deployment();
    (d.spec as { strategy?: unknown }).strategy = { type: 'Recreate' };
    const { cloneSet, notes } = cloneSetFromDeployment(input({ deployment: d }));
    assert.deepEqual((cloneSet!.spec as Spec).updateStrategy, { type: 'ReCreate', maxUnavailable: '100%', maxSurge: 0 });
    assert.match(notes.join('\n'), /strategy Recreate: the CloneSet replaces every pod at once/);
  });

  it('a paused Deployment: the CloneSet update strategy is paused too (kruise-tools does the same), said in a note', () => {
    const d = deployment();
    (d.spec as { paused?: boolean }).paused = true;
    const { cloneSet, notes } = cloneSetFromDeployment(input({ deployment: d }));
    assert.equal((cloneSet!.spec as Spec).updateStrategy.paused, true);
    assert.match(notes.join('\n'), /deployment\/web is paused/);
  });

  it('progressDeadlineSeconds left out (with a note) where the CloneSet has no such field (Kruise < 1.9)', () => {
    const { cloneSet, notes } = cloneSetFromDeployment(input({ progressDeadline: false }));
    assert.equal((cloneSet!.spec as Spec).progressDeadlineSeconds, undefined);
    assert.match(notes.join('\n'), /progressDeadlineSeconds \(300\) left out/);
  });

  it('refused: a selector on a label the CloneSet writes on its own pods, an empty selector, no template', () => {
    for (const key of ['pod-template-hash', 'controller-revision-hash', 'apps.kruise.io/cloneset-instance-id']) {
      const d = deployment();
      const spec = d.spec as { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } };
      spec.selector.matchLabels[key] = 'abc';
      spec.template.metadata.labels[key] = 'abc';
      const r = cloneSetFromDeployment(input({ deployment: d }));
      assert.equal(r.cloneSet, undefined);
      assert.match(r.problems.join('\n'), new RegExp(`the selector of deployment/web uses the label "${key}", which a CloneSet sets on its pods itself`));
    }
    const expr = deployment();
    (expr.spec as { selector: unknown }).selector = { matchExpressions: [{ key: 'pod-template-hash', operator: 'Exists' }] };
    assert.equal(cloneSetFromDeployment(input({ deployment: expr })).problems.length, 1);
    const empty = deployment();
    (empty.spec as { selector: unknown }).selector = {};
    assert.match(cloneSetFromDeployment(input({ deployment: empty })).problems.join('\n'), /empty selector/);
  });

  it("passes Kruise's CloneSet webhook rules at 0 replicas and at the total", () => {
    for (const apiVersion of ['apps.kruise.io/v1alpha1', 'apps.kruise.io/v1beta1']) {
      for (const replicas of [0, 6, 1]) {
        const { cloneSet } = cloneSetFromDeployment(input({ apiVersion, replicas }));
        assert.deepEqual(validateCloneSet(cloneSet!), [], `${apiVersion} at ${replicas}`);
      }
    }
  });

  for (const release of ['v1.3.0', 'v1.8.4', 'v1.9.0', 'master']) {
    it(`validates against the ${release} CRD schema of every served CloneSet version`, () => {
      const versions = servedVersions(release, 'clonesets');
      assert.ok(versions.length > 0, `the ${release} CRDs are there`);
      for (const version of versions) {
        const schema = crdSchema(release, 'clonesets', version)!;
        // What the CLI decides from the CRD: the field is there or it is left out.
        const progressDeadline = JSON.stringify(schema).includes('"progressDeadlineSeconds"');
        for (const strategy of [undefined, { type: 'Recreate' }]) {
          const d = deployment();
          if (strategy) (d.spec as { strategy?: unknown }).strategy = strategy;
          const { cloneSet } = cloneSetFromDeployment(input({ deployment: d, apiVersion: `apps.kruise.io/${version}`, progressDeadline, replicas: 6 }));
          assert.deepEqual(validate(schema, cloneSet), [], `${release} ${version} ${strategy?.type ?? 'RollingUpdate'}`);
        }
      }
    });
  }
});
