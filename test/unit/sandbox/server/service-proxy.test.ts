// The sandbox's services/proxy (src/sandbox/server/service-proxy.ts): the [scheme:]name[:port] of the URL as kube
// splits it, and the loopback-only target of the proxy-to annotation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proxyTarget, splitSchemeNamePort } from '../../../../src/sandbox/server/service-proxy';

test('splitSchemeNamePort: name, name:port, scheme:name:port; anything else is invalid', () => {
  assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
  assert.deepEqual(splitSchemeNamePort('web:80'), { scheme: '', name: 'web', port: '80' });
  assert.deepEqual(splitSchemeNamePort('https:web:443'), { scheme: 'https', name: 'web', port: '443' });
  assert.equal(splitSchemeNamePort('ftp:web:21'), undefined);
  assert.equal(splitSchemeNamePort('a:b:c:d'), undefined);
});

test('proxyTarget: only a loopback HOST:PORT', () => {
  assert.deepEqual(proxyTarget('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
  assert.deepEqual(proxyTarget('[::1]:9'), { host: '::1', port: 9 });
  assert.deepEqual(proxyTarget('localhost:80'), { host: 'localhost', port: 80 });
  for (const bad of ['10.0.0.1:80', 'example.com:80', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:70000']) assert.ok('error' in proxyTarget(bad), bad);
});
