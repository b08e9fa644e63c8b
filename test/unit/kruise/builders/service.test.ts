// `expose`'s Service builder (src/kruise/builders/service.ts) and its per-kind table (service-sources.ts).
// Rows ported from k8s.io/kubectl v0.32.4 (kubectl v1.32, the one installed here):
// - pkg/cmd/expose/expose_test.go TestGenerateService (createService): every row, by name;
// - pkg/cmd/expose/expose_test.go TestRunExposeService: the rows' object + flags -> the Service sent;
// - pkg/polymorphichelpers/{mapbasedselectorforobject,portsforobject,multiprotocolsforobject}_test.go.
// kruise-tools (openkruise/kruise-tools pkg/cmd/expose/expose_test.go) has no CloneSet row (its table is
// kubectl's); its CloneSet rules live in pkg/internal/polymorphichelpers (mapbasedselectorforobject.go,
// protocolsforobject.go), ported below, with the row it gets wrong (no PortsForObject for a CloneSet).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeObject } from '../../../../src/kruise/types';
import { checkExposeFlags, exposeService, parseLabelSpec, parsePortList, parseTargetPort, serviceProblems, type ExposeFlags } from '../../../../src/kruise/builders/service';
import { EXPOSE_SOURCES, exposeRefusal, exposeSourceFor, goRequirements, type ExposeSource } from '../../../../src/kruise/builders/service-sources';

const fixture = (name: string): KubeObject => parse(readFileSync(new URL(`../../../fixtures/expose/${name}`, import.meta.url), 'utf8')) as KubeObject;

/** A source with no selector or ports of its own: TestGenerateService gives everything as options. */
function optionsOnly(protocols: Record<string, string[]> = {}): ExposeSource {
  return {
    group: 'test',
    kind: 'Options',
    selector: () => ({ ok: true, labels: {} }),
    ports: () => [],
    protocols: () => new Map(Object.entries(protocols).map(([k, v]) => [Number(k), v])),
  };
}

/** kubectl's `protocols` option ("8080/UDP,8081/TCP") as the map introspection gives. */
function protocolsOption(text: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of text ? text.split(',') : []) {
    const [port, protocol] = part.split('/') as [string, string];
    (out[port] ??= []).push(protocol);
  }
  return out;
}

interface GenerateRow {
  selector?: string;
  name?: string;
  port?: string;
  protocol?: string;
  protocols?: string;
  targetPort?: string;
  clusterIP?: string;
  labels?: string;
  externalIP?: string;
  serviceType?: string;
  sessionAffinity?: string;
  expected?: { labels?: Record<string, string>; spec: Record<string, unknown> };
  expectErr?: string;
}

const sel2 = { foo: 'bar', baz: 'blah' };
const p80 = (protocol: string, targetPort: number | string) => [{ protocol, port: 80, targetPort }];
const two = (protocol: string, target?: number | string) => [
  { name: 'port-1', protocol, port: 80, targetPort: target ?? 80 },
  { name: 'port-2', protocol, port: 443, targetPort: target ?? 443 },
];

