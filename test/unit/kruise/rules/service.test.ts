// The core/v1 Service rules (src/kruise/rules/service.ts) shared by `expose` and the sandbox.
// Rows ported from k8s.io/kubernetes pkg/apis/core/validation/validation_test.go TestValidateServiceCreate
// (each row tweaks makeValidService and counts the errors; the namespace and generateName rows belong to the
// store's ObjectMeta checks and are left out), plus the messages kube-apiserver v1.32 prints and
// SetDefaults_Service (pkg/apis/core/v1/defaults.go).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyServiceDefaults, normalizeClusterIPs, validateService, type Service } from '../../../../src/kruise/rules/service';
import { fieldErrorMessage } from '../../../../src/kruise/rules/cloneset-webhook';
import { cidrContains, parseCIDR, parseIP, specialIPProblem } from '../../../../src/kruise/ip';

/** validation_test.go makeValidService. */
function makeValidService(): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'valid', namespace: 'valid', labels: {}, annotations: {}, resourceVersion: '1' },
    spec: { selector: { key: 'val' }, sessionAffinity: 'None', type: 'ClusterIP', ports: [{ name: 'p', protocol: 'TCP', port: 8675, targetPort: 8675 }], internalTrafficPolicy: 'Cluster' },
  };
}

type Tweak = (s: Service & { spec: NonNullable<Service['spec']> }) => void;
const lb: Tweak = (s) => {
  s.spec.type = 'LoadBalancer';
  s.spec.externalTrafficPolicy = 'Cluster';
  s.spec.allocateLoadBalancerNodePorts = true;
};
const nodePort: Tweak = (s) => {
  s.spec.type = 'NodePort';
  s.spec.externalTrafficPolicy = 'Cluster';
};
const addPort = (s: Service, p: Record<string, unknown>): void => {
  s.spec!.ports = [...(s.spec!.ports ?? []), { protocol: 'TCP', ...p }];
};
const ips = (s: Service, clusterIP: string, list: string[], policy?: string, families?: string[]): void => {
  s.spec!.clusterIP = clusterIP;
  s.spec!.clusterIPs = list;
  if (policy) s.spec!.ipFamilyPolicy = policy;
  if (families) s.spec!.ipFamilies = families;
};

