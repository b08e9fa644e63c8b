// The generated CA and server certificate: valid X.509 that a TLS client verifies for
// 127.0.0.1, localhost and the --tls-san names, and a different CA on every start (so "wrong CA" can
// be tested); client certificates (--require-client-cert) that a server requiring one accepts.
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

  it('adds the --tls-san names (DNS names and addresses) to the server certificate', async () => {
    const t = await generateTlsMaterial({ sans: ['kruise-sandbox.invalid', '10.0.0.7', '::1'] });
    const cert = new X509Certificate(t.certPem);
    assert.equal(cert.subjectAltName, 'IP Address:127.0.0.1, DNS:localhost, DNS:kruise-sandbox.invalid, IP Address:10.0.0.7, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(cert.checkHost('kruise-sandbox.invalid'), 'kruise-sandbox.invalid');
    assert.deepEqual(t.clients, {});
  });

  it('issues client certificates (CN = user, clientAuth) that a server requiring one signed by the CA accepts', async () => {
    const t = await generateTlsMaterial({ clientUsers: ['admin', 'viewer'] });
    const admin = new X509Certificate(t.clients.admin!.certPem);
    assert.equal(admin.subject, 'CN=admin');
    assert.deepEqual(admin.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.ok(admin.checkIssued(new X509Certificate(t.caPem)));
    const server = createServer({ cert: t.certPem, key: t.keyPem, ca: t.caPem, requestCert: true, rejectUnauthorized: true }, (req, res) => res.end((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject.CN));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      const who = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', ca: t.caPem, cert: t.clients.viewer!.certPem, key: t.clients.viewer!.keyPem }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(who, 'viewer');
    } finally {
      server.close();
    }
  });
});
