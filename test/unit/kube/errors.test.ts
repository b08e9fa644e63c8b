import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiError, isAlreadyExists, isConflict, isNotFound, transportError, type RequestContext } from '../../../src/kube/errors';

const cs: RequestContext = { verb: 'get', group: 'apps.kruise.io', resource: 'clonesets', name: 'web', namespace: 'prod', userName: 'admin' };

function status(code: number, reason: string, message: string, details?: Record<string, unknown>): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, details });
}

function oneLine(s: string): void {
  assert.ok(!s.includes('\n'), `one line: ${s}`);
  assert.ok(!/at .*\.ts:\d+/.test(s), 'no stack');
}

test('404 Status: the server message with the namespace', () => {
  const e = apiError(404, 'Not Found', status(404, 'NotFound', 'clonesets.apps.kruise.io "web" not found', { name: 'web', group: 'apps.kruise.io', kind: 'clonesets' }), cs);
  assert.equal(e.message, 'clonesets.apps.kruise.io "web" not found in namespace "prod"');
  assert.equal(e.exitCode, 1);
  assert.ok(isNotFound(e));
  // Unserved path (no object details): say so, naming the request.
  const unserved = apiError(404, 'Not Found', status(404, 'NotFound', 'the server could not find the requested resource'), cs);
  assert.equal(unserved.message, 'the server could not find the requested resource (get clonesets.apps.kruise.io web)');
  oneLine(unserved.message);
});

test('403: "<user> cannot <verb> <resource> in namespace <ns>"', () => {
  const body = status(
    403,
    'Forbidden',
    'clonesets.apps.kruise.io "web" is forbidden: User "viewer" cannot patch resource "clonesets" in API group "apps.kruise.io" in the namespace "prod"',
    { name: 'web', group: 'apps.kruise.io', kind: 'clonesets' },
  );
  const e = apiError(403, 'Forbidden', body, { ...cs, verb: 'patch' });
  assert.equal(e.message, 'viewer cannot patch clonesets.apps.kruise.io in namespace prod');
  const cluster = apiError(403, 'Forbidden', status(403, 'Forbidden', 'nodes is forbidden: User "viewer" cannot list resource "nodes" in API group "" at the cluster scope'), { verb: 'list', resource: 'nodes' });
  assert.equal(cluster.message, 'viewer cannot list nodes at the cluster scope');
  // No Status from the server: reconstructed from the request.
  const bare = apiError(403, 'Forbidden', '', { ...cs, verb: 'create', userName: 'bob', name: undefined });
  assert.equal(bare.message, 'bob cannot create clonesets.apps.kruise.io in namespace prod');
});

