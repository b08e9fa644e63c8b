// Kruise's validating webhooks on the sandbox, through real kubectl: what Kruise rejects comes
// back as a 422 naming the field as Kruise's webhook words it, what it accepts is stored; and the
// CLI's own pre-check refuses the same writes before sending (exit 2, one error line, no write).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';
import { kubectlOk, summary, waitSettled, writes } from './rollout-helpers';

const fx = (name: string) => join(REPO_ROOT, 'test/fixtures/webhooks', name);
let sb: Sandbox;

before(async () => {
  sb = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms' });
});

after(async () => {
  await sb?.stop();
});

test('kubectl apply: ADS with maxUnavailable 0 and maxSurge 0 → 422 (validateRollingUpdateDaemonSet, daemonset_validation.go)', async () => {
  const r = await kubectl(['apply', '-f', fx('ads-both-zero.yaml')], sb.kubeconfig);
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /DaemonSet "agent" is invalid: spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Required value: cannot be 0 when maxSurge is 0/);
  assert.equal((await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/daemonsets/agent')).status, 404);
});

test('kubectl apply: CloneSet progressDeadlineSeconds not above minReadySeconds → 422 (validation.go, TestValidate "invalid-progressDeadlineSeconds-equals-to-minReadySeconds")', async () => {
  const r = await kubectl(['apply', '-f', fx('cloneset-deadline.yaml')], sb.kubeconfig);
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /CloneSet "api" is invalid: spec\.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds/);
});

test('kubectl apply: OrderedReady ASTS with maxUnavailable 2 → 422; with Parallel it is accepted (validateMaxUnavailableField, statefulset_validation.go)', async () => {
  const r = await kubectl(['apply', '-f', fx('asts-ordered-maxunavailable.yaml')], sb.kubeconfig);
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Invalid value: 2: can only work with Parallel PodManagementPolicyType/);
  const ok = await kubectl(['apply', '-f', '-'], sb.kubeconfig, {
    input: (await import('node:fs')).readFileSync(fx('asts-ordered-maxunavailable.yaml'), 'utf8').replace('podManagementPolicy: OrderedReady', 'podManagementPolicy: Parallel'),
  });
  assert.equal(ok.code, 0, summary(ok));
  // podManagementPolicy and serviceName are immutable (TestValidateStatefulSetUpdate "podManagementPolicy changed")
  const change = await kubectl(['patch', 'statefulsets.apps.kruise.io', 'db', '--type', 'merge', '-p', '{"spec":{"podManagementPolicy":"OrderedReady"}}'], sb.kubeconfig);
  assert.equal(change.code, 1, summary(change));
  assert.match(change.stderr, /spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template'/);
  await kubectlOk(sb, ['delete', 'statefulsets.apps.kruise.io', 'db', '--wait=false']);
});

test('kubectl patch: podsToDelete naming a missing pod → 422 (validateScaleStrategy, validation.go, TestValidate "invalid-podsToDelete-3")', async () => {
  await kubectlOk(sb, ['apply', '-f', fx('cloneset-env-recreate.yaml')]);
  await waitSettled(sb, '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web');
  const r = await kubectl(['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"scaleStrategy":{"podsToDelete":["web-nope"]}}}'], sb.kubeconfig);
  assert.equal(r.code, 1, summary(r));
  assert.match(r.stderr, /spec\.scaleStrategy\.podsToDelete: Invalid value: "web-nope": find pod web-nope failed: pods "web-nope" not found/);
});

