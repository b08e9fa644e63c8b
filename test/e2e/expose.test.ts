// `expose` end to end (issue #18): a CloneSet exposed through `kubectl kruise` with the plugin on PATH, the
// Service read back with real kubectl and compared with what real `kubectl expose` makes for a Deployment
// with the same labels; a v1beta1 CloneSet on Kruise master, an Advanced StatefulSet (headless), a
// UnitedDeployment (one port per protocol); dry runs, -f, and bad input with nothing written (audit log).
// The sandbox validates Services as kube-apiserver does: real kubectl's own bad Services are refused too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, REPO_ROOT, runCli, type RunResult } from '../helpers/cli';
import { startSandbox, type AuditEntry, type Sandbox } from '../helpers/sandbox';
import { CRDS_ROOT } from '../unit/kruise/builders/crd-schema';
import { kubectlKruise, kubectlOk, summary, writes } from './rollout-helpers';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'expose');
const SVC = '/api/v1/namespaces/default/services';

/** Requests other than discovery (a cold cache adds GET /apis once). */
const calls = (entries: AuditEntry[]): string[] =>
  entries.filter((e) => !/^\/(api|apis)(\/[^/]+){0,2}$/.test(e.path) && e.path !== '/version').map((e) => `${e.verb} ${e.path}${e.query ? `?${e.query}` : ''} ${e.code}`);

/** A Service as read back, without what differs between two Services by nature (name, identity, address). */
function shape(svc: any): any {
  const { name: _n, uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...meta } = svc.metadata;
  const { clusterIP: _ip, clusterIPs: _ips, ...spec } = svc.spec;
  return { ...svc, metadata: meta, spec };
}