// expose_test.go TestGenerateService, row by row (name "test" unless the row says otherwise).
const GENERATE: Record<string, GenerateRow> = {
  test1: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'TCP', targetPort: '1234', expected: { spec: { ports: p80('TCP', 1234), selector: sel2 } } },
  test2: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'UDP', targetPort: 'foobar', expected: { spec: { ports: p80('UDP', 'foobar'), selector: sel2 } } },
  test3: { selector: 'foo=bar,baz=blah', labels: 'key1=value1,key2=value2', name: 'test', port: '80', protocol: 'TCP', targetPort: '1234', expected: { labels: { key1: 'value1', key2: 'value2' }, spec: { ports: p80('TCP', 1234), selector: sel2 } } },
  test4: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'UDP', externalIP: '1.2.3.4', targetPort: 'foobar', expected: { spec: { ports: p80('UDP', 'foobar'), selector: sel2, externalIPs: ['1.2.3.4'] } } },
  test5: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'UDP', externalIP: '1.2.3.4', serviceType: 'LoadBalancer', targetPort: 'foobar', expected: { spec: { ports: p80('UDP', 'foobar'), selector: sel2, type: 'LoadBalancer', externalIPs: ['1.2.3.4'] } } },
  test6: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'UDP', targetPort: 'foobar', serviceType: 'NodePort', expected: { spec: { ports: p80('UDP', 'foobar'), selector: sel2, type: 'NodePort' } } },
  test7: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'UDP', targetPort: 'foobar', serviceType: 'NodePort', expected: { spec: { ports: p80('UDP', 'foobar'), selector: sel2, type: 'NodePort' } } },
  test8: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'TCP', targetPort: '1234', expected: { spec: { ports: p80('TCP', 1234), selector: sel2 } } },
  test9: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'TCP', sessionAffinity: 'ClientIP', targetPort: '1234', expected: { spec: { ports: p80('TCP', 1234), selector: sel2, sessionAffinity: 'ClientIP' } } },
  test10: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'TCP', clusterIP: '10.10.10.10', targetPort: '1234', expected: { spec: { ports: p80('TCP', 1234), selector: sel2, clusterIP: '10.10.10.10' } } },
  test11: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'TCP', clusterIP: 'None', targetPort: '1234', expected: { spec: { ports: p80('TCP', 1234), selector: sel2, clusterIP: 'None' } } },
  test12: { selector: 'foo=bar', name: 'test', port: '80,443', protocol: 'TCP', targetPort: 'foobar', expected: { spec: { ports: two('TCP', 'foobar'), selector: { foo: 'bar' } } } },
  test13: { selector: 'foo=bar', name: 'test', port: '80,443', protocol: 'UDP', targetPort: '1234', expected: { spec: { ports: two('UDP', 1234), selector: { foo: 'bar' } } } },
  test14: { selector: 'foo=bar', name: 'test', port: '80,443', protocol: 'TCP', expected: { spec: { ports: two('TCP'), selector: { foo: 'bar' } } } },
  test15: {
    selector: 'foo=bar',
    name: 'test',
    port: '80,8080',
    protocols: '8080/UDP',
    expected: { spec: { ports: [{ name: 'port-1', protocol: 'TCP', port: 80, targetPort: 80 }, { name: 'port-2', protocol: 'UDP', port: 8080, targetPort: 8080 }], selector: { foo: 'bar' } } },
  },
  test16: {
    selector: 'foo=bar',
    name: 'test',
    port: '80,8080,8081',
    protocols: '8080/UDP,8081/TCP',
    expected: {
      spec: {
        ports: [
          { name: 'port-1', protocol: 'TCP', port: 80, targetPort: 80 },
          { name: 'port-2', protocol: 'UDP', port: 8080, targetPort: 8080 },
          { name: 'port-3', protocol: 'TCP', port: 8081, targetPort: 8081 },
        ],
        selector: { foo: 'bar' },
      },
    },
  },
  test17: { selector: 'foo=bar,baz=blah', name: 'test', protocol: 'TCP', clusterIP: 'None', expected: { spec: { selector: sel2, clusterIP: 'None' } } },
  test18: { selector: 'foo=bar', name: 'test', clusterIP: 'None', expected: { spec: { selector: { foo: 'bar' }, clusterIP: 'None' } } },
  test19: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'SCTP', targetPort: '1234', expected: { spec: { ports: p80('SCTP', 1234), selector: sel2 } } },
  test20: { selector: 'foo=bar,baz=blah', labels: 'key1=value1,key2=value2', name: 'test', port: '80', protocol: 'SCTP', targetPort: '1234', expected: { labels: { key1: 'value1', key2: 'value2' }, spec: { ports: p80('SCTP', 1234), selector: sel2 } } },
  test21: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'SCTP', targetPort: '1234', expected: { spec: { ports: p80('SCTP', 1234), selector: sel2 } } },
  test22: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'SCTP', sessionAffinity: 'ClientIP', targetPort: '1234', expected: { spec: { ports: p80('SCTP', 1234), selector: sel2, sessionAffinity: 'ClientIP' } } },
  test23: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'SCTP', clusterIP: '10.10.10.10', targetPort: '1234', expected: { spec: { ports: p80('SCTP', 1234), selector: sel2, clusterIP: '10.10.10.10' } } },
  test24: { selector: 'foo=bar,baz=blah', name: 'test', port: '80', protocol: 'SCTP', clusterIP: 'None', targetPort: '1234', expected: { spec: { ports: p80('SCTP', 1234), selector: sel2, clusterIP: 'None' } } },
  test25: { selector: 'foo=bar', name: 'test', port: '80,443', protocol: 'SCTP', targetPort: 'foobar', expected: { spec: { ports: two('SCTP', 'foobar'), selector: { foo: 'bar' } } } },
  test26: { selector: 'foo=bar', name: 'test', port: '80,443', protocol: 'SCTP', expected: { spec: { ports: two('SCTP'), selector: { foo: 'bar' } } } },
  test27: {
    selector: 'foo=bar',
    name: 'test',
    port: '80,8080',
    protocols: '8080/SCTP',
    expected: { spec: { ports: [{ name: 'port-1', protocol: 'TCP', port: 80, targetPort: 80 }, { name: 'port-2', protocol: 'SCTP', port: 8080, targetPort: 8080 }], selector: { foo: 'bar' } } },
  },
  test28: {
    selector: 'foo=bar',
    name: 'test',
    port: '80,8080,8081,8082',
    protocols: '8080/UDP,8081/TCP,8082/SCTP',
    expected: {
      spec: {
        ports: [
          { name: 'port-1', protocol: 'TCP', port: 80, targetPort: 80 },
          { name: 'port-2', protocol: 'UDP', port: 8080, targetPort: 8080 },
          { name: 'port-3', protocol: 'TCP', port: 8081, targetPort: 8081 },
          { name: 'port-4', protocol: 'SCTP', port: 8082, targetPort: 8082 },
        ],
        selector: { foo: 'bar' },
      },
    },
  },
  'test 29': { selector: 'foo=bar,baz=blah', name: 'test', protocol: 'SCTP', targetPort: '1234', clusterIP: 'None', expected: { spec: { selector: sel2, clusterIP: 'None' } } },
  // Fixed #114402 kubectl expose fails for apps with same-port, different-protocol
  'test #114402': {
    selector: 'foo=bar,baz=blah',
    name: 'test',
    clusterIP: 'None',
    protocols: '53/TCP,53/UDP',
    port: '53',
    expected: { spec: { ports: [{ name: 'port-1-tcp', protocol: 'TCP', port: 53, targetPort: 53 }, { name: 'port-1-udp', protocol: 'UDP', port: 53, targetPort: 53 }], selector: sel2, clusterIP: 'None' } },
  },
  'check selector': { name: 'test', protocol: 'SCTP', targetPort: '1234', clusterIP: 'None', expectErr: 'selector must be specified' },
  'check name': { selector: 'foo=bar,baz=blah', protocol: 'SCTP', targetPort: '1234', clusterIP: 'None', expectErr: 'name must be specified' },
};