test('rollout undo of an InPlaceOnly CloneSet to a revision with other env: exit 2 before sending, as the webhook would refuse it', async () => {
  const path = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';
  await waitSettled(sb, path);
  // revision 2 changes env (ReCreate), then the CloneSet switches to InPlaceOnly
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/template/spec/containers/0/env/0/value","value":"info"}]']);
  await waitSettled(sb, path);
  await kubectlOk(sb, ['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"type":"InPlaceOnly"}}}']);
  await waitUntil('two revisions', async () => {
    const revs = await sb.api('GET', '/apis/apps/v1/namespaces/default/controllerrevisions?labelSelector=app%3Dweb');
    return revs.body.items?.length >= 2 ? true : undefined;
  });
  // the server agrees: the same template change through kubectl is refused
  const direct = await kubectl(['patch', 'clonesets.apps.kruise.io', 'web', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/template/spec/containers/0/env/0/value","value":"debug"}]'], sb.kubeconfig);
  assert.equal(direct.code, 1, summary(direct));
  assert.match(direct.stderr, /spec\.template: Forbidden: only allowed to update images/);

  const before = (await sb.api('GET', path)).body;
  sb.clearAudit();
  const r = await runCli(['rollout', 'undo', 'cloneset/web'], { kubeconfig: sb.kubeconfig });
  assert.equal(r.code, 2, summary(r));
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^error: cloneset "web": rolling back to revision 1 would be rejected by Kruise's webhook: spec\.template: Forbidden: only allowed to update images in template for InPlaceOnly type.*nothing was changed$/);
  assert.deepEqual(writes(sb.audit()), [], 'no write reached the server');
  assert.equal((await sb.api('GET', path)).body.metadata.resourceVersion, before.metadata.resourceVersion);
});

test('sandbox --feature-gates: StatefulSetStartOrdinal=true honours spec.ordinals.start; off (the default) it is ignored like Kruise does', async () => {
  const gated = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms', extraArgs: ['--feature-gates', 'StatefulSetStartOrdinal=true'] });
  try {
    for (const [box, expected] of [[sb, ['shard-0', 'shard-1']], [gated, ['shard-3', 'shard-4']]] as const) {
      const r = await kubectl(['apply', '-f', fx('asts-start-ordinal.yaml')], box.kubeconfig);
      assert.equal(r.code, 0, summary(r));
      const names = await waitUntil('two shard pods', async () => {
        const pods = await box.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dshard');
        const live = (pods.body.items as Array<{ metadata: { name: string; deletionTimestamp?: string } }>).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name).sort();
        return live.length === 2 ? live : undefined;
      });
      assert.deepEqual(names, expected);
    }
  } finally {
    await gated.stop();
  }
});

test('sandbox --feature-gates TemplateNoDefaults=true: templates stored as written, so re-applying an unchanged manifest is "unchanged"', async () => {
  const gated = await startSandbox({ kruise: 'v1.9', readyDelay: '50ms', extraArgs: ['--feature-gates', 'TemplateNoDefaults=true'] });
  try {
    const manifest = readFileSync(fx('template-defaults.yaml'), 'utf8').split(/^---$/m)[0]!;
    for (const expected of ['cloneset.apps.kruise.io/cache created\n', 'cloneset.apps.kruise.io/cache unchanged\n']) {
      const r = await kubectl(['apply', '-f', '-'], gated.kubeconfig, { input: manifest });
      assert.equal(r.code, 0, summary(r));
      assert.equal(r.stdout, expected);
    }
    const cs = (await gated.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/cache')).body;
    assert.deepEqual(cs.spec.template.spec.containers[0], { name: 'redis', image: 'redis:7.2', ports: [{ containerPort: 6379 }], volumeMounts: [{ name: 'data', mountPath: '/data' }] });
    assert.equal(cs.spec.volumeClaimTemplates[0].status, undefined);
    // The gate spares the templates only: the strategy defaults still apply.
    assert.deepEqual(cs.spec.updateStrategy.inPlaceUpdateStrategy, {});
  } finally {
    await gated.stop();
  }
});

test('sandbox --feature-gates with an unknown gate or a bad value: exit 2, one error line', async () => {
  for (const [value, cause] of [['NoSuchGate=true', /unrecognized feature gate: NoSuchGate/], ['StatefulSetStartOrdinal=yes', /invalid value of StatefulSetStartOrdinal: yes/]] as const) {
    const r = await runCli(['sandbox', '--port', '0', '--feature-gates', value], { timeoutMs: 15_000 });
    assert.equal(r.code, 2, summary(r));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^error: --feature-gates ${value}: ${cause.source}`));
  }
});

test("Kruise's mutating webhook injects template defaults on create and on a template change, not on a scale (cloneset_create_update_handler.go, statefulset_create_update_handler.go)", async () => {
  // The fixture's v1alpha1 CloneSet and v1beta1 Advanced StatefulSet (its v1beta1 CloneSet is for Kruise main).
  const docs = readFileSync(fx('template-defaults.yaml'), 'utf8').split(/^---$/m);
  const applied = await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: `${docs[0]}\n---\n${docs[2]}` });
  assert.equal(applied.code, 0, summary(applied));
  const jsonpath = async (what: string, path: string) => (await kubectlOk(sb, ['get', what, '-o', `jsonpath=${path}`])).stdout;
  const containers = '{.spec.template.spec.containers[0].imagePullPolicy} {.spec.template.spec.containers[0].terminationMessagePath} {.spec.template.spec.dnsPolicy}';
  assert.equal(await jsonpath('cloneset/cache', containers), 'Always /dev/termination-log ClusterFirst');
  assert.equal(await jsonpath('cloneset/cache', '{.spec.volumeClaimTemplates[0].status.phase} {.spec.updateStrategy.inPlaceUpdateStrategy}'), 'Pending {}');
  assert.equal(await jsonpath('statefulsets.apps.kruise.io/pg', `${containers} {.spec.volumeClaimTemplates[0].status.phase}`), 'Always /dev/termination-log ClusterFirst Pending');

  // A template change that drops a default (a new image, no pull policy) gets the default back.
  const path = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/cache';
  const changed = await kubectlOk(sb, ['patch', 'cloneset', 'cache', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"redis:7.4"},{"op":"remove","path":"/spec/template/spec/containers/0/imagePullPolicy"}]']);
  assert.match(changed.stdout, /patched/);
  assert.equal(await jsonpath('cloneset/cache', '{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].imagePullPolicy}'), 'redis:7.4 Always');
  // A scale does not go through template defaulting: the template stays exactly as stored.
  const before = (await sb.api('GET', path)).body;
  await kubectlOk(sb, ['scale', 'cloneset', 'cache', '--replicas', '4']);
  const scaled = (await sb.api('GET', path)).body;
  assert.equal(scaled.spec.replicas, 4);
  assert.deepEqual(scaled.spec.template, before.spec.template);
  await waitSettled(sb, path);
});
