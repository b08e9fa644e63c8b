// The generated CA and server certificate: valid X.509 that a TLS client verifies for
// 127.0.0.1 and localhost, and a different CA on every start (so "wrong CA" can be tested).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:https';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { generateTlsMaterial } from '../../../../src/sandbox/server/tls';

function get(port: number, host: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', servername: host === '127.0.0.1' ? undefined : host, port, path: '/', ca, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('generateTlsMaterial', () => {
  it('produces a CA and a server certificate for 127.0.0.1 and localhost', async () => {
    const t = await generateTlsMaterial();
    const ca = new X509Certificate(t.caPem);
    const cert = new X509Certificate(t.certPem);
    assert.equal(ca.ca, true);
    assert.equal(cert.ca, false);
    assert.ok(cert.checkIssued(ca));
    assert.ok(cert.verify(ca.publicKey));
    assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(cert.checkHost('localhost'), 'localhost');
    assert.ok(Date.parse(cert.validTo) > Date.now() + 300 * 24 * 3600_000);
  });

  it('always encodes valid DER: 600 starts in a row all parse (random serials with a leading zero byte once broke 1 in 128)', async () => {
    for (let i = 0; i < 600; i++) {
      const t = await generateTlsMaterial();
      const ca = new X509Certificate(t.caPem);
      assert.ok(new X509Certificate(t.certPem).checkIssued(ca), `start ${i}`);
    }
  });

  it('is accepted by a verifying TLS client and rejected with another CA', async () => {
    const t = await generateTlsMaterial();
    const other = await generateTlsMaterial();
    assert.notEqual(t.caPem, other.caPem);
    const server = createServer({ cert: t.certPem, key: t.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      assert.equal(await get(port, '127.0.0.1', t.caPem), 'ok');
      assert.equal(await get(port, 'localhost', t.caPem), 'ok');
      await assert.rejects(get(port, '127.0.0.1', other.caPem), /self[- ]signed|unable to verify|certificate/i);
    } finally {
      server.close();
    }
  });
});
