// A throwaway CA and server certificate for `sandbox --tls` (SANs 127.0.0.1 and localhost),
// generated at start with node-forge, loaded lazily so plain-HTTP starts stay fast.
import { generateKeyPairSync, randomBytes } from 'node:crypto';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export async function generateTlsMaterial(): Promise<TlsMaterial> {
  const forgeMod = await import('node-forge');
  const forge = (forgeMod as unknown as { default?: typeof forgeMod }).default ?? forgeMod;
  const { pki, md } = forge;
  // Key generation natively (milliseconds) instead of in forge's pure JS (seconds).
  const nativeKeys = () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
    const key = pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()) as import('node-forge').pki.rsa.PrivateKey;
    return { privateKey: key, publicKey: pki.setRsaPublicKey(key.n, key.e) };
  };
  const caKeys = nativeKeys();
  const ca = pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = `01${randomBytes(8).toString('hex')}`;
  ca.validity.notBefore = new Date(Date.now() - 60_000);
  ca.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const caAttrs = [{ name: 'commonName', value: 'kubectl-kruise-sandbox-ca' }];
  ca.setSubject(caAttrs);
  ca.setIssuer(caAttrs);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKeys.privateKey, md.sha256.create());

  const keys = nativeKeys();
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `02${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: 'kube-apiserver' }]);
  cert.setIssuer(caAttrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
  ]);
  cert.sign(caKeys.privateKey, md.sha256.create());
  return { caPem: pki.certificateToPem(ca), certPem: pki.certificateToPem(cert), keyPem: pki.privateKeyToPem(keys.privateKey) };
}

export function randomToken(): string {
  return randomBytes(24).toString('base64url');
}