describe('createService: kubectl expose_test.go TestGenerateService rows', () => {
  for (const [name, row] of Object.entries(GENERATE)) {
    test(name, () => {
      const flags: ExposeFlags = {
        selector: row.selector,
        name: row.name,
        port: row.port,
        protocol: row.protocol,
        targetPort: row.targetPort,
        clusterIP: row.clusterIP,
        labels: row.labels,
        externalIP: row.externalIP,
        type: row.serviceType,
        sessionAffinity: row.sessionAffinity,
      };
      const r = exposeService(flags, { source: optionsOnly(protocolsOption(row.protocols)), object: { metadata: {} } });
      if (row.expectErr) {
        assert.equal(r.ok, false);
        assert.ok(!r.ok && r.message.startsWith(row.expectErr), !r.ok ? r.message : '');
        return;
      }
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.deepEqual(r.value, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'test', ...(row.expected!.labels ? { labels: row.expected!.labels } : {}) }, spec: row.expected!.spec });
    });
  }
});

const svcBaz = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'baz', namespace: 'test', resourceVersion: '12' }, spec: { selector: { app: 'go' } } };
const SERVICE = exposeSourceFor('', 'Service')!;
const POD = exposeSourceFor('', 'Pod')!;

// expose_test.go TestRunExposeService: the rows' object and flags; `sent` is the rows' `output` (what the
// fake server answers, which is what kubectl built) with the Service as this builder makes it.
const RUN_ROWS: Array<{ name: string; source: ExposeSource; input: KubeObject; flags: ExposeFlags; sent: Record<string, unknown> }> = [
  {
    name: 'expose-service-from-service-no-selector-defined',
    source: SERVICE,
    input: svcBaz,
    flags: { protocol: 'UDP', port: '14', name: 'foo', labels: 'svc=test' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'UDP', port: 14, targetPort: 14 }], selector: { app: 'go' } } },
  },
  {
    name: 'expose-service-from-service',
    source: SERVICE,
    input: svcBaz,
    flags: { selector: 'func=stream', protocol: 'UDP', port: '14', name: 'foo', labels: 'svc=test' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'UDP', port: 14, targetPort: 14 }], selector: { func: 'stream' } } },
  },
  {
    name: 'no-name-passed-from-the-cli',
    source: SERVICE,
    input: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'mayor', namespace: 'default' }, spec: { selector: { run: 'this' } } },
    flags: { selector: 'run=this', port: '80', labels: 'runas=amayor' },
    sent: { metadata: { name: 'mayor', labels: { runas: 'amayor' } }, spec: { ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }], selector: { run: 'this' } } },
  },
  {
    name: 'expose-service (LoadBalancer, dry run)',
    source: SERVICE,
    input: svcBaz,
    flags: { selector: 'func=stream', protocol: 'UDP', port: '14', name: 'foo', labels: 'svc=test', type: 'LoadBalancer' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'UDP', port: 14, targetPort: 14 }], selector: { func: 'stream' }, type: 'LoadBalancer' } },
  },
  {
    name: 'expose-affinity-service',
    source: SERVICE,
    input: svcBaz,
    flags: { selector: 'func=stream', protocol: 'UDP', port: '14', name: 'foo', labels: 'svc=test', type: 'LoadBalancer', sessionAffinity: 'ClientIP' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'UDP', port: 14, targetPort: 14 }], selector: { func: 'stream' }, type: 'LoadBalancer', sessionAffinity: 'ClientIP' } },
  },
  {
    name: 'expose-service-cluster-ip',
    source: SERVICE,
    input: svcBaz,
    flags: { selector: 'func=stream', protocol: 'UDP', port: '14', name: 'foo', labels: 'svc=test', clusterIP: '10.10.10.10' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'UDP', port: 14, targetPort: 14 }], selector: { func: 'stream' }, clusterIP: '10.10.10.10' } },
  },
  {
    name: 'expose-headless-service',
    source: SERVICE,
    input: svcBaz,
    flags: { selector: 'func=stream', protocol: 'UDP', port: '14', name: 'foo', labels: 'svc=test', clusterIP: 'None' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'UDP', port: 14, targetPort: 14 }], selector: { func: 'stream' }, clusterIP: 'None' } },
  },
  {
    name: 'expose-headless-service-no-port',
    source: SERVICE,
    input: svcBaz,
    flags: { selector: 'func=stream', name: 'foo', labels: 'svc=test', clusterIP: 'None' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { selector: { func: 'stream' }, clusterIP: 'None' } },
  },
  {
    name: 'truncate-name',
    source: POD,
    input: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a-name-that-is-toooo-big-for-a-service-because-it-can-only-handle-63-characters', namespace: 'test' } },
    flags: { selector: 'svc=frompod', port: '90', labels: 'svc=frompod' },
    sent: { metadata: { name: 'a-name-that-is-toooo-big-for-a-service-because-it-can-only-hand', labels: { svc: 'frompod' } }, spec: { ports: [{ protocol: 'TCP', port: 90, targetPort: 90 }], selector: { svc: 'frompod' } } },
  },
  {
    name: 'expose-multiport-object',
    source: SERVICE,
    input: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'foo', labels: { svc: 'multiport' } }, spec: { ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }, { protocol: 'TCP', port: 443, targetPort: 443 }] } },
    flags: { selector: 'svc=fromfoo', name: 'fromfoo' },
    sent: { metadata: { name: 'fromfoo', labels: { svc: 'multiport' } }, spec: { ports: two('TCP'), selector: { svc: 'fromfoo' } } },
  },
  {
    name: 'expose-multiprotocol-object',
    source: SERVICE,
    input: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'foo', labels: { svc: 'multiport' } },
      spec: { ports: [{ protocol: 'TCP', port: 80 }, { protocol: 'UDP', port: 8080 }, { protocol: 'UDP', port: 8081 }, { protocol: 'SCTP', port: 8082 }] },
    },
    flags: { selector: 'svc=fromfoo', name: 'fromfoo' },
    sent: {
      metadata: { name: 'fromfoo', labels: { svc: 'multiport' } },
      spec: {
        ports: [
          { name: 'port-1', protocol: 'TCP', port: 80, targetPort: 80 },
          { name: 'port-2', protocol: 'UDP', port: 8080, targetPort: 8080 },
          { name: 'port-3', protocol: 'UDP', port: 8081, targetPort: 8081 },
          { name: 'port-4', protocol: 'SCTP', port: 8082, targetPort: 8082 },
        ],
        selector: { svc: 'fromfoo' },
      },
    },
  },
  {
    name: 'expose-service-from-service-no-selector-defined-sctp',
    source: SERVICE,
    input: svcBaz,
    flags: { protocol: 'SCTP', port: '14', name: 'foo', labels: 'svc=test' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'SCTP', port: 14, targetPort: 14 }], selector: { app: 'go' } } },
  },
  {
    name: 'expose-service-cluster-ip-sctp',
    source: SERVICE,
    input: svcBaz,
    flags: { selector: 'func=stream', protocol: 'SCTP', port: '14', name: 'foo', labels: 'svc=test', clusterIP: '10.10.10.10' },
    sent: { metadata: { name: 'foo', labels: { svc: 'test' } }, spec: { ports: [{ protocol: 'SCTP', port: 14, targetPort: 14 }], selector: { func: 'stream' }, clusterIP: '10.10.10.10' } },
  },
];

