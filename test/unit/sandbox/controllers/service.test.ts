// The sandbox's Service admission (src/sandbox/controllers/service.ts) on the real store: cluster IPs and
// node ports allocated as kube-apiserver's Service REST storage does (pkg/registry/core/service/storage
// alloc.go: requested addresses in range and free, one node port per port number), the strategy on updates
// (patchAllocatedValues, dropTypeDependentFields) and validation in one 422 (rules/service.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startOnStore } from '../../../helpers/memory-store';
import { createServiceAllocator, SERVICES } from '../../../../src/sandbox/controllers/service';
import { ApiError } from '../../../../src/sandbox/server/errors';
import { applyServiceDefaults, type Service } from '../../../../src/kruise/rules/service';
import type { KubeObject } from '../../../../src/kruise/types';

function start() {
  return startOnStore([createServiceAllocator()], { readyDelayMs: 30, kruise: 'v1.9', nodes: 1 });
}

/** What the API path does before the store: the server's built-in defaults (builtin-defaults.ts). */
const svc = (name: string, spec: Record<string, unknown>): KubeObject => applyServiceDefaults({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { selector: { app: 'web' }, ...spec } } as Service);

function rejected(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  assert.fail('expected a 422');
}

test('create: a cluster IP above the static band, IPv4 single stack, internalTrafficPolicy, status.loadBalancer', () => {
  const rt = start();
  try {
    const a = rt.store.create(SERVICES, svc('a', { ports: [{ port: 80 }] })) as Service;
    assert.deepEqual(
      { clusterIP: a.spec!.clusterIP, clusterIPs: a.spec!.clusterIPs, ipFamilies: a.spec!.ipFamilies, ipFamilyPolicy: a.spec!.ipFamilyPolicy, itp: a.spec!.internalTrafficPolicy, status: a.status },
      { clusterIP: '10.96.1.0', clusterIPs: ['10.96.1.0'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', itp: 'Cluster', status: { loadBalancer: {} } },
    );
    const b = rt.store.create(SERVICES, svc('b', { ports: [{ port: 80 }] })) as Service;
    assert.equal(b.spec!.clusterIP, '10.96.1.1', 'the next free address');
    const asked = rt.store.create(SERVICES, svc('dns', { ports: [{ port: 53 }], clusterIP: '10.96.0.10' })) as Service;
    assert.deepEqual(asked.spec!.clusterIPs, ['10.96.0.10']);
    const headless = rt.store.create(SERVICES, svc('h', { clusterIP: 'None' })) as Service;
    assert.deepEqual([headless.spec!.clusterIP, headless.spec!.clusterIPs, headless.spec!.ports], ['None', ['None'], undefined], 'headless: no address, no port needed');
  } finally {
    rt.stop();
  }
});

test('create: a requested address out of range or taken, an IPv6 address, dual stack: the 422 kube returns', () => {
  const rt = start();
  try {
    rt.store.create(SERVICES, svc('a', { ports: [{ port: 80 }], clusterIP: '10.96.0.20' }));
    const taken = rejected(() => rt.store.create(SERVICES, svc('b', { ports: [{ port: 80 }], clusterIP: '10.96.0.20' })));
    assert.equal(taken.code, 422);
    assert.match(taken.message, /spec\.clusterIPs: Invalid value: \[\]string\{"10\.96\.0\.20"\}: failed to allocate IP 10\.96\.0\.20: provided IP is already allocated/);
    const outside = rejected(() => rt.store.create(SERVICES, svc('c', { ports: [{ port: 80 }], clusterIP: '1.2.3.4' })));
    assert.match(outside.message, /failed to allocate IP 1\.2\.3\.4: the provided IP \(1\.2\.3\.4\) is not in the valid range\. The range of valid IPs is 10\.96\.0\.0\/12/);
    const v6 = rejected(() => rt.store.create(SERVICES, svc('d', { ports: [{ port: 80 }], clusterIP: 'fd00::1' })));
    assert.match(v6.message, /spec\.clusterIPs\[0\]: Invalid value: \[\]string\{"fd00::1"\}: IPv6 is not configured on this cluster/);
    const dual = rejected(() => rt.store.create(SERVICES, svc('e', { ports: [{ port: 80 }], ipFamilyPolicy: 'RequireDualStack' })));
    assert.match(dual.message, /spec\.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services/);
    assert.equal(rt.store.list(SERVICES).length, 1, 'nothing stored by the refused creates');
  } finally {
    rt.stop();
  }
});

test('create: every validation error of the Service in one 422 (what real kubectl expose sends and kube refuses)', () => {
  const rt = start();
  try {
    const bad = rejected(() => rt.store.create(SERVICES, svc('y', { ports: [{ port: 70000, protocol: 'FOO' }], type: 'Foo', externalIPs: ['127.0.0.1'] })));
    assert.equal(bad.code, 422);
    for (const want of [
      'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.ports[0].protocol: Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"',
      'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]) {
      assert.ok(bad.message.includes(want), `${want}\nin: ${bad.message}`);
    }
    // kubectl v1.32 exposes a port two containers declare as two "port-1-tcp" entries: kube refuses both ways
    const twice = rejected(() =>
      rt.store.create(SERVICES, svc('multi', { ports: [{ name: 'port-1-tcp', port: 80, protocol: 'TCP', targetPort: 80 }, { name: 'port-1-tcp', port: 80, protocol: 'TCP', targetPort: 80 }] })),
    );
    assert.match(twice.message, /spec\.ports\[1\]\.name: Duplicate value: "port-1-tcp"/);
    assert.match(twice.message, /spec\.ports\[1\]: Duplicate value: core\.ServicePort\{Name:"", Protocol:"TCP", AppProtocol:\(\*string\)\(nil\), Port:80,/);
    const headlessNodePort = rejected(() => rt.store.create(SERVICES, svc('hn', { ports: [{ port: 80 }], type: 'NodePort', clusterIP: 'None' })));
    assert.match(headlessNodePort.message, /spec\.clusterIPs\[0\]: Invalid value: "None": may not be set to 'None' for NodePort services/);
  } finally {
    rt.stop();
  }
});

test('node ports: one per port number (TCP and UDP of 53 share one), requested ones in range and free; LoadBalancer without node ports', () => {
  const rt = start();
  try {
    const np = rt.store.create(SERVICES, svc('np', { type: 'NodePort', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }, { name: 'web', port: 80 }] })) as Service;
    assert.deepEqual(np.spec!.ports!.map((p) => p.nodePort), [30000, 30000, 30001]);
    assert.equal(np.spec!.externalTrafficPolicy, 'Cluster');
    const taken = rejected(() => rt.store.create(SERVICES, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] })));
    assert.match(taken.message, /spec\.ports\[0\]\.nodePort: Invalid value: 30001: provided port is already allocated/);
    const outside = rejected(() => rt.store.create(SERVICES, svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] })));
    assert.match(outside.message, /provided port is not in the valid range\. The range of valid ports is 30000-32767/);
    const lb = rt.store.create(SERVICES, svc('lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] })) as Service;
    assert.equal(lb.spec!.ports![0]!.nodePort, undefined);
    const local = rt.store.create(SERVICES, svc('local', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] })) as Service;
    assert.deepEqual([local.spec!.ports![0]!.nodePort, local.spec!.healthCheckNodePort], [30002, 30003]);
  } finally {
    rt.stop();
  }
});

