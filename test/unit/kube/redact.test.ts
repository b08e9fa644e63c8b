import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRedactor, redactHeader } from '../../../src/kube/redact';

test('authorization headers keep the scheme only', () => {
  assert.equal(redactHeader('Authorization', 'Bearer abc.def.ghi'), 'Bearer <redacted>');
  assert.equal(redactHeader('authorization', 'Basic dXNlcjpwYXNz'), 'Basic <redacted>');
  assert.equal(redactHeader('Accept', 'application/json'), 'application/json');
});

test('known secrets and credential-shaped text are redacted everywhere', () => {
  const token = 'my-very-secret-token-42';
  const r = makeRedactor([token, undefined, 'abc']);
  const text = [
    `error: token ${token} rejected`,
    '{"token":"another-token-value","client-key-data":"LS0tLS1CRUdJTi"}',
    'client-key-data: LS0tLS1CRUdJTiBSU0E=',
    'Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload.sig',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
    'https://user:hunter2@host:6443/api',
  ].join('\n');
  const out = r(text);
  for (const secret of [token, 'another-token-value', 'LS0tLS1CRUdJTi', 'eyJhbGciOiJSUzI1NiJ9', 'MIIEpAIBAAKCAQEA', 'hunter2']) {
    assert.ok(!out.includes(secret), `${secret} leaked in:\n${out}`);
  }
  // Short strings are not treated as secrets (they would mangle ordinary text).
  assert.ok(r('abc def').includes('abc'));
});

test('redactSecretBody hides the values of data/stringData of a Secret, a SecretList and a watch event, keeping keys', async () => {
  const { redactSecretBody } = await import('../../../src/kube/redact');
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"api-key":"QUJD"}}' } }, data: { 'api-key': 'QUJDREVGR0g=' }, stringData: { user: 'admin' } };
  const one = JSON.parse(redactSecretBody(JSON.stringify(secret)));
  assert.deepEqual(one.data, { 'api-key': '<redacted>' });
  assert.deepEqual(one.stringData, { user: '<redacted>' });
  assert.equal(one.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], '<redacted>');
  const list = redactSecretBody(JSON.stringify({ kind: 'SecretList', items: [secret, secret] }));
  assert.ok(!list.includes('QUJD') && !list.includes('admin'), list);
  const event = redactSecretBody(JSON.stringify({ type: 'ADDED', object: secret }));
  assert.ok(!event.includes('QUJD'), event);
  // Cut short (not JSON any more): the values of complete data maps are still hidden.
  const cut = redactSecretBody('{"kind":"Secret","data":{"api-key":"QUJDREVGR0g="},"metadata":{"name":"d');
  assert.ok(!cut.includes('QUJDREVGR0g='), cut);
  const pod = JSON.stringify({ kind: 'Pod', data: { x: 'visible' } });
  assert.equal(redactSecretBody(pod), pod);
});