const ROWS: Array<[string, Tweak, number]> = [
  ['missing name', (s) => void (s.metadata.name = ''), 1],
  ['invalid name', (s) => void (s.metadata.name = '-123'), 1],
  ['too long name', (s) => void (s.metadata.name = 'a'.repeat(64)), 1],
  ['invalid label', (s) => void (s.metadata.labels!['NoUppercaseOrSpecialCharsLike=Equals'] = 'bar'), 1],
  ['invalid annotation', (s) => void (s.metadata.annotations!['NoSpecialCharsLike=Equals'] = 'bar'), 1],
  ['nil selector', (s) => void delete s.spec.selector, 0],
  ['invalid selector', (s) => void (s.spec.selector!['NoSpecialCharsLike=Equals'] = 'bar'), 1],
  ['missing session affinity', (s) => void (s.spec.sessionAffinity = ''), 1],
  ['missing type', (s) => void (s.spec.type = ''), 1],
  ['missing ports', (s) => void delete s.spec.ports, 1],
  ['missing ports but headless', (s) => (delete s.spec.ports, ips(s, 'None', ['None'])), 0],
  ['empty port[0] name', (s) => void (s.spec.ports![0]!.name = ''), 0],
  ['empty port[1] name', (s) => addPort(s, { name: '', port: 12345, targetPort: 12345 }), 1],
  ['empty multi-port port[0] name', (s) => (s.spec.ports![0]!.name = '', addPort(s, { name: 'p', port: 12345, targetPort: 12345 })), 1],
  ['invalid port name', (s) => void (s.spec.ports![0]!.name = 'INVALID'), 1],
  ['missing protocol', (s) => void (s.spec.ports![0]!.protocol = ''), 1],
  ['invalid protocol', (s) => void (s.spec.ports![0]!.protocol = 'INVALID'), 1],
  ['invalid cluster ip', (s) => ips(s, 'invalid', ['invalid']), 1],
  ['missing port', (s) => void (s.spec.ports![0]!.port = 0), 1],
  ['invalid port', (s) => void (s.spec.ports![0]!.port = 65536), 1],
  ['invalid TargetPort int', (s) => void (s.spec.ports![0]!.targetPort = 65536), 1],
  ['valid port headless', (s) => (Object.assign(s.spec.ports![0]!, { port: 11722, targetPort: 11722 }), ips(s, 'None', ['None'])), 0],
  ['invalid port headless 1 (tolerated in v1)', (s) => (Object.assign(s.spec.ports![0]!, { port: 11722, targetPort: 11721 }), ips(s, 'None', ['None'])), 0],
  ['invalid port headless 2 (tolerated in v1)', (s) => (Object.assign(s.spec.ports![0]!, { port: 11722, targetPort: 'target' }), ips(s, 'None', ['None'])), 0],
  ['invalid publicIPs localhost', (s) => void Object.assign(s.spec, { externalTrafficPolicy: 'Cluster', externalIPs: ['127.0.0.1'] }), 1],
  ['invalid publicIPs unspecified', (s) => void Object.assign(s.spec, { externalTrafficPolicy: 'Cluster', externalIPs: ['0.0.0.0'] }), 1],
  ['invalid publicIPs host', (s) => void Object.assign(s.spec, { externalTrafficPolicy: 'Cluster', externalIPs: ['myhost.mydomain'] }), 1],
  ['valid publicIPs', (s) => void Object.assign(s.spec, { externalTrafficPolicy: 'Cluster', externalIPs: ['1.2.3.4'] }), 0],
  ['dup port name', (s) => (s.spec.ports![0]!.name = 'p', addPort(s, { name: 'p', port: 12345, targetPort: 12345 })), 1],
  ['valid load balancer protocol UDP 1', (s) => (lb(s), (s.spec.ports![0]!.protocol = 'UDP')), 0],
  ['valid load balancer protocol UDP 2', (s) => (lb(s), (s.spec.ports![0] = { name: 'q', port: 12345, protocol: 'UDP', targetPort: 12345 })), 0],
  ['load balancer with mix protocol', (s) => (lb(s), addPort(s, { name: 'q', port: 12345, protocol: 'UDP', targetPort: 12345 })), 0],
  ['valid 1', () => {}, 0],
  ['valid 2', (s) => void Object.assign(s.spec.ports![0]!, { protocol: 'UDP', targetPort: 12345 }), 0],
  ['valid 3', (s) => void (s.spec.ports![0]!.targetPort = 'http'), 0],
  ['valid cluster ip - none ', (s) => ips(s, 'None', ['None']), 0],
  ['valid type - loadbalancer with allocateLoadBalancerNodePorts=false', (s) => (lb(s), (s.spec.allocateLoadBalancerNodePorts = false)), 0],
  ['invalid type - missing AllocateLoadBalancerNodePorts for loadbalancer type', (s) => (lb(s), delete s.spec.allocateLoadBalancerNodePorts), 1],
  ['duplicate nodeports', (s) => (nodePort(s), addPort(s, { name: 'q', port: 1, nodePort: 1, targetPort: 1 }), addPort(s, { name: 'r', port: 2, nodePort: 1, targetPort: 2 })), 1],
  [
    'duplicate nodeports (different protocols)',
    (s) => (nodePort(s), addPort(s, { name: 'q', port: 1, nodePort: 1, targetPort: 1 }), addPort(s, { name: 'r', port: 2, protocol: 'UDP', nodePort: 1, targetPort: 2 }), addPort(s, { name: 's', port: 3, protocol: 'SCTP', nodePort: 1, targetPort: 3 })),
    0,
  ],
  ['invalid duplicate ports (with same protocol)', (s) => (addPort(s, { name: 'q', port: 12345, targetPort: 8080 }), addPort(s, { name: 'r', port: 12345, targetPort: 80 })), 1],
  [
    'valid duplicate ports (with different protocols)',
    (s) => (addPort(s, { name: 'q', port: 12345, targetPort: 8080 }), addPort(s, { name: 'r', port: 12345, protocol: 'UDP', targetPort: 80 }), addPort(s, { name: 's', port: 12345, protocol: 'SCTP', targetPort: 8088 })),
    0,
  ],
  ['valid type - nodeport', nodePort, 0],
  ['valid type loadbalancer with NodePort', (s) => (lb(s), addPort(s, { name: 'q', port: 12345, nodePort: 12345, targetPort: 12345 })), 0],
  ['invalid cluster service with NodePort', (s) => addPort(s, { name: 'q', port: 12345, nodePort: 12345, targetPort: 12345 }), 1],
  ['valid port type=LoadBalancer (10250)', (s) => (lb(s), addPort(s, { name: 'kubelet', port: 10250, targetPort: 12345 })), 0],
  ['valid LoadBalancer source range annotation', (s) => (lb(s), (s.metadata.annotations!['service.beta.kubernetes.io/load-balancer-source-ranges'] = '1.2.3.0/24,  5.6.0.0/16')), 0],
  ['valid empty LoadBalancer source range annotation', (s) => (lb(s), (s.metadata.annotations!['service.beta.kubernetes.io/load-balancer-source-ranges'] = '')), 0],
  ['invalid LoadBalancer source range annotation (hostname)', (s) => (lb(s), (s.metadata.annotations!['service.beta.kubernetes.io/load-balancer-source-ranges'] = 'foo.bar')), 1],
  ['invalid LoadBalancer source range annotation (invalid CIDR)', (s) => (lb(s), (s.metadata.annotations!['service.beta.kubernetes.io/load-balancer-source-ranges'] = '1.2.3.4/33')), 1],
  ['invalid LoadBalancer source range annotation for non LoadBalancer type service', (s) => void (s.metadata.annotations!['service.beta.kubernetes.io/load-balancer-source-ranges'] = '1.2.3.0/24'), 1],
  ['valid LoadBalancer source range with whitespace', (s) => (lb(s), (s.spec.loadBalancerSourceRanges = ['1.2.3.0/24  ', ' 5.6.0.0/16'])), 0],
  ['invalid empty LoadBalancer source range', (s) => (lb(s), (s.spec.loadBalancerSourceRanges = ['   '])), 1],
  ['invalid source range for non LoadBalancer type service', (s) => void (s.spec.loadBalancerSourceRanges = ['1.2.3.0/24', '5.6.0.0/16']), 1],
  ['valid ExternalName', (s) => void Object.assign(s.spec, { type: 'ExternalName', externalName: 'foo.bar.example.com' }), 0],
  ['valid ExternalName (trailing dot)', (s) => void Object.assign(s.spec, { type: 'ExternalName', externalName: 'foo.bar.example.com.' }), 0],
  ['invalid ExternalName clusterIP (valid IP)', (s) => (ips(s, '1.2.3.4', ['1.2.3.4']), Object.assign(s.spec, { type: 'ExternalName', externalName: 'foo.bar.example.com' })), 1],
  ['invalid ExternalName clusterIP (None)', (s) => (ips(s, 'None', ['None']), Object.assign(s.spec, { type: 'ExternalName', externalName: 'foo.bar.example.com' })), 1],
  ['invalid ExternalName (not a DNS name)', (s) => void Object.assign(s.spec, { type: 'ExternalName', externalName: '-123' }), 1],
  ['LoadBalancer type cannot have None ClusterIP', (s) => (ips(s, 'None', ['None']), lb(s)), 1],
  ['invalid node port with clusterIP None', (s) => (nodePort(s), addPort(s, { name: 'q', port: 1, nodePort: 1, targetPort: 1 }), ips(s, 'None', ['None'])), 1],
  ['invalid externalTraffic field', (s) => (lb(s), (s.spec.externalTrafficPolicy = 'invalid')), 1],
  ['nil internalTraffic field when feature gate is on', (s) => void delete s.spec.internalTrafficPolicy, 1],
  ['internalTrafficPolicy field nil when type is ExternalName', (s) => (delete s.spec.internalTrafficPolicy, Object.assign(s.spec, { type: 'ExternalName', externalName: 'foo.bar.com' })), 0],
  ['invalid internalTraffic field', (s) => void (s.spec.internalTrafficPolicy = 'invalid'), 1],
  ['internalTrafficPolicy field set to Local', (s) => void (s.spec.internalTrafficPolicy = 'Local'), 0],
  ['negative healthCheckNodePort field', (s) => (lb(s), Object.assign(s.spec, { externalTrafficPolicy: 'Local', healthCheckNodePort: -1 })), 1],
  ['healthCheckNodePort 31100', (s) => (lb(s), Object.assign(s.spec, { externalTrafficPolicy: 'Local', healthCheckNodePort: 31100 })), 0],
  ['invalid timeoutSeconds field', (s) => void Object.assign(s.spec, { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: -1 } } }), 1],
  ["sessionAffinityConfig can't be set when session affinity is None", (s) => (lb(s), (s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 90 } })), 1],
  ['invalid, service with invalid ipFamilies', (s) => void (s.spec.ipFamilies = ['not-a-valid-ip-family']), 1],
  ['invalid, service with invalid ipFamilies (2nd)', (s) => void Object.assign(s.spec, { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'not-a-valid-ip-family'] }), 1],
  ['IPFamilyPolicy(singleStack) is set for two families (validated in alloc code)', (s) => void Object.assign(s.spec, { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] }), 0],
  ['invalid, service with 2+ ipFamilies', (s) => void Object.assign(s.spec, { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6', 'IPv4'] }), 1],
  ['invalid, service with same ip families', (s) => void Object.assign(s.spec, { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv6'] }), 1],
  ['valid, service with valid ipFamilies(v6,v4)', (s) => void Object.assign(s.spec, { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] }), 0],
  ['invalid, garbage single ip', (s) => ips(s, 'garbage-ip', ['garbage-ip']), 1],
  ['invalid, garbage ips', (s) => ips(s, 'garbage-ip', ['garbage-ip', 'garbage-second-ip'], 'RequireDualStack'), 2],
  ['invalid, garbage first ip', (s) => ips(s, 'garbage-ip', ['garbage-ip', '2001::1'], 'RequireDualStack'), 1],
  ['invalid, garbage second ip', (s) => ips(s, '2001::1', ['2001::1', 'garbage-ip'], 'RequireDualStack'), 1],
  ['invalid, NONE + IP', (s) => ips(s, 'None', ['None', '2001::1'], 'RequireDualStack'), 1],
  ['invalid, IP + NONE', (s) => ips(s, '2001::1', ['2001::1', 'None'], 'RequireDualStack'), 1],
  ['invalid, EMPTY STRING + IP', (s) => ips(s, '', ['', '2001::1'], 'RequireDualStack'), 2],
  ['invalid, IP + EMPTY STRING', (s) => ips(s, '2001::1', ['2001::1', ''], 'RequireDualStack'), 1],
  ['invalid, same ip family (v6)', (s) => ips(s, '2001::1', ['2001::1', '2001::4'], 'RequireDualStack', ['IPv4', 'IPv6']), 2],
  ['invalid, same ip family (v4)', (s) => ips(s, '10.0.0.1', ['10.0.0.1', '10.0.0.10'], 'RequireDualStack', ['IPv4', 'IPv6']), 2],
  ['invalid, more than two ips', (s) => ips(s, '10.0.0.1', ['10.0.0.1', '2001::1', '10.0.0.10'], 'RequireDualStack', ['IPv4', 'IPv6']), 1],
  [' multi ip, dualstack not set (request for downgrade)', (s) => ips(s, '10.0.0.1', ['10.0.0.1', '2001::1'], 'SingleStack', ['IPv4', 'IPv6']), 0],
  ['valid, headless-no-selector + multi family + gate off', (s) => (ips(s, 'None', ['None'], 'RequireDualStack', ['IPv4', 'IPv6']), delete s.spec.selector), 0],
  ['valid, multi ip, single ipfamilies preferDualStack', (s) => ips(s, '10.0.0.1', ['10.0.0.1', '2001::1'], 'PreferDualStack', ['IPv4']), 0],
  ["invalid, families don't match (v4=>v6)", (s) => ips(s, '10.0.0.1', ['10.0.0.1'], undefined, ['IPv6']), 1],
  ["invalid, families don't match (v6=>v4)", (s) => ips(s, '2001::1', ['2001::1'], undefined, ['IPv4']), 1],
  ['valid, single ip + single family', (s) => ips(s, '2001::1', ['2001::1'], 'SingleStack', ['IPv6']), 0],
];

describe('validateService: validation_test.go TestValidateServiceCreate rows', () => {
  for (const [name, tweak, numErrs] of ROWS) {
    test(name, () => {
      const svc = makeValidService() as Service & { spec: NonNullable<Service['spec']> };
      tweak(svc);
      const errs = validateService(svc);
      assert.equal(errs.length, numErrs, errs.map((e) => `${e.field}: ${fieldErrorMessage(e)}`).join('\n'));
    });
  }
});

describe('messages as kube-apiserver words them', () => {
  const one = (tweak: Tweak): string => {
    const svc = makeValidService() as Service & { spec: NonNullable<Service['spec']> };
    tweak(svc);
    const [e] = validateService(svc);
    return `${e!.field}: ${fieldErrorMessage(e!)}`;
  };
  test('protocol, type, name, duplicate port (Go %#v), clusterIPs ([]string)', () => {
    assert.equal(one((s) => void (s.spec.ports![0]!.protocol = 'FOO')), 'spec.ports[0].protocol: Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"');
    assert.equal(one((s) => void (s.spec.type = 'Foo')), 'spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"');
    assert.equal(
      one((s) => void (s.metadata.name = '1abc')),
      `metadata.name: Invalid value: "1abc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    );
    assert.equal(
      one((s) => (addPort(s, { name: 'q', port: 80, targetPort: 80 }), addPort(s, { name: 'r', port: 80, targetPort: 8080 }))),
      'spec.ports[2]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    );
    assert.equal(one((s) => ips(s, '', ['10.0.0.1'])), 'spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: must be empty when `clusterIP` is not specified');
    assert.equal(one((s) => ips(s, '1.2.3', ['1.2.3'])), 'spec.clusterIPs[0]: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
    assert.equal(one((s) => void (s.spec.ports![0]!.targetPort = 'Bad_Name')), 'spec.ports[0].targetPort: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  });
});

describe('defaults and the strategy', () => {
  test('SetDefaults_Service: type, affinity, protocol, targetPort, traffic policies, LB node ports', () => {
    const svc: Service = { metadata: { name: 'x' }, spec: { ports: [{ port: 80 }, { port: 81, targetPort: 0 }, { port: 82, targetPort: 'http', protocol: 'UDP' }] } };
    applyServiceDefaults(svc);
    assert.deepEqual(svc.spec, {
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 81, targetPort: 81, protocol: 'TCP' },
        { port: 82, targetPort: 'http', protocol: 'UDP' },
      ],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
    });
    const lbSvc: Service = { metadata: { name: 'x' }, spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] } };
    applyServiceDefaults(lbSvc);
    assert.equal(lbSvc.spec!.externalTrafficPolicy, 'Cluster');
    assert.equal(lbSvc.spec!.allocateLoadBalancerNodePorts, true);
    assert.deepEqual(lbSvc.spec!.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    const withExternal: Service = { metadata: { name: 'x' }, spec: { externalIPs: ['1.2.3.4'], ports: [{ port: 80 }] } };
    applyServiceDefaults(withExternal);
    assert.equal(withExternal.spec!.externalTrafficPolicy, 'Cluster', 'ClusterIP with external IPs is externally accessible');
    assert.deepEqual(validateService(withExternal), []);
  });

  test('NormalizeClusterIPs: clusterIP fills clusterIPs and back; an edited clusterIP wins on update', () => {
    const a: Service = { metadata: { name: 'x' }, spec: { clusterIP: '10.96.0.5' } };
    normalizeClusterIPs(a);
    assert.deepEqual(a.spec!.clusterIPs, ['10.96.0.5']);
    const b: Service = { metadata: { name: 'x' }, spec: { clusterIPs: ['10.96.0.6'] } };
    normalizeClusterIPs(b);
    assert.equal(b.spec!.clusterIP, '10.96.0.6');
    const old: Service = { metadata: { name: 'x' }, spec: { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'] } };
    const edited: Service = { metadata: { name: 'x' }, spec: { clusterIP: '10.96.0.7', clusterIPs: ['10.96.0.5'] } };
    normalizeClusterIPs(edited, old);
    assert.deepEqual(edited.spec!.clusterIPs, ['10.96.0.7']);
  });

  test('ValidateServiceUpdate: a set cluster IP may not change (validation_test.go TestValidateServiceUpdate rows)', () => {
    const old = makeValidService();
    ips(old, '1.2.3.4', ['1.2.3.4']);
    const changed = makeValidService();
    ips(changed, '1.2.3.5', ['1.2.3.5']);
    assert.deepEqual(validateService(changed, old).map((e) => e.detail), ['may not change once set']);
    const empty = makeValidService();
    const filled = makeValidService();
    ips(filled, '1.2.3.5', ['1.2.3.5']);
    assert.deepEqual(validateService(filled, empty), [], 'an empty cluster IP can be set');
    const toNone = makeValidService();
    ips(toNone, 'None', ['None']);
    assert.equal(validateService(toNone, old).length, 1, 'ClusterIP can NOT be changed to None');
  });
});

describe('IP addresses (netutils.ParseIPSloppy, ValidateNonSpecialIP)', () => {
  test('parse: IPv4 (leading zeros allowed), IPv6, IPv4-mapped IPv6 is IPv4, garbage refused', () => {
    assert.equal(parseIP('10.9.8.7')?.family, 'IPv4');
    assert.equal(parseIP('010.009.8.7')?.family, 'IPv4');
    assert.equal(parseIP('2001:db8::ffff')?.family, 'IPv6');
    assert.equal(parseIP('::ffff:1.2.3.4')?.family, 'IPv4');
    assert.equal(parseIP('::1')?.family, 'IPv6');
    for (const bad of ['1.2.3', '256.1.1.1', 'myhost', '1::2::3', 'fe80::1%eth0', '', '1.2.3.4/32', '12345::']) assert.equal(parseIP(bad), undefined, bad);
  });
  test('special addresses refused as external IPs', () => {
    assert.equal(specialIPProblem('0.0.0.0'), 'may not be unspecified (0.0.0.0)');
    assert.equal(specialIPProblem('::'), 'may not be unspecified (::)');
    assert.equal(specialIPProblem('127.1.2.3'), 'may not be in the loopback range (127.0.0.0/8, ::1/128)');
    assert.equal(specialIPProblem('169.254.1.1'), 'may not be in the link-local range (169.254.0.0/16, fe80::/10)');
    assert.equal(specialIPProblem('fe80::1'), 'may not be in the link-local range (169.254.0.0/16, fe80::/10)');
    assert.equal(specialIPProblem('224.0.0.5'), 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
    assert.equal(specialIPProblem('1.2.3.4'), undefined);
  });
  test('CIDR membership (the sandbox service range 10.96.0.0/12)', () => {
    const range = parseCIDR('10.96.0.0/12')!;
    assert.equal(cidrContains(range, parseIP('10.111.255.254')!), true);
    assert.equal(cidrContains(range, parseIP('10.112.0.1')!), false);
    assert.equal(cidrContains(range, parseIP('2001::1')!), false);
    assert.equal(parseCIDR('1.2.3.4/33'), undefined);
  });
});
