// A throwaway CA and server certificate for `sandbox --tls` (SANs 127.0.0.1, localhost and the names of
// --tls-san), and under --require-client-cert a client certificate per kubeconfig user.
// ECDSA P-256 keys from node:crypto (generated in microseconds, unlike RSA), and the X.509
// structures written directly in DER: a few dozen lines instead of loading node-forge,
// which keeps a TLS sandbox's start as fast as a plain one.
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** Client certificates signed by the CA, by user name (CN). */
  clients: Record<string, { certPem: string; keyPem: string }>;
}

export interface TlsMaterialOptions {
  /** More subject alternative names of the server certificate: DNS names or IP addresses (k3s' --tls-san). */
  sans?: readonly string[];
  /** Users to issue client certificates to (CN = the user name). */
  clientUsers?: readonly string[];
}

// ---- minimal DER ----
function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
};
const seq = (...c: Buffer[]): Buffer => tlv(0x30, ...c);
const set = (...c: Buffer[]): Buffer => tlv(0x31, ...c);
const explicit = (n: number, ...c: Buffer[]): Buffer => tlv(0xa0 + n, ...c);
const octets = (b: Buffer): Buffer => tlv(0x04, b);
const bitString = (b: Buffer, unused = 0): Buffer => tlv(0x03, Buffer.from([unused]), b);
const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
function integer(b: Buffer): Buffer {
  // DER wants the minimal form: no leading zero bytes (a random serial starts with one in 1 of
  // 256 cases, which OpenSSL rejects as "illegal padding"), then one zero if the top bit is set.
  let start = 0;
  while (start < b.length - 1 && b[start] === 0) start++;
  const v = b.subarray(start);
  return tlv(0x02, v[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}
function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}
function utcTime(d: Date): Buffer {
  const p = (n: number): string => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}
const name = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const extension = (id: string, critical: boolean, value: Buffer): Buffer => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

/** A subjectAltName entry: iPAddress [7] for an address, dNSName [2] otherwise. */
function altName(name: string): Buffer {
  if (isIPv4(name)) return tlv(0x87, Buffer.from(name.split('.').map(Number)));
  if (isIPv6(name)) {
    const url = new URL(`http://[${name}]/`).hostname.slice(1, -1); // normalised: "::" expanded below
    const [head = '', tail = ''] = url.split('::');
    const words = (part: string): number[] => (part ? part.split(':').map((w) => parseInt(w, 16)) : []);
    const h = words(head);
    const t = words(tail);
    const all = url.includes('::') ? [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t] : h;
    return tlv(0x87, Buffer.from(all.flatMap((w) => [w >> 8, w & 0xff])));
  }
  return tlv(0x82, Buffer.from(name, 'ascii'));
}

type Usage = 'ca' | 'server' | 'client';

function certificate(opts: { subject: string; issuer: string; publicKey: KeyObject; signer: KeyObject; usage: Usage; sans?: readonly string[] }): Buffer {
  const spki = opts.publicKey.export({ type: 'spki', format: 'der' });
  const now = Date.now();
  const leaf = (purpose: string): Buffer[] => [
    extension('2.5.29.19', true, seq()), // basicConstraints CA:FALSE
    extension('2.5.29.15', true, bitString(Buffer.from([0x80]), 7)), // keyUsage digitalSignature
    extension('2.5.29.37', false, seq(oid(purpose))), // extKeyUsage
  ];
  const extensions =
    opts.usage === 'ca'
      ? [
          extension('2.5.29.19', true, seq(bool(true))), // basicConstraints CA:TRUE
          extension('2.5.29.15', true, bitString(Buffer.from([0x86]), 1)), // keyUsage digitalSignature, keyCertSign, cRLSign
          extension('2.5.29.14', false, octets(createHash('sha1').update(spki).digest())), // subjectKeyIdentifier
        ]
      : opts.usage === 'server'
        ? [...leaf('1.3.6.1.5.5.7.3.1'), extension('2.5.29.17', false, seq(...['127.0.0.1', 'localhost', ...(opts.sans ?? [])].map(altName)))] // serverAuth, SAN
        : leaf('1.3.6.1.5.5.7.3.2'); // clientAuth
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(randomBytes(16)),
    ECDSA_SHA256,
    name(opts.issuer),
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 365 * 24 * 3600_000))),
    name(opts.subject),
    spki,
    explicit(3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, opts.signer);
  return seq(tbs, ECDSA_SHA256, bitString(signature));
}

function pem(der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

const keyPem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

export async function generateTlsMaterial(opts: TlsMaterialOptions = {}): Promise<TlsMaterial> {
  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const server = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const issuer = 'kubectl-kruise-sandbox-ca';
  const caCert = certificate({ subject: issuer, issuer, publicKey: ca.publicKey, signer: ca.privateKey, usage: 'ca' });
  const serverCert = certificate({ subject: 'kube-apiserver', issuer, publicKey: createPublicKey(server.privateKey), signer: ca.privateKey, usage: 'server', sans: opts.sans });
  // Self-check: a malformed certificate fails here, at start, rather than in every client.
  if (!new X509Certificate(serverCert).verify(ca.publicKey)) throw new Error('generated server certificate does not verify');
  const clients: TlsMaterial['clients'] = {};
  for (const user of opts.clientUsers ?? []) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    clients[user] = { certPem: pem(certificate({ subject: user, issuer, publicKey: pair.publicKey, signer: ca.privateKey, usage: 'client' })), keyPem: keyPem(pair.privateKey) };
  }
  return { caPem: pem(caCert), certPem: pem(serverCert), keyPem: keyPem(server.privateKey), clients };
}

export function randomToken(): string {
  return randomBytes(24).toString('base64url');
}
