// Throwaway X.509 material for the security suite: a self-signed CA that did not sign the
// sandbox's certificate (a wrong CA), and a client certificate + key whose key bytes must never
// be printed. node:crypto makes the RSA keys (fast, native); node-forge writes the certificates.
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface CertAndKey {
  certPem: string;
  keyPem: string;
}

export function selfSigned(commonName: string, isCa: boolean): CertAndKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01' + Date.now().toString(16);
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const attrs = [{ name: 'commonName', value: commonName }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([{ name: 'basicConstraints', cA: isCa }, isCa ? { name: 'keyUsage', keyCertSign: true, digitalSignature: true } : { name: 'extKeyUsage', clientAuth: true }]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem };
}

/** Lines of base64 key material long enough that finding one in output means a leak. */
export function keyFragments(keyPem: string): string[] {
  return keyPem
    .split('\n')
    .filter((l) => l && !l.startsWith('-----'))
    .map((l) => l.slice(0, 32))
    .filter((l) => l.length >= 24);
}
