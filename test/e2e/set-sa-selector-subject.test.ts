// `set serviceaccount|selector|subject` end to end (issue #18): kubectl's argument forms, outputs and
// refusals, for Kruise kinds as well as native ones; minimal guarded JSON patches, nothing sent when
// nothing changes, Kruise in-place policies respected, --local offline. Read back with real kubectl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubectl, runCli, type RunResult } from '../helpers/cli';
import { startSandbox, type Sandbox } from '../helpers/sandbox';
import { kubectlKruise, kubectlOk, summary, writes } from './rollout-helpers';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/set');
const CS_PATH = '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web';
const SVC_PATH = '/api/v1/namespaces/default/services/web';
const RB_PATH = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/admin';
const CRB_PATH = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/view';

let sb: Sandbox;
const cli = (args: string[], opts: { input?: string } = {}): Promise<RunResult> => runCli(args, { kubeconfig: sb.kubeconfig, ...opts });
const jsonpath = async (type: string, name: string, path: string): Promise<string> => (await kubectlOk(sb, ['get', type, name, '-o', `jsonpath=${path}`])).stdout;

before(async () => {
  sb = await startSandbox({ readyDelay: 100 });
  for (const file of ['cloneset-web-inplaceonly.yaml', 'asts-db.yaml', 'deployment-api.yaml', 'pod-debug.yaml', 'cronjob-report.yaml', 'service-web.yaml', 'rbac-bindings.yaml']) {
    const r = await kubectl(['apply', '-f', join(FIXTURES, file)], sb.kubeconfig);
    assert.equal(r.code, 0, `${file}: ${r.stderr}`);
  }
});

after(async () => {
  await sb?.stop();
});