test('409 and 422: the Status message on one line', () => {
  const conflict = apiError(
    409,
    'Conflict',
    status(409, 'Conflict', 'Operation cannot be fulfilled on clonesets.apps.kruise.io "web": the object has been modified; please apply your changes to the latest version and try again'),
    { ...cs, verb: 'update' },
  );
  assert.equal(conflict.message, 'Operation cannot be fulfilled on clonesets.apps.kruise.io "web": the object has been modified; please apply your changes to the latest version and try again');
  assert.ok(isConflict(conflict));
  const exists = apiError(409, 'Conflict', status(409, 'AlreadyExists', 'persistentpodstates.apps.kruise.io "web" already exists'), { ...cs, verb: 'create' });
  assert.ok(isAlreadyExists(exists) && !isConflict(exists));
  const invalid = apiError(
    422,
    'Unprocessable Entity',
    status(422, 'Invalid', 'CloneSet.apps.kruise.io "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0,\nspec.updateStrategy.partition: Invalid value: "99": must be an int or percentage]', {
      causes: [{ field: 'spec.replicas', message: 'Invalid value: -1' }],
    }),
    { ...cs, verb: 'patch' },
  );
  oneLine(invalid.message);
  assert.match(invalid.message, /^CloneSet.apps.kruise.io "web" is invalid: \[spec.replicas: Invalid value: -1: .*spec.updateStrategy.partition: /);
  const causesOnly = apiError(422, 'Unprocessable Entity', status(422, 'Invalid', 'CloneSet "web" is invalid', { causes: [{ field: 'spec.replicas', message: 'must be >= 0' }] }), cs);
  assert.equal(causesOnly.message, 'CloneSet "web" is invalid: spec.replicas: must be >= 0');
});

test('415, 401, 5xx and non-Status bodies', () => {
  const e415 = apiError(415, 'Unsupported Media Type', status(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json'), { ...cs, verb: 'patch' });
  assert.match(e415.message, /^the server rejected the request body of patch clonesets.apps.kruise.io web: the body of the request was in an unknown format/);
  assert.match(e415.hint!, /merge patches/);
  const e401 = apiError(401, 'Unauthorized', status(401, 'Unauthorized', 'Unauthorized'), cs);
  assert.match(e401.message, /^you must be logged in to the server \(Unauthorized\)/);
  const e503 = apiError(503, 'Service Unavailable', '<html>\n<body>oops</body></html>', cs);
  assert.equal(e503.message, 'the server returned 503 Service Unavailable for get clonesets.apps.kruise.io web');
  for (const e of [e415, e401, e503]) {
    oneLine(e.message);
    assert.equal(e.exitCode, 1);
  }
});

test('transport errors: unreachable, TLS with a hint, timeouts', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1234'), { code: 'ECONNREFUSED' });
  assert.equal(transportError(refused, 'https://127.0.0.1:1234').message, 'the server at https://127.0.0.1:1234 is unreachable: connection refused');
  const ca = Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' });
  const tls = transportError(ca, 'https://127.0.0.1:1234');
  assert.match(tls.message, /certificate signed by unknown authority/);
  assert.match(tls.hint!, /--certificate-authority/);
  const timeout = Object.assign(new Error('x'), { code: 'REQUEST_TIMEOUT' });
  assert.equal(transportError(timeout, 'https://h:1', 5000).message, 'the request to https://h:1 timed out after 5s (--request-timeout)');
  const dns = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
  assert.equal(transportError(dns, 'https://nowhere.invalid:6443').message, 'the server at https://nowhere.invalid:6443 is unreachable: host nowhere.invalid not found');
  // Bun's TLS (the executable) on a CA that is not a certificate: was "request to ... failed: Invalid CA"
  const badCa = transportError(new Error('Invalid CA'), 'https://h:1');
  assert.equal(badCa.message, 'the client certificate, client key or CA in the kubeconfig is not valid PEM');
  assert.equal(badCa.exitCode, 2);
  // Bun's fetch on a TLS server that answers plain HTTP
  const proto = Object.assign(new Error('EPROTO: The TLS handshake failed. Does the server speak TLS on this port?'), { code: 'EPROTO' });
  assert.equal(transportError(proto, 'https://h:1').message, 'the server at https://h:1 does not speak TLS (is the address http:// rather than https://?)');
});

test('a server that turns the client certificate down: one line naming it, whichever TLS library reported the alert', () => {
  const alert = (code: string, message: string) => Object.assign(new Error(message), { code });
  const none = { given: false, source: 'kubeconfig user "me"' };
  const given = { given: true, source: 'kubeconfig user "me"' };
  const at = 'https://h:6443';
  // Node (OpenSSL 3) and the executable (Bun, BoringSSL): TLS 1.3's certificate_required alert.
  for (const e of [alert('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'C0:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:SSL alert number 116'), alert('ERR_SSL_TLSV1_ALERT_CERTIFICATE_REQUIRED', 'error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED')]) {
    const r = transportError(e, at, 0, none);
    assert.equal(r.message, 'the server at https://h:6443 requires a client certificate and none was given (kubeconfig user "me")');
    assert.match(r.hint!, /client-certificate-data/);
    assert.equal(r.exitCode, 1);
  }
  // TLS 1.2 servers in Go say bad_certificate for a missing one.
  assert.equal(transportError(alert('ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'x'), at, 0, none).message, 'the server at https://h:6443 requires a client certificate and none was given (kubeconfig user "me") (TLS alert: bad certificate)');
  assert.equal(transportError(alert('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'x'), at, 0, given).message, 'the server at https://h:6443 rejected the client certificate (kubeconfig user "me") (TLS alert: unknown ca)');
  assert.equal(transportError(alert('ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED', 'x'), at, 0, { given: true, source: '--client-certificate=/c.pem' }).message, 'the server at https://h:6443 rejected the client certificate (--client-certificate=/c.pem) (TLS alert: certificate expired)');
  // A handshake failure is a question when no certificate was given, and not about the certificate otherwise.
  const failure = alert('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'sslv3 alert handshake failure');
  assert.equal(transportError(failure, at, 0, none).message, 'the TLS handshake with the server at https://h:6443 failed (TLS alert: handshake failure): does it require a client certificate? none was given (kubeconfig user "me")');
  assert.doesNotMatch(transportError(failure, at, 0, given).message, /client certificate/);
  // A Node server closes the connection after the handshake instead (src/kube/http.ts afterHandshake).
  const closed = transportError(alert('ERR_KUBECTL_KRUISE_CLIENT_CERT_CLOSED', 'socket hang up (after the TLS handshake)'), at, 0, given);
  assert.equal(closed.message, 'the server at https://h:6443 rejected the client certificate (kubeconfig user "me"): it closed the connection right after the TLS handshake');
  assert.match(closed.hint!, /openssl x509/);
  // Without what the connection offered, nothing is said about certificates.
  assert.doesNotMatch(transportError(alert('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'tlsv1 alert unknown ca'), at).message, /client certificate/);
});

test('a failure through a proxy is its own message (proxy-connect.ts), hint included', () => {
  const e = Object.assign(new Error('the proxy at http://p:3128 (HTTPS_PROXY) refused CONNECT h:6443: 403 Forbidden'), { name: 'ProxyError', code: 'EPROXY', hint: 'hint: x' });
  const r = transportError(e, 'https://h:6443');
  assert.equal(r.message, e.message);
  assert.equal(r.hint, 'hint: x');
  assert.equal(r.exitCode, 1);
});
