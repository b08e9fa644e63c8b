// A throwaway CA and server certificate for `sandbox --tls` (SANs 127.0.0.1 and localhost).
// node-forge builds the X.509 structures; keys and RSA signatures come from node:crypto,
// which is far faster than forge's pure-JS RSA (start time matters for tests).
import { constants, createPublicKey, generateKeyPair, privateEncrypt, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import forgeModule from 'node-forge';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** DER prefix of a PKCS#1 v1.5 DigestInfo for SHA-256. */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

export async function generateTlsMaterial(): Promise<TlsMaterial> {
  const forge = (forgeModule as unknown as { default?: typeof forgeModule }).default ?? forgeModule;
  const { pki, md } = forge;

  const keyPair = (privateKey: KeyObject): { privateKey: KeyObject; forgePublic: import('node-forge').pki.PublicKey; signer: { sign(m: import('node-forge').md.MessageDigest): string } } => {
    const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
    return {
      privateKey,
      forgePublic: pki.publicKeyFromPem(publicPem),
      // forge calls key.sign(md) with the digest of the TBS certificate: RSASSA-PKCS1-v1_5 natively.
      signer: {
        sign(m) {
          const digest = Buffer.from(m.digest().getBytes(), 'binary');
          return privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, digest])).toString('binary');
        },
      },
    };
  };

  // Both keys at once, on libuv's thread pool.
  const generate = promisify(generateKeyPair);
  const [caPair, serverPair] = await Promise.all([0, 1].map(() => generate('rsa', { modulusLength: 2048, publicExponent: 0x10001 })));
  const caKeys = keyPair(caPair!.privateKey);
  const ca = pki.createCertificate();
  ca.publicKey = caKeys.forgePublic;
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
  ca.sign(caKeys.signer as unknown as import('node-forge').pki.rsa.PrivateKey, md.sha256.create());

  const keys = keyPair(serverPair!.privateKey);
  const cert = pki.createCertificate();
  cert.publicKey = keys.forgePublic;
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
  cert.sign(caKeys.signer as unknown as import('node-forge').pki.rsa.PrivateKey, md.sha256.create());
  return {
    caPem: pki.certificateToPem(ca),
    certPem: pki.certificateToPem(cert),
    keyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

export function randomToken(): string {
  return randomBytes(24).toString('base64url');
}