describe('expose on Kruise v1.9 (real CRDs)', { skip: !existsSync(join(CRDS_ROOT, 'v1.9.0')) && 'no ../shared/kruise-crds' }, () => {
  let sb: Sandbox;
  const cli = (args: string[], opts: { input?: string } = {}): Promise<RunResult> => runCli(args, { kubeconfig: sb.kubeconfig, ...opts });
  const getSvc = async (name: string, ns = 'default'): Promise<any> => JSON.parse((await kubectlOk(sb, ['get', 'svc', name, '-n', ns, '-o', 'json'])).stdout);

  before(async () => {
    sb = await startSandbox({ crds: join(CRDS_ROOT, 'v1.9.0'), readyDelay: 100 });
    for (const f of ['cloneset-web.yaml', 'deployment-web-twin.yaml', 'asts-db.yaml', 'ud-dns.yaml', 'cloneset-batch.yaml', 'ads-agent.yaml']) await kubectlOk(sb, ['apply', '-f', join(FIXTURES, f)]);
  });
  after(async () => {
    await sb?.stop();
  });

  test('`kubectl kruise expose cloneset/web --port 80 --target-port 8080`: one GET, one POST; the Service is what real kubectl expose makes for a Deployment with the same labels', async () => {
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['expose', 'cloneset/web', '--port', '80', '--target-port', '8080']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'service/web exposed\n');
    assert.equal(r.stderr, '');
    assert.deepEqual(calls(sb.audit()), ['get /apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web 200', `create ${SVC}?fieldManager=kubectl-expose 201`]);
    const ours = await getSvc('web');
    assert.deepEqual(ours.spec.selector, { app: 'web' }, "the CloneSet's matchLabels");
    assert.deepEqual(ours.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 8080 }]);
    assert.deepEqual(ours.metadata.labels, { app: 'web', tier: 'frontend' }, "the CloneSet's labels");
    assert.match(ours.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/, 'an address of the service range');

    sb.clearAudit();
    const k = await kubectl(['expose', 'deployment/web-twin', '--port', '80', '--target-port', '8080'], sb.kubeconfig);
    assert.equal(k.code, 0, k.stderr);
    assert.equal(k.stdout, 'service/web-twin exposed\n', 'the same line as ours');
    const theirs = await getSvc('web-twin');
    assert.deepEqual(shape(ours), shape(theirs), 'same fields, same values, same shape');
    const post = (entries: AuditEntry[]) => entries.filter((e) => e.verb === 'create').map((e) => `${e.query} ${e.contentType}`);
    assert.deepEqual(post(sb.audit()), ['fieldManager=kubectl-expose application/json'], 'kubectl posts as we do');
  });

  test('an Advanced StatefulSet, headless: every containerPort (port-1, port-2); a UnitedDeployment: its selector, one port per protocol, one node port for both', async () => {
    const asts = await cli(['expose', 'asts', 'db', '--cluster-ip=None', '--name=db-headless']);
    assert.equal(asts.code, 0, summary(asts));
    assert.equal(asts.stdout, 'service/db-headless exposed\n');
    const headless = await getSvc('db-headless');
    assert.equal(headless.spec.clusterIP, 'None');
    assert.deepEqual(headless.spec.selector, { app: 'db' });
    assert.deepEqual(headless.spec.ports, [
      { name: 'port-1', port: 5432, protocol: 'TCP', targetPort: 5432 },
      { name: 'port-2', port: 9187, protocol: 'TCP', targetPort: 9187 },
    ]);
    const ud = await cli(['expose', 'uniteddeployment/dns', '--type', 'NodePort']);
    assert.equal(ud.code, 0, summary(ud));
    const dns = await getSvc('dns');
    assert.deepEqual(dns.spec.selector, { app: 'dns' });
    assert.deepEqual(dns.spec.ports.map((p: any) => `${p.name} ${p.port}/${p.protocol}`), ['port-1-udp 53/UDP', 'port-1-tcp 53/TCP']);
    assert.equal(dns.spec.ports[0].nodePort, dns.spec.ports[1].nodePort, 'UDP and TCP of 53 share a node port');
    const table = (await kubectlOk(sb, ['get', 'svc', 'dns'])).stdout;
    assert.match(table, new RegExp(`dns\\s+NodePort\\s+10\\.\\S+\\s+<none>\\s+53:${dns.spec.ports[0].nodePort}/UDP,53:${dns.spec.ports[0].nodePort}/TCP`));
  });

  test('--dry-run=client sends only the GET and prints the Service (namespace with -n); server dry run stores nothing; -o name', async () => {
    sb.clearAudit();
    const client = await cli(['expose', 'cloneset/web', '--port', '443', '--name', 'web-tls', '--type', 'LoadBalancer', '--session-affinity', 'ClientIP', '--dry-run=client', '-o', 'yaml', '-n', 'default']);
    assert.equal(client.code, 0, summary(client));
    assert.deepEqual(calls(sb.audit()), ['get /apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web 200']);
    assert.match(client.stdout, /^apiVersion: v1\nkind: Service\nmetadata:\n  name: web-tls\n/);
    assert.match(client.stdout, /\n  namespace: default\n/);
    assert.match(client.stdout, /\n  type: LoadBalancer\n  sessionAffinity: ClientIP\n/);
    const line = await cli(['expose', 'cloneset/web', '--port', '443', '--name', 'web-tls', '--dry-run=client']);
    assert.equal(line.stdout, 'service/web-tls exposed (dry run)\n');

    sb.clearAudit();
    const server = await cli(['expose', 'cloneset/web', '--port', '443', '--name', 'web-tls', '--dry-run=server', '-o', 'json']);
    assert.equal(server.code, 0, summary(server));
    const returned = JSON.parse(server.stdout);
    assert.match(returned.spec.clusterIP, /^10\./, "the server's answer, with its defaults");
    assert.deepEqual(calls(sb.audit()), ['get /apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web 200', `create ${SVC}?dryRun=All&fieldManager=kubectl-expose 201`]);
    assert.equal((await sb.api('GET', `${SVC}/web-tls`)).status, 404, 'nothing stored');
    const name = await cli(['expose', 'cloneset/web', '--port', '443', '--name', 'web-tls', '-o', 'name']);
    assert.equal(name.stdout, 'service/web-tls\n');
  });

  test('-f FILE: the file is used as it is (no GET), the Service goes to the object\'s namespace', async () => {
    await kubectlOk(sb, ['create', 'namespace', 'shop']);
    const dir = mkdtempSync(join(tmpdir(), 'expose-'));
    try {
      const manifest = readFileSync(join(FIXTURES, 'cloneset-web.yaml'), 'utf8').replace('  name: web\n', '  name: web\n  namespace: shop\n');
      const file = join(dir, 'web.yaml');
      writeFileSync(file, manifest);
      sb.clearAudit();
      const r = await cli(['expose', '-f', file, '--port', '80', '--target-port', 'http']);
      assert.equal(r.code, 0, summary(r));
      assert.equal(r.stdout, 'service/web exposed\n');
      assert.deepEqual(calls(sb.audit()), ['create /api/v1/namespaces/shop/services?fieldManager=kubectl-expose 201']);
      assert.equal((await getSvc('web', 'shop')).spec.ports[0].targetPort, 'http', 'a named target port');
      const mismatch = await cli(['expose', '-f', file, '--port', '80', '-n', 'default']);
      assert.equal(mismatch.code, 2, summary(mismatch));
      assert.match(mismatch.stderr, /^error: the namespace from the provided object "shop" does not match the namespace "default"\. You must pass '--namespace=shop' to perform this operation\.\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bad input: exit 2, one line naming the object and the cause, nothing written (and nothing sent when the flags or the kind say it)', async () => {
    const before = await sb.api('GET', SVC);
    const offline: Array<[string[], RegExp]> = [
      [['expose', 'cloneset/web', '--port', '80', '--protocol', 'FOO'], /^error: invalid --protocol "FOO": supported values: "TCP", "UDP", "SCTP"\n$/],
      [['expose', 'cloneset/web', '--port', '80', '--type', 'Foo'], /^error: invalid --type "Foo": supported values: "ClusterIP", "NodePort", "LoadBalancer"\n$/],
      [['expose', 'cloneset/web', '--port', '80', '--name', '1web'], /^error: invalid --name "1web": a DNS-1035 label must consist of lower case alphanumeric characters/],
      [['expose', 'cloneset/web', '--port', '70000'], /^error: invalid --port "70000": 70000 must be between 1 and 65535, inclusive\n$/],
      [['expose', 'cloneset/web', '--port', 'abc'], /^error: invalid --port "abc": "abc" is not a port number/],
      [['expose', 'cloneset/web', '--port', '80', '--selector', 'app!=web'], /^error: invalid --selector "app!=web": key "app!": name part must consist of/],
      [['expose', 'cloneset/web', '--port', '80', '--external-ip', '127.0.0.1'], /^error: invalid --external-ip "127\.0\.0\.1": may not be in the loopback range/],
      [['expose', 'cloneset/web', '--port', '80', '--cluster-ip', 'None', '--type', 'NodePort'], /^error: --cluster-ip=None \(a headless Service\) cannot be combined with --type=NodePort/],
      [['expose', 'cloneset/bad_name', '--port', '80'], /^error: invalid name "bad_name"/],
      [['expose', 'ads/agent', '--port', '80'], /^error: cannot expose a DaemonSet\.apps\.kruise\.io\nhint: expose takes clonesets, advanced statefulsets \(asts\)/],
      [['expose', 'daemonset/agent'], /^error: cannot expose a DaemonSet\.apps\n/],
      [['expose', 'sts/db'], /^error: cannot expose a StatefulSet\.apps\n/],
      [['expose', '-f', join(FIXTURES, 'ads-agent.yaml')], /ads-agent\.yaml: cannot expose a DaemonSet\.apps\.kruise\.io\n/],
      [['expose'], /^error: you must provide one or more resources by argument or filename/],
      [['expose', 'cloneset/web', 'cloneset/batch', '--name', 'x', '--port', '80'], /^error: --name names one Service, but 2 objects were given/],
      [['expose', 'cloneset/web', '--overrides', '{not json'], /^error: --overrides is not valid JSON/],
    ];
    for (const [args, want] of offline) {
      sb.clearAudit();
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${summary(r)}`);
      assert.match(r.stderr, want, args.join(' '));
      assert.deepEqual(calls(sb.audit()), [], `${args.join(' ')}: no request`);
    }
    const afterRead: Array<[string[], RegExp]> = [
      [
        ['expose', 'cloneset/batch', '--port', '80'],
        /^error: cannot expose cloneset\.apps\.kruise\.io\/batch: couldn't retrieve selectors via --selector flag or introspection: couldn't convert expressions - "\[\{Key:tier Operator:In Values:\[worker spare\]\}\]" to map-based selector format\n$/,
      ],
      [['expose', 'cloneset/batch', '--selector', 'app=batch'], /^error: cannot expose cloneset\.apps\.kruise\.io\/batch: couldn't find port via --port flag or introspection \(its pod template declares no containerPorts/],
      [['expose', 'cloneset/web', '--port', '80', '--overrides', '{"spec":{"type":"Bogus"}}'], /^error: cannot expose cloneset\.apps\.kruise\.io\/web: the API would refuse Service "web": spec\.type: Unsupported value: "Bogus"/],
    ];
    for (const [args, want] of afterRead) {
      sb.clearAudit();
      const r = await kubectlKruise(sb, args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${summary(r)}`);
      assert.match(r.stderr, want, args.join(' '));
      assert.equal(calls(sb.audit()).length, 1, `${args.join(' ')}: the read only`);
      assert.deepEqual(writes(sb.audit()), [], `${args.join(' ')}: nothing written`);
    }
    assert.deepEqual((await sb.api('GET', SVC)).body.items.map((s: any) => s.metadata.name), before.body.items.map((s: any) => s.metadata.name));
  });

  test('a Service that already exists: kubectl\'s one-line AlreadyExists error, exit 1, the Service unchanged', async () => {
    const was = await getSvc('web');
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['expose', 'cloneset/web', '--port', '81']);
    assert.equal(r.code, 1, summary(r));
    assert.equal(r.stderr, 'error: services "web" already exists\n');
    assert.deepEqual(calls(sb.audit()), ['get /apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/web 200', `create ${SVC}?fieldManager=kubectl-expose 409`]);
    assert.equal((await getSvc('web')).metadata.resourceVersion, was.metadata.resourceVersion);
    const missing = await cli(['expose', 'cloneset/nope', '--port', '80']);
    assert.equal(missing.code, 1, summary(missing));
    assert.match(missing.stderr, /^error: clonesets\.apps\.kruise\.io "nope" not found in namespace "default"\n/);
  });

  test('completion: the kinds expose takes, the names of the one typed, the values of --type and --protocol', async () => {
    const kinds = await cli(['__complete', 'expose', '']);
    assert.equal(kinds.stdout, 'cloneset/\nasts/\nuniteddeployment/\ndeployment/\nreplicaset/\nreplicationcontroller/\npod/\nservice/\n:6\n');
    const names = await cli(['__complete', 'expose', 'asts/']);
    assert.equal(names.stdout, 'asts/db\n:4\n');
    assert.equal((await cli(['__complete', 'expose', 'cloneset/web', '--type', ''])).stdout, 'ClusterIP\nNodePort\nLoadBalancer\n:4\n');
    assert.equal((await cli(['__complete', 'expose', 'cloneset/web', '--protocol', 'U'])).stdout, 'TCP\nUDP\nSCTP\n:4\n');
  });

  test('the sandbox refuses what kube-apiserver refuses, from real kubectl expose too (422, nothing stored)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--protocol', 'FOO', '--name', 'bad-proto'], /The Service "bad-proto" is invalid: spec\.ports\[0\]\.protocol: Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"/],
      [['--type', 'Foo', '--name', 'bad-type'], /spec\.type: Unsupported value: "Foo"/],
      [['--name', '1abc'], /metadata\.name: Invalid value: "1abc": a DNS-1035 label must consist of/],
      [['--cluster-ip', '1.2.3.4', '--name', 'far'], /spec\.clusterIPs: Invalid value: \[\]string\{"1\.2\.3\.4"\}: failed to allocate IP 1\.2\.3\.4: the provided IP \(1\.2\.3\.4\) is not in the valid range/],
      [['--external-ip', '127.0.0.1', '--name', 'loop'], /spec\.externalIPs\[0\]: Invalid value: "127\.0\.0\.1": may not be in the loopback range/],
    ];
    for (const [extra, want] of cases) {
      const k = await kubectl(['expose', 'deployment/web-twin', '--port', '80', ...extra], sb.kubeconfig);
      assert.equal(k.code, 1, `${extra.join(' ')}: ${k.stdout}${k.stderr}`);
      assert.match(k.stderr, want, extra.join(' '));
    }
    const names = (await sb.api('GET', SVC)).body.items.map((s: any) => s.metadata.name);
    for (const n of ['bad-proto', 'bad-type', '1abc', 'far', 'loop']) assert.ok(!names.includes(n), n);
  });
});

