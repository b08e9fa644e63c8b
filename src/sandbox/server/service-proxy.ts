// services/proxy (`/api/v1/namespaces/NS/services/[http:]NAME[:PORT]/proxy/PATH`), as far as a sandbox can: its pods
// run no servers, so a Service reaches a server only when its annotation `sandbox.kubectl-kruise.io/proxy-to` names
// a loopback address (`127.0.0.1:8080`, `localhost:8080`, `[::1]:8080`) that a test or a person runs: the request
// (method, PATH, query, body, Content-Type and Accept) goes there over plain http and its answer (status, body,
// Content-Type) comes back, as kube-apiserver's proxy does with an endpoint. The port in the URL is not used (the
// annotation says where); a Service without the annotation answers kube's 503 "no endpoints available for service".
import { request as httpRequest } from 'node:http';
import { ApiError } from './errors';
import type { ApiRequest } from './request';
import type { MemoryStore } from './store';

export const PROXY_TO_ANNOTATION = 'sandbox.kubectl-kruise.io/proxy-to';
const SERVICES = { group: '', resource: 'services' };

/** `[scheme:]name[:port]` of the proxy URL (kube's net.SplitSchemeNamePort). */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  if (parts.length === 1) return { scheme: '', name: parts[0]!, port: '' };
  if (parts.length === 2) return { scheme: '', name: parts[0]!, port: parts[1]! };
  if (parts.length === 3 && (parts[0] === 'http' || parts[0] === 'https')) return { scheme: parts[0], name: parts[1]!, port: parts[2]! };
  return undefined;
}

/** The loopback host and port an annotation value names, or why it cannot be used. */
export function proxyTarget(value: string): { host: string; port: number } | { error: string } {
  const m = /^(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/.exec(value.trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) return { error: `${PROXY_TO_ANNOTATION}: "${value}" is not a loopback HOST:PORT (127.0.0.1, localhost or [::1])` };
  return { host: m[1] === '[::1]' ? '::1' : m[1]!, port: Number(m[2]) };
}

export async function serviceProxy(r: ApiRequest, store: MemoryStore, namespace: string, id: string): Promise<void> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed || !parsed.name) throw ApiError.badRequest(`invalid service request "${id}"`);
  const svc = store.getRef(SERVICES, namespace, parsed.name);
  if (!svc) throw ApiError.notFound('', 'services', parsed.name);
  const value = svc.metadata.annotations?.[PROXY_TO_ANNOTATION];
  if (!value) throw new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${parsed.name}"`);
  if (parsed.scheme === 'https') throw new ApiError(503, 'ServiceUnavailable', `error trying to reach service: the sandbox proxies to plain http only`);
  const target = proxyTarget(value);
  if ('error' in target) throw new ApiError(503, 'ServiceUnavailable', `error trying to reach service: ${target.error}`);
  const rest = /^\/api\/v1\/namespaces\/[^/]+\/services\/[^/]+\/proxy(\/.*)?$/.exec(r.url.pathname)?.[1] ?? '/';
  const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : await r.body();
  const headers: Record<string, string> = {};
  for (const h of ['content-type', 'accept'] as const) if (r.req.headers[h]) headers[h] = String(r.req.headers[h]);
  const answer = await new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: target.host, port: target.port, method: r.method, path: `${rest}${r.url.search}`, headers, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, type: String(res.headers['content-type'] ?? 'text/plain; charset=utf-8'), text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout awaiting response headers')));
    req.on('error', reject);
    req.end(body);
  }).catch((err: Error) => {
    throw new ApiError(503, 'ServiceUnavailable', `error trying to reach service: dial tcp ${value}: ${err.message}`);
  });
  r.sendText(answer.status, answer.text, answer.type);
}