describe('RunExpose introspection: kubectl expose_test.go TestRunExposeService rows', () => {
  for (const row of RUN_ROWS) {
    test(row.name, () => {
      const r = exposeService(row.flags, { source: row.source, object: row.input });
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.deepEqual(r.value, { apiVersion: 'v1', kind: 'Service', ...row.sent });
    });
  }
});

describe('per-kind introspection: kubectl polymorphichelpers tests', () => {
  const dep = (selector: unknown): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector, template: { metadata: { labels: { foo: 'bar' } }, spec: { containers: [] } } } });
  const rs = (selector: unknown): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: { selector, template: { metadata: { labels: { foo: 'bar' } }, spec: { containers: [] } } } });
  const DEPLOYMENT = exposeSourceFor('apps', 'Deployment')!;
  const REPLICASET = exposeSourceFor('apps', 'ReplicaSet')!;
  const RC = exposeSourceFor('', 'ReplicationController')!;

  test('mapbasedselectorforobject_test.go TestMapBasedSelectorForObject (apps/v1 and core rows)', () => {
    const rows: Array<[ExposeSource, KubeObject, Record<string, string> | 'error']> = [
      [RC, { metadata: {}, spec: { selector: { foo: 'bar' } } }, { foo: 'bar' }],
      [POD, { metadata: {} }, 'error'],
      [POD, { metadata: { labels: { foo: 'bar' } } }, { foo: 'bar' }],
      [SERVICE, { metadata: {}, spec: { selector: { foo: 'bar' } } }, { foo: 'bar' }],
      [SERVICE, { metadata: {} }, 'error'],
      [DEPLOYMENT, dep({ matchLabels: { foo: 'bar' } }), { foo: 'bar' }],
      [DEPLOYMENT, dep(undefined), 'error'], // apps/v1 Deployment with only labels (no selectors)
      [DEPLOYMENT, { metadata: {}, spec: {} }, 'error'],
      [DEPLOYMENT, dep({ matchExpressions: [{ key: 'foo' }] }), 'error'],
      [DEPLOYMENT, dep(null), 'error'],
      [REPLICASET, rs({ matchLabels: { foo: 'bar' } }), { foo: 'bar' }],
      [REPLICASET, rs(undefined), 'error'],
      [REPLICASET, rs({ matchExpressions: [{ key: 'foo' }] }), 'error'],
    ];
    for (const [source, obj, want] of rows) {
      const got = source.selector(obj);
      if (want === 'error') assert.equal(got.ok, false, JSON.stringify(obj));
      else assert.deepEqual(got, { ok: true, labels: want });
    }
  });

  test("kubectl's messages: no selector, expressions (Go's %+v of the requirements), a pod without labels", () => {
    assert.deepEqual(DEPLOYMENT.selector(dep(undefined)), { ok: false, reason: 'invalid deployment: no selectors, therefore cannot be exposed' });
    assert.deepEqual(REPLICASET.selector(rs({ matchLabels: {} })), { ok: false, reason: 'invalid replicaset: no selectors, therefore cannot be exposed' });
    // matchLabels are looked at first: expressions alone read as "no selectors", as kubectl
    assert.deepEqual(DEPLOYMENT.selector(dep({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] })), { ok: false, reason: 'invalid deployment: no selectors, therefore cannot be exposed' });
    assert.deepEqual(DEPLOYMENT.selector(dep({ matchLabels: { a: 'b' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }, { key: 'x', operator: 'Exists' }] })), {
      ok: false,
      reason: 'couldn\'t convert expressions - "[{Key:tier Operator:In Values:[web api]} {Key:x Operator:Exists Values:[]}]" to map-based selector format',
    });
    assert.equal(goRequirements([{ key: 'tier', operator: 'In', values: ['web'] }]), '[{Key:tier Operator:In Values:[web]}]');
    assert.deepEqual(POD.selector({ metadata: { labels: {} } }), { ok: false, reason: 'the pod has no labels and cannot be exposed' });
    assert.deepEqual(SERVICE.selector({ metadata: {}, spec: {} }), { ok: false, reason: 'the service has no pod selector set' });
  });

  const pod = (ports: Array<{ containerPort: number; protocol?: string }>): KubeObject => ({ metadata: {}, spec: { containers: [{ name: 'c', ports }] } });
  test('portsforobject_test.go TestPortsForObject: each port once, in order', () => {
    assert.deepEqual(POD.ports(pod([{ containerPort: 101 }])), [101]);
    assert.deepEqual(POD.ports(pod([{ containerPort: 101 }, { containerPort: 102 }])), [101, 102]);
    assert.deepEqual(POD.ports(pod([{ containerPort: 101, protocol: 'TCP' }, { containerPort: 101, protocol: 'UDP' }, { containerPort: 102 }])), [101, 102]);
    assert.deepEqual(POD.ports(pod([{ containerPort: 101, protocol: 'TCP' }, { containerPort: 102 }, { containerPort: 101, protocol: 'UDP' }])), [101, 102]);
    assert.deepEqual(SERVICE.ports({ metadata: {}, spec: { ports: [{ port: 101 }] } }), [101]);
    assert.deepEqual(RC.ports({ metadata: {}, spec: { template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 101 }] }] } } } }), [101]);
  });

  test('multiprotocolsforobject_test.go TestMultiProtocolsForObject (unset protocol = TCP)', () => {
    const asObj = (m: Map<number, string[]>) => Object.fromEntries(m);
    assert.deepEqual(asObj(POD.protocols(pod([{ containerPort: 101, protocol: 'TCP' }]))), { 101: ['TCP'] });
    assert.deepEqual(asObj(POD.protocols(pod([{ containerPort: 101 }]))), { 101: ['TCP'] });
    assert.deepEqual(asObj(POD.protocols(pod([{ containerPort: 101, protocol: 'TCP' }, { containerPort: 101, protocol: 'UDP' }]))), { 101: ['TCP', 'UDP'] });
    assert.deepEqual(asObj(SERVICE.protocols({ metadata: {}, spec: { ports: [{ port: 101, protocol: 'TCP' }] } })), { 101: ['TCP'] });
    assert.deepEqual(asObj(SERVICE.protocols({ metadata: {}, spec: { ports: [{ port: 101 }] } })), { 101: ['TCP'] });
    assert.deepEqual(asObj(RC.protocols({ metadata: {}, spec: { template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 101, protocol: 'TCP' }] }] } } } })), { 101: ['TCP'] });
  });

  test('canbeexposed: the kinds kubectl takes, plus CloneSet (kruise-tools), ASTS and UnitedDeployment; DaemonSets and StatefulSets refused', () => {
    assert.deepEqual(EXPOSE_SOURCES.map((s) => `${s.group}/${s.kind}`), ['/Pod', '/Service', '/ReplicationController', 'apps/Deployment', 'apps/ReplicaSet', 'apps.kruise.io/CloneSet', 'apps.kruise.io/StatefulSet', 'apps.kruise.io/UnitedDeployment']);
    assert.equal(exposeRefusal('apps', 'DaemonSet'), 'cannot expose a DaemonSet.apps');
    assert.equal(exposeRefusal('apps', 'StatefulSet'), 'cannot expose a StatefulSet.apps');
    assert.equal(exposeRefusal('apps.kruise.io', 'DaemonSet'), 'cannot expose a DaemonSet.apps.kruise.io');
    assert.equal(exposeRefusal('', 'ConfigMap'), 'cannot expose a ConfigMap');
    assert.equal(exposeRefusal('apps.kruise.io', 'CloneSet'), undefined);
  });
});