describe('set serviceaccount', () => {
  test('`kubectl kruise set sa deployment api api-sa`: one JSON patch of the field, read back by kubectl; a rerun sends nothing', async () => {
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['set', 'sa', 'deployment', 'api', 'api-sa']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'deployment.apps/api serviceaccount updated\n');
    const w = writes(sb.audit());
    assert.deepEqual(w.map((e) => `${e.verb} ${e.path} ${e.contentType}`), ['patch /apis/apps/v1/namespaces/default/deployments/api application/json-patch+json']);
    assert.deepEqual(sb.audit().map((e) => e.verb), ['get', 'patch'], 'one read, one write (a native kind needs no discovery)');
    assert.equal(await jsonpath('deployment', 'api', '{.spec.template.spec.serviceAccountName}'), 'api-sa');
    sb.clearAudit();
    const again = await cli(['set', 'serviceaccount', 'deployment/api', 'api-sa']);
    assert.equal(again.code, 0, summary(again));
    assert.equal(again.stdout, 'deployment.apps/api serviceaccount unchanged\n');
    assert.deepEqual(sb.audit().map((e) => e.verb), ['get'], 'unchanged: the read only');
  });

  test('Kruise in-place policies: InPlaceIfPossible warns that pods will be recreated, InPlaceOnly is refused before sending (exit 1)', async () => {
    sb.clearAudit();
    const asts = await cli(['set', 'sa', 'asts/db', 'db-runner']);
    assert.equal(asts.code, 0, summary(asts));
    assert.equal(asts.stdout, 'statefulset.apps.kruise.io/db serviceaccount updated\n');
    assert.equal(asts.stderr, 'Warning: service account changes cannot be applied in place; advanced statefulset "db" (InPlaceIfPossible) will recreate its pods\n');
    assert.equal(await jsonpath('statefulsets.apps.kruise.io', 'db', '{.spec.template.spec.serviceAccountName}'), 'db-runner');

    sb.clearAudit();
    const only = await cli(['set', 'sa', 'cloneset/web', 'web-runner']);
    assert.equal(only.code, 1, summary(only));
    assert.match(only.stderr, /^error: cloneset "web" uses InPlaceOnly, which only allows container image updates: its webhook would reject service account changes \("only allowed to update images"\); nothing was changed\n/);
    assert.deepEqual(writes(sb.audit()), []);
    assert.equal((await sb.api('GET', CS_PATH)).body.spec.template.spec.serviceAccountName, undefined);
  });

  test('a cron job\'s nested template; an existing pod is refused (exit 1); a Service is not a pod template kind (exit 2, nothing sent)', async () => {
    const cj = await cli(['set', 'sa', 'cronjob/report', 'reporter', '--dry-run=server', '-o', 'jsonpath={.spec.jobTemplate.spec.template.spec.serviceAccountName}']);
    assert.equal(cj.code, 0, summary(cj));
    assert.equal(cj.stdout, 'reporter');
    assert.equal(await jsonpath('cronjob', 'report', '{.spec.jobTemplate.spec.template.spec.serviceAccountName}'), '', 'server dry run: unchanged');
    sb.clearAudit();
    const pod = await cli(['set', 'sa', 'pod/debug', 'x']);
    assert.equal(pod.code, 1, summary(pod));
    assert.match(pod.stderr, /^error: pod\/debug: the service account of an existing pod cannot change/);
    assert.deepEqual(writes(sb.audit()), []);
    sb.clearAudit();
    for (const [args, want] of [
      [['set', 'sa', 'service/web', 'x'], /^error: set serviceaccount is not supported for services: it needs a workload with a pod template/],
      [['set', 'sa', 'deployment/api', 'Not_Valid'], /^error: invalid service account name "Not_Valid"/],
      [['set', 'sa'], /^error: serviceaccount is required/],
      [['set', 'sa', 'sidecarset/x', 'y'], /^error: set serviceaccount is not supported for sidecarsets\.apps\.kruise\.io/],
      [['set', 'sa', 'deployment', '-l', 'app=api', 'x'], /^error: unknown option '-l'/],
    ] as Array<[string[], RegExp]>) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${summary(r)}`);
      assert.match(r.stderr, want, args.join(' '));
    }
    assert.deepEqual(sb.audit(), [], 'no request');
  });

  test('--local -f edits the manifest offline (no kubeconfig at all) and prints it', async () => {
    const manifest = readFileSync(join(FIXTURES, 'pod-debug.yaml'), 'utf8');
    const r = await runCli(['set', 'sa', '--local', '-f', '-', 'debugger', '-o', 'json'], { input: manifest, env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
    assert.equal(r.code, 0, summary(r));
    assert.equal(JSON.parse(r.stdout).spec.serviceAccountName, 'debugger');
    const line = await runCli(['set', 'sa', '--local', '-f', join(FIXTURES, 'deployment-api.yaml'), 'x'], { env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
    assert.equal(line.stdout, 'deployment.apps/api serviceaccount updated (dry run)\n');
  });
});

describe('set selector', () => {
  test('a Service\'s selector is replaced (keys not given removed) with a guarded JSON patch; the same selector sends nothing', async () => {
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['set', 'selector', 'svc/web', 'app=web,tier=frontend']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'service/web selector updated\n');
    assert.deepEqual(writes(sb.audit()).map((e) => `${e.path} ${e.contentType}`), [`${SVC_PATH} application/json-patch+json`]);
    assert.equal(await jsonpath('service', 'web', '{.spec.selector}'), '{"app":"web","tier":"frontend"}');
    sb.clearAudit();
    const same = await cli(['set', 'selector', 'service', 'web', 'tier==frontend,app=web']);
    assert.equal(same.stdout, 'service/web selector unchanged\n');
    assert.deepEqual(writes(sb.audit()), []);
  });

  test('--resource-version: refused (exit 1, nothing written) unless the Service is at that version', async () => {
    const rv = (await sb.api('GET', SVC_PATH)).body.metadata.resourceVersion as string;
    sb.clearAudit();
    const stale = await cli(['set', 'selector', 'svc/web', 'app=web', '--resource-version=1']);
    assert.equal(stale.code, 1, summary(stale));
    assert.equal(stale.stderr, `error: service/web has resourceVersion ${rv}, not 1 (--resource-version): the object has been modified; nothing was changed\n`);
    assert.deepEqual(writes(sb.audit()), []);
    const ok = await cli(['set', 'selector', 'svc/web', 'app=web', `--resource-version=${rv}`, '-o', 'name']);
    assert.equal(ok.code, 0, summary(ok));
    assert.equal(ok.stdout, 'service/web\n');
    assert.equal(await jsonpath('service', 'web', '{.spec.selector}'), '{"app":"web"}');
    const many = await cli(['set', 'selector', 'svc', 'web', 'other', 'app=web', '--resource-version=1']);
    assert.equal(many.code, 2);
    assert.match(many.stderr, /^error: --resource-version applies to a single object/);
  });

  test('Kruise workloads (and native ones) are refused before anything is sent, naming the rule; Kruise\'s webhook in the sandbox indeed refuses it', async () => {
    sb.clearAudit();
    const cs = await kubectlKruise(sb, ['set', 'selector', 'cloneset/web', 'app=other']);
    assert.equal(cs.code, 2, summary(cs));
    assert.equal(
      cs.stderr,
      "error: setting a selector is only supported for Services: a CloneSet's spec.selector is immutable: Kruise's webhook (ValidateCloneSetUpdate) forbids updates to cloneset spec for fields other than 'replicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates' and 'revisionHistoryLimit'\n",
    );
    for (const [args, want] of [
      [['set', 'selector', 'asts/db', 'app=x'], /Advanced StatefulSet's spec\.selector is immutable: Kruise's webhook \(ValidateStatefulSetUpdate\)/],
      [['set', 'selector', 'ads/agent', 'app=x'], /Advanced DaemonSet's spec\.selector must keep matching its template labels/],
      [['set', 'selector', 'deployment/api', 'app=x'], /Deployment's spec\.selector is immutable in apps\/v1/],
      [['set', 'selector', 'svc/web', 'app in (a,b)'], /^error: match expression \[\{app In \[a b\]\}\] not supported on this object/],
      [['set', 'selector', 'svc/web', 'app!=a'], /"!=" is not a valid label selector operator/],
      [['set', 'selector'], /^error: one selector is required/],
    ] as Array<[string[], RegExp]>) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${summary(r)}`);
      assert.match(r.stderr, want, args.join(' '));
    }
    assert.deepEqual(sb.audit(), [], 'no request at all');
    // The rule named is the one the (simulated) Kruise webhook applies.
    const patched = await kubectl(['patch', 'cloneset', 'web', '--type=merge', '-p', '{"spec":{"selector":{"matchLabels":{"app":"web","x":"y"}}}}'], sb.kubeconfig);
    assert.notEqual(patched.code, 0);
    assert.match(patched.stderr, /updates to cloneset spec for fields other than 'replicas', 'template'/);
  });

  test('--local: an empty selector removes it; offline', async () => {
    const svc = readFileSync(join(FIXTURES, 'service-web.yaml'), 'utf8');
    const r = await runCli(['set', 'selector', '--local', '-f', '-', '', '-o', 'json'], { input: svc, env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
    assert.equal(r.code, 0, summary(r));
    assert.equal(JSON.parse(r.stdout).spec.selector, undefined);
  });
});

