// -o kyaml (KEP-5295, kubectl's default YAML dialect since 1.35) wherever -o yaml is taken: the same
// content as -o yaml, read back by a YAML parser, for objects (rollout undo --dry-run), views
// (rollout history, rollout status, explain partition, version) and streams.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse, parseAllDocuments } from 'yaml';
import { kubectl, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const CLONESET = `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: web, namespace: default, labels: {"yes": "no"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: "nginx:1.25"}]
`;

let sb: Sandbox;

describe('-o kyaml', () => {
  before(async () => {
    sb = await startSandbox({ readyDelay: '20ms' });
    const applied = await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: CLONESET });
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal((await kubectl(['patch', 'clonesets.apps.kruise.io', 'web', '--type=json', '-p', '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.26"}]'], sb.kubeconfig)).code, 0);
    // Read back, not awaited through the command under test: both pods updated and ready.
    await waitUntil('web updated and ready', async () => {
      const s = (await sb.api('GET', '/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web')).body.status ?? {};
      return s.updatedReadyReplicas === 2 && s.readyReplicas === 2;
    });
  });
  after(async () => {
    await sb?.stop();
  });

  it('equals -o yaml in content, command by command; a stream is one KYAML document per state', async () => {
    const cases: string[][] = [
      ['rollout', 'history', 'cloneset/web'],
      ['rollout', 'history', 'cloneset/web', '--revision=1'],
      ['rollout', 'undo', 'cloneset/web', '--dry-run=client'],
      ['rollout', 'status', 'cloneset/web', '--watch=false'],
      ['explain', 'partition', 'cloneset/web'],
      ['explain', 'partition', '--replicas=10', '--partition=30%'],
      ['version', '--client'],
    ];
    for (const args of cases) {
      const yaml = await runCli([...args, '-o', 'yaml'], { kubeconfig: sb.kubeconfig });
      const kyaml = await runCli([...args, '-o', 'kyaml'], { kubeconfig: sb.kubeconfig });
      assert.equal(kyaml.code, yaml.code, `${args.join(' ')}: ${kyaml.stderr}`);
      assert.equal(yaml.code, 0, `${args.join(' ')}: ${yaml.stderr}`);
      assert.match(kyaml.stdout, /^---\n[{[]/, args.join(' '));
      const docs = parseAllDocuments(kyaml.stdout).map((d) => d.toJS());
      const expected = parseAllDocuments(yaml.stdout).map((d) => d.toJS()).filter((d) => d !== null);
      assert.deepEqual(docs, expected, args.join(' '));
      // Every string value is quoted: the label value "no" cannot become a boolean in any reader.
      assert.doesNotMatch(kyaml.stdout, /: (?:no|yes|on|off)\b/, args.join(' '));
    }
    const undo = parse((await runCli(['rollout', 'undo', 'cloneset/web', '--dry-run=client', '-o', 'kyaml'], { kubeconfig: sb.kubeconfig })).stdout);
    assert.equal(undo.metadata.labels.yes, 'no');
  });

  it('is named among the formats a verb takes, and refused where -o yaml is', async () => {
    const bad = await runCli(['describe', 'rollout', 'x', '-o', 'wide'], { kubeconfig: sb.kubeconfig });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /allowed formats are: json,yaml,kyaml\n$/);
    const none = await runCli(['get', 'all', '-o', 'kyaml'], { kubeconfig: sb.kubeconfig });
    assert.equal(none.code, 2);
  });
});