describe('Kruise workloads (kruise-tools pkg/internal/polymorphichelpers CloneSet rules, extended to ASTS and UnitedDeployment)', () => {
  test('CloneSet v1alpha1: matchLabels, its ports (kruise-tools has no PortsForObject for it: "cannot extract ports"), its labels', () => {
    const cs = fixture('cloneset-web.yaml');
    const r = exposeService({ port: '80', targetPort: '8080' }, { source: exposeSourceFor('apps.kruise.io', 'CloneSet')!, object: cs });
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', labels: { app: 'web', tier: 'frontend' } },
      spec: { ports: [{ protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'web' } },
    });
    const noFlags = exposeService({}, { source: exposeSourceFor('apps.kruise.io', 'CloneSet')!, object: cs });
    assert.ok(noFlags.ok && JSON.stringify(noFlags.value.spec?.ports) === JSON.stringify([{ protocol: 'TCP', port: 8080, targetPort: 8080 }]), 'the containerPort, where kruise-tools fails');
  });

  test('CloneSet v1beta1 with two containers: every port, named port-1, port-2', () => {
    const r = exposeService({}, { source: exposeSourceFor('apps.kruise.io', 'CloneSet')!, object: fixture('cloneset-shop-v1beta1.yaml') });
    assert.ok(r.ok);
    assert.deepEqual(r.value.spec?.ports, [
      { name: 'port-1', protocol: 'TCP', port: 8080, targetPort: 8080 },
      { name: 'port-2', protocol: 'TCP', port: 9090, targetPort: 9090 },
    ]);
  });

  test('Advanced StatefulSet, headless; UnitedDeployment: its selector and the subset template\'s ports, one per protocol', () => {
    const asts = exposeService({ clusterIP: 'None', name: 'db-headless' }, { source: exposeSourceFor('apps.kruise.io', 'StatefulSet')!, object: fixture('asts-db.yaml') });
    assert.ok(asts.ok);
    assert.deepEqual(asts.value.spec, {
      ports: [
        { name: 'port-1', protocol: 'TCP', port: 5432, targetPort: 5432 },
        { name: 'port-2', protocol: 'TCP', port: 9187, targetPort: 9187 },
      ],
      selector: { app: 'db' },
      clusterIP: 'None',
    });
    const ud = exposeService({}, { source: exposeSourceFor('apps.kruise.io', 'UnitedDeployment')!, object: fixture('ud-dns.yaml') });
    assert.ok(ud.ok);
    assert.deepEqual(ud.value.spec, {
      ports: [
        { name: 'port-1-udp', protocol: 'UDP', port: 53, targetPort: 53 },
        { name: 'port-1-tcp', protocol: 'TCP', port: 53, targetPort: 53 },
      ],
      selector: { app: 'dns' },
    });
    assert.deepEqual(serviceProblems(ud.value), [], 'a Service the API takes');
  });

  test('refusals with kubectl\'s words: expressions in the selector, no port', () => {
    const source = exposeSourceFor('apps.kruise.io', 'CloneSet')!;
    const batch = fixture('cloneset-batch.yaml');
    const expr = exposeService({ port: '80' }, { source, object: batch });
    assert.deepEqual(expr, { ok: false, message: 'couldn\'t retrieve selectors via --selector flag or introspection: couldn\'t convert expressions - "[{Key:tier Operator:In Values:[worker spare]}]" to map-based selector format' });
    const noPort = exposeService({ selector: 'app=batch' }, { source, object: batch });
    assert.equal(noPort.ok, false);
    assert.match(!noPort.ok ? noPort.message : '', /^couldn't find port via --port flag or introspection/);
    assert.equal(exposeService({ selector: 'app=batch', clusterIP: 'None' }, { source, object: batch }).ok, true, 'headless needs no port');
    assert.deepEqual(source.selector({ metadata: {}, spec: { selector: { matchLabels: {} } } }), { ok: false, reason: 'invalid CloneSet: no selectors, therefore cannot be exposed' });
  });

  test('a port two containers declare with one protocol is one Service port (kubectl makes two "port-1-tcp" the API refuses)', () => {
    const obj: KubeObject = {
      metadata: { name: 'twice', labels: { app: 'x' } },
      spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] }, { name: 'b', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    };
    const r = exposeService({}, { source: POD, object: obj });
    assert.ok(r.ok);
    assert.deepEqual(r.value.spec?.ports, [
      { name: 'port-1', protocol: 'TCP', port: 80, targetPort: 80 },
      { name: 'port-2', protocol: 'UDP', port: 53, targetPort: 53 },
    ]);
    assert.deepEqual(serviceProblems(r.value), []);
  });

  test('--port on an object whose containers serve it: the protocol comes from the container', () => {
    const r = exposeService({ port: '53' }, { source: exposeSourceFor('apps.kruise.io', 'UnitedDeployment')!, object: fixture('ud-dns.yaml') });
    assert.ok(r.ok);
    assert.deepEqual(r.value.spec?.ports?.map((p) => `${p.name}:${p.port}/${p.protocol}`), ['port-1-udp:53/UDP', 'port-1-tcp:53/TCP']);
    const flagged = exposeService({ port: '53', protocol: 'TCP' }, { source: exposeSourceFor('apps.kruise.io', 'UnitedDeployment')!, object: fixture('ud-dns.yaml') });
    assert.ok(flagged.ok);
    assert.deepEqual(flagged.value.spec?.ports, [{ protocol: 'TCP', port: 53, targetPort: 53 }], '--protocol wins over the containers');
  });
});

