// A tiny scripted HTTP API server for kube-layer tests: each test installs a
// handler and inspects the recorded requests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transport, type TransportConfig } from '../../../src/kube/http';

export interface Recorded {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export interface FakeApi {
  url: string;
  requests: Recorded[];
  handle(h: Handler): void;
  close(): Promise<void>;
  server: Server;
}

export async function startFakeApi(handler?: Handler): Promise<FakeApi> {
  let current: Handler = handler ?? ((_r, res) => sendJson(res, 404, status(404, 'NotFound', 'not found')));
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(rec);
      Promise.resolve(current(rec, res)).catch((e) => {
        res.statusCode = 599;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    server,
    handle: (h) => (current = h),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) };
}

/** A transport to the fake server with instant retries and captured log lines. */
export function testTransport(url: string, over: Partial<TransportConfig> = {}): { transport: Transport; lines: string[] } {
  const lines: string[] = [];
  const transport = new Transport({
    server: url,
    insecureSkipTlsVerify: false,
    headers: {},
    credentials: () => ({}),
    requestTimeoutMs: 0,
    verbosity: 0,
    log: (l) => lines.push(l),
    redact: (s) => s,
    userAgent: 'test',
    sleep: async () => undefined,
    random: () => 0.5,
    ...over,
  });
  return { transport, lines };
}
