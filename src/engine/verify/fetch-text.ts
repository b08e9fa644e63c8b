// One HTTP(S) request of a verify check to a server outside the cluster API (Prometheus, a health endpoint):
// TLS always verified (against the check's caFile when given, else the system's CAs), credentials from a file
// or the environment read at each request (a rotated token is picked up), a timeout, Ctrl-C. No proxy: the
// checks reach what the pipeline's machine reaches directly. An API server path (/api/...) goes through the
// kubeconfig's client instead (KubeClient.send).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import type { Credentials } from '../../kruise/verify/checks';

export interface TextAnswer {
  status: number;
  body: string;
}

/** Most bytes of an answer a check reads (a Prometheus answer or a health body is far smaller). */
const MAX_BODY = 4 << 20;

export class CheckSetupError extends Error {}

function readSecretFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new CheckSetupError(`cannot read the ${what} file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The Authorization header the credentials call for (undefined: none). */
export function authorization(c: Credentials, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (c.bearerTokenFile) return `Bearer ${readSecretFile(c.bearerTokenFile, 'bearer token')}`;
  if (c.bearerTokenEnv) {
    const v = env[c.bearerTokenEnv];
    if (!v) throw new CheckSetupError(`the environment variable ${c.bearerTokenEnv} (bearerTokenEnv) is not set`);
    return `Bearer ${v.trim()}`;
  }
  if (c.basicAuthFile) {
    const pair = readSecretFile(c.basicAuthFile, 'basic auth');
    if (!pair.includes(':')) throw new CheckSetupError(`the basic auth file ${c.basicAuthFile} must hold user:password`);
    return `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  return undefined;
}

export function fetchText(
  url: string,
  o: { method: 'GET' | 'POST'; body?: string; headers?: Record<string, string>; credentials: Credentials; timeoutMs: number; signal?: AbortSignal },
): Promise<TextAnswer> {
  const u = new URL(url);
  const headers: Record<string, string> = { accept: 'application/json, */*', ...(o.headers ?? {}) };
  const auth = authorization(o.credentials);
  if (auth) headers.authorization = auth;
  if (o.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(o.body));
  }
  const ca = o.credentials.caFile ? readSecretFile(o.credentials.caFile, 'CA') : undefined;
  return new Promise<TextAnswer>((resolve, reject) => {
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(u, { method: o.method, headers, ...(u.protocol === 'https:' ? { ca, rejectUnauthorized: true } : {}), signal: o.signal, agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) {
          req.destroy(new Error(`the answer of ${u.origin}${u.pathname} is larger than ${MAX_BODY >> 20} MiB`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(o.timeoutMs, () => req.destroy(new Error(`no answer from ${u.origin} within ${Math.round(o.timeoutMs / 1000)}s`)));
    req.on('error', reject);
    req.end(o.body);
  });
}