describe('flags checked before any request (what the API server would refuse, said in flag terms)', () => {
  test('ports, target ports, label specs', () => {
    assert.deepEqual(parsePortList('80,443'), { ok: true, value: [80, 443] });
    assert.deepEqual(parsePortList('+80'), { ok: true, value: [80] }, "strconv.Atoi's sign");
    for (const bad of ['abc', '80,', '0', '65536', '8o']) assert.equal(parsePortList(bad).ok, false, bad);
    assert.deepEqual(parseTargetPort('8080'), { ok: true, value: 8080 });
    assert.deepEqual(parseTargetPort('http'), { ok: true, value: 'http' });
    assert.deepEqual(parseTargetPort('Bad_Name'), { ok: false, message: 'invalid --target-port "Bad_Name": a port name must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)' });
    assert.equal(parseTargetPort('a-very-long-port-name').ok, false, 'IANA_SVC_NAME: at most 15 characters');
    assert.equal(parseTargetPort('0').ok, false);
    assert.deepEqual(parseLabelSpec('app=web,tier=fe', '--selector'), { ok: true, value: { app: 'web', tier: 'fe' } });
    assert.deepEqual(parseLabelSpec('a==b', '--selector'), { ok: false, message: 'invalid --selector "a==b": unexpected label spec: a==b (use key=value[,key=value...]; only equality)' });
    assert.deepEqual(parseLabelSpec('=b', '--labels'), { ok: false, message: 'invalid --labels "=b": unexpected empty label key' });
    assert.equal(parseLabelSpec('a!=b', '--selector').ok, false, 'kubectl sends key "a!", which the API refuses');
  });

  test('protocol, type, name, affinity, IPs', () => {
    const bad: Array<[ExposeFlags, RegExp]> = [
      [{ protocol: 'tcp' }, /^invalid --protocol "tcp": supported values: "TCP", "UDP", "SCTP" \(protocols are upper case: TCP\)$/],
      [{ protocol: 'HTTP' }, /^invalid --protocol "HTTP"/],
      [{ type: 'Foo' }, /^invalid --type "Foo": supported values: "ClusterIP", "NodePort", "LoadBalancer"$/],
      [{ type: 'ExternalName' }, /^--type=ExternalName needs spec.externalName/],
      [{ name: '1abc' }, /^invalid --name "1abc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character/],
      [{ name: 'a'.repeat(64) }, /^invalid --name "a{64}": must be no more than 63 characters$/],
      [{ sessionAffinity: 'Sticky' }, /^unknown session affinity: Sticky/],
      [{ clusterIP: '1.2.3' }, /^invalid --cluster-ip "1.2.3": must be empty, 'None', or a valid IP address$/],
      [{ clusterIP: 'None', type: 'NodePort' }, /^--cluster-ip=None \(a headless Service\) cannot be combined with --type=NodePort/],
      [{ externalIP: '127.0.0.1' }, /^invalid --external-ip "127.0.0.1": may not be in the loopback range/],
      [{ externalIP: 'myhost' }, /^invalid --external-ip "myhost": must be a valid IP address/],
      [{ loadBalancerIP: '300.1.1.1' }, /^invalid --load-balancer-ip "300.1.1.1"/],
    ];
    for (const [flags, want] of bad) {
      const r = checkExposeFlags(flags);
      assert.equal(r.ok, false, JSON.stringify(flags));
      assert.match(!r.ok ? r.message : '', want);
    }
    assert.equal(checkExposeFlags({ port: '80', targetPort: 'http', protocol: 'SCTP', name: 'web', type: 'LoadBalancer', loadBalancerIP: '10.0.0.9', externalIP: '1.2.3.4', clusterIP: '10.96.0.99', sessionAffinity: 'ClientIP', selector: 'app=web', labels: 'team=a' }).ok, true);
  });

  test('the Service as the API sees it: a default name the API refuses is caught (kubectl would send it)', () => {
    const r = exposeService({ port: '80' }, { source: POD, object: { metadata: { name: '1pod', labels: { app: 'x' } } } });
    assert.ok(r.ok);
    assert.match(serviceProblems(r.value)[0]!, /^metadata\.name: Invalid value: "1pod": a DNS-1035 label/);
  });
});