describe('set subject', () => {
  test('`kubectl kruise set subject rolebinding admin --user --group --serviceaccount=:ci`: appended in kubectl\'s order, the current namespace filled in', async () => {
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['set', 'subject', 'rolebinding', 'admin', '--user=bob', '--user=alice', '--group=devs', '--serviceaccount=:ci']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'rolebinding.rbac.authorization.k8s.io/admin subjects updated\n');
    assert.deepEqual(writes(sb.audit()).map((e) => `${e.path} ${e.contentType}`), [`${RB_PATH} application/json-patch+json`]);
    const subjects = JSON.parse(await jsonpath('rolebinding', 'admin', '{.subjects}'));
    assert.deepEqual(subjects, [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'ci', namespace: 'default' },
    ]);
    sb.clearAudit();
    const again = await cli(['set', 'subject', 'rolebinding/admin', '--user=alice', '--serviceaccount=default:ci']);
    assert.equal(again.stdout, 'rolebinding.rbac.authorization.k8s.io/admin subjects unchanged\n');
    assert.deepEqual(writes(sb.audit()), []);
  });

  test('ClusterRoleBinding: a service account needs its namespace (exit 2, nothing sent); -l, --dry-run=server and -o name', async () => {
    sb.clearAudit();
    const bare = await cli(['set', 'subject', 'clusterrolebinding/view', '--serviceaccount=:prometheus']);
    assert.equal(bare.code, 2, summary(bare));
    assert.equal(bare.stderr, 'error: serviceaccount must be <namespace>:<name>, namespace must be specified\n');
    assert.deepEqual(sb.audit(), []);
    const dry = await cli(['set', 'subject', 'clusterrolebinding', 'view', '--serviceaccount=monitoring:prometheus', '--dry-run=server']);
    assert.equal(dry.stdout, 'clusterrolebinding.rbac.authorization.k8s.io/view subjects updated (server dry run)\n');
    assert.equal((await sb.api('GET', CRB_PATH)).body.subjects, undefined);
    const real = await cli(['set', 'subject', 'clusterrolebinding', 'view', '--serviceaccount=monitoring:prometheus', '-o', 'name']);
    assert.equal(real.stdout, 'clusterrolebinding.rbac.authorization.k8s.io/view\n');
    assert.equal(await jsonpath('clusterrolebinding', 'view', '{.subjects[0].namespace}/{.subjects[0].name}'), 'monitoring/prometheus');
    const bySelector = await cli(['set', 'subject', 'rolebinding', '-l', 'team=web', '--group=sre']);
    assert.equal(bySelector.stdout, 'rolebinding.rbac.authorization.k8s.io/admin subjects updated\n');
    for (const [args, want] of [
      [['set', 'subject', 'deployment/api', '--user=x'], /^error: setting subjects is only supported for RoleBinding\/ClusterRoleBinding$/m],
      [['set', 'subject', 'rolebinding/admin'], /^error: you must specify at least one value of user, group or serviceaccount$/m],
      [['set', 'subject', 'rolebinding/admin', '--serviceaccount=foo'], /serviceaccount must be <namespace>:<name>/],
      [['set', 'subject', 'rolebinding', '--all', '-l', 'a=b', '--user=x'], /-l\/--selector and --all|cannot set --all and --selector/],
    ] as Array<[string[], RegExp]>) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${summary(r)}`);
      assert.match(r.stderr, want, args.join(' '));
    }
  });

  test('--local -f of a kind without subjects (a ServiceAccount): exit 2 naming the object and file, nothing printed (issue #26: it added `subjects:`)', async () => {
    const sa = 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: builder\n  namespace: default\n';
    const r = await runCli(['set', 'subject', '--local', '-f', '-', '--user=x', '-o', 'yaml'], { input: sa, env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
    assert.equal(r.code, 2, summary(r));
    assert.equal(r.stderr, 'error: setting subjects is only supported for RoleBinding/ClusterRoleBinding (ServiceAccount "builder" in stdin)\n');
    assert.equal(r.stdout, '');
  });
});

test('completion: the new subcommands (and the sa alias) and the kinds each takes', async () => {
  const subs = await cli(['__complete', 'set', '']);
  assert.deepEqual(subs.stdout.split('\n').filter((l) => l && !l.startsWith(':')), ['image', 'env', 'resources', 'serviceaccount', 'selector', 'subject']);
  assert.match((await cli(['__complete', 'set', 'sa', ''])).stdout, /^cloneset\/\n.*^cronjob\/$/ms);
  assert.equal((await cli(['__complete', 'set', 'selector', ''])).stdout, 'service/\n:6\n');
  assert.equal((await cli(['__complete', 'set', 'subject', ''])).stdout, 'rolebinding/\nclusterrolebinding/\n:6\n');
  assert.equal((await cli(['__complete', 'set', 'subject', 'rolebinding/'])).stdout, 'rolebinding/admin\n:4\n');
});