describe('expose a v1beta1 CloneSet (Kruise master CRDs)', { skip: !existsSync(join(CRDS_ROOT, 'master')) && 'no ../shared/kruise-crds' }, () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ kruise: 'master', crds: join(CRDS_ROOT, 'master'), readyDelay: 100 });
    await kubectlOk(sb, ['apply', '-f', join(FIXTURES, 'cloneset-shop-v1beta1.yaml')]);
  });
  after(async () => {
    await sb?.stop();
  });

  test('`kubectl kruise expose cloneset shop`: read as v1beta1, every port of both containers', async () => {
    sb.clearAudit();
    const r = await kubectlKruise(sb, ['expose', 'cloneset', 'shop']);
    assert.equal(r.code, 0, summary(r));
    assert.equal(r.stdout, 'service/shop exposed\n');
    assert.deepEqual(calls(sb.audit()), ['get /apis/apps.kruise.io/v1beta1/namespaces/default/clonesets/shop 200', `create ${SVC}?fieldManager=kubectl-expose 201`]);
    const svc = JSON.parse((await kubectlOk(sb, ['get', 'svc', 'shop', '-o', 'json'])).stdout);
    assert.deepEqual(svc.spec.selector, { app: 'shop' });
    assert.deepEqual(svc.spec.ports, [
      { name: 'port-1', port: 8080, protocol: 'TCP', targetPort: 8080 },
      { name: 'port-2', port: 9090, protocol: 'TCP', targetPort: 9090 },
    ]);
  });
});