test('update: allocated values kept when a client leaves them out, a set cluster IP may not change, type changes drop what no longer applies', () => {
  const rt = start();
  try {
    const a = rt.store.create(SERVICES, svc('a', { ports: [{ port: 80 }] })) as Service;
    // a PUT without the allocated fields (kubectl replace of a hand-written manifest)
    const kept = rt.store.update(SERVICES, svc('a', { ports: [{ port: 81 }] })) as Service;
    assert.deepEqual([kept.spec!.clusterIP, kept.spec!.ports![0]!.port], [a.spec!.clusterIP, 81]);
    const moved = rejected(() => rt.store.update(SERVICES, { ...kept, spec: { ...kept.spec, clusterIP: '10.96.5.5', clusterIPs: ['10.96.5.5'] } } as KubeObject));
    assert.match(moved.message, /spec\.clusterIPs\[0\]: Invalid value: \[\]string\{"10\.96\.5\.5"\}: may not change once set/);
    const toNodePort = rt.store.update(SERVICES, { ...kept, spec: { ...kept.spec, type: 'NodePort' } } as KubeObject) as Service;
    assert.equal(toNodePort.spec!.ports![0]!.nodePort, 30000);
    assert.equal(toNodePort.spec!.externalTrafficPolicy, 'Cluster');
    const back = rt.store.update(SERVICES, { ...toNodePort, spec: { ...toNodePort.spec, type: 'ClusterIP' } } as KubeObject) as Service;
    assert.deepEqual([back.spec!.ports![0]!.nodePort, back.spec!.externalTrafficPolicy], [undefined, undefined], 'NodePort -> ClusterIP drops the node port and the traffic policy');
    assert.equal(back.spec!.clusterIP, a.spec!.clusterIP);
  } finally {
    rt.stop();
  }
});
