// Test proxies on 127.0.0.1 (node:net only): an HTTP CONNECT proxy and a SOCKS5 one (RFC 1928, with
// RFC 1929 username/password when credentials are set). Each maps host names of its own (e.g.
// kruise-sandbox.invalid → 127.0.0.1), so a server named that way is reachable only through it, and
// records what it sees outside the tunnels (the CONNECT request's head, a SOCKS request, any request
// that is not a CONNECT) and the bytes clients send through the tunnels (to check that no secret
// crosses the proxy in clear).
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

export interface ProxyRecord {
  kind: 'connect' | 'socks5' | 'plain';
  /** host:port the client asked for (for a plain request, its request line). */
  target: string;
  /** What the proxy read outside any tunnel: the request head (CONNECT or plain) or a SOCKS summary. */
  head: string;
  /** The Proxy-Authorization or SOCKS5 username/password the client gave, decoded. */
  credentials?: string;
  /** Whether the proxy let the client through. */
  allowed: boolean;
}

export interface TestProxy {
  /** http://127.0.0.1:PORT or socks5://127.0.0.1:PORT */
  url: string;
  port: number;
  records: ProxyRecord[];
  /** Whether `secret` appeared in clear in anything a client sent, inside tunnels or outside. */
  saw(secret: string): boolean;
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** Host names only this proxy resolves (name → address); other names resolve as usual. */
  hosts?: Record<string, string>;
  /** Required credentials ("user:password"): 407 / SOCKS auth failure without them. */
  credentials?: string;
  /** An https:// proxy (CONNECT proxy only): TLS with this certificate and key (PEM). */
  tls?: { cert: string; key: string };
}

const MAX_KEPT = 16 * 1024 * 1024;

function base(opts: TestProxyOptions) {
  const records: ProxyRecord[] = [];
  const seen: Buffer[] = [];
  let kept = 0;
  const keep = (b: Buffer): void => {
    if (kept > MAX_KEPT) return;
    kept += b.length;
    seen.push(Buffer.from(b));
  };
  const sockets = new Set<Socket>();
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  /** Connects to host:port as mapped, then splices the two sockets (client → upstream bytes kept). */
  const splice = (client: Socket, host: string, port: number, ready: (err?: Error) => void, rest?: Buffer): void => {
    const upstream = connect({ host: opts.hosts?.[host.toLowerCase()] ?? host, port });
    track(upstream);
    upstream.once('connect', () => {
      ready();
      if (rest?.length) {
        keep(rest);
        upstream.write(rest);
      }
      client.on('data', (d: Buffer) => {
        keep(d);
        upstream.write(d);
      });
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    upstream.once('error', (e) => ready(e));
  };
  const saw = (secret: string): boolean => Buffer.concat(seen).includes(secret);
  return { records, keep, track, splice, saw, sockets };
}

async function listen(server: Server, scheme: string, b: ReturnType<typeof base>): Promise<TestProxy> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    records: b.records,
    saw: b.saw,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of b.sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP proxy that only tunnels (CONNECT); any other request is recorded and answered 405. */
export function startConnectProxy(opts: TestProxyOptions = {}): Promise<TestProxy> {
  const b = base(opts);
  const handle = (client: Socket): void => {
    b.track(client);
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const head = buf.subarray(0, end).toString('latin1');
      b.keep(buf.subarray(0, end + 4));
      const rest = buf.subarray(end + 4);
      const [requestLine = '', ...headerLines] = head.split('\r\n');
      const [method = '', target = ''] = requestLine.split(' ');
      const auth = headerLines.find((l) => /^proxy-authorization:/i.test(l))?.replace(/^[^:]*:\s*/, '');
      const credentials = auth?.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : auth;
      if (method !== 'CONNECT') {
        b.records.push({ kind: 'plain', target: requestLine, head, credentials, allowed: false });
        client.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      if (opts.credentials !== undefined && credentials !== opts.credentials) {
        b.records.push({ kind: 'connect', target, head, credentials, allowed: false });
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      const colon = target.lastIndexOf(':');
      const host = target.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
      b.records.push({ kind: 'connect', target, head, credentials, allowed: true });
      b.splice(client, host, Number(target.slice(colon + 1)), (err) => {
        if (err) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
        else client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      }, rest);
    };
    client.on('data', onData);
  };
  const server = opts.tls ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, handle) : createServer(handle);
  return listen(server, opts.tls ? 'https' : 'http', b);
}

/** A SOCKS5 proxy (CONNECT only; host names resolved by the proxy, through `hosts` first). */
export function startSocks5Proxy(opts: TestProxyOptions = {}): Promise<TestProxy> {
  const b = base(opts);
  const server = createServer((client) => {
    b.track(client);
    let buf = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' = 'greeting';
    let credentials: string | undefined;
    const take = (n: number): Buffer => {
      const out = buf.subarray(0, n);
      b.keep(out);
      buf = buf.subarray(n);
      return out;
    };
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (stage === 'greeting') {
          if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
          const methods = [...take(2 + buf[1]!).subarray(2)];
          const want = opts.credentials !== undefined ? 2 : 0;
          if (!methods.includes(want)) {
            b.records.push({ kind: 'socks5', target: '', head: `methods ${methods.join(',')}`, allowed: false });
            client.end(Buffer.from([5, 0xff]));
            return;
          }
          client.write(Buffer.from([5, want]));
          stage = want === 2 ? 'auth' : 'request';
        } else if (stage === 'auth') {
          if (buf.length < 2 || buf.length < 2 + buf[1]! + 1) return;
          const ulen = buf[1]!;
          const plen = buf[2 + ulen]!;
          if (buf.length < 3 + ulen + plen) return;
          const msg = take(3 + ulen + plen);
          credentials = `${msg.subarray(2, 2 + ulen).toString('utf8')}:${msg.subarray(3 + ulen).toString('utf8')}`;
          if (credentials !== opts.credentials) {
            b.records.push({ kind: 'socks5', target: '', head: 'username/password', credentials, allowed: false });
            client.end(Buffer.from([1, 1]));
            return;
          }
          client.write(Buffer.from([1, 0]));
          stage = 'request';
        } else {
          if (buf.length < 5) return;
          const atyp = buf[3]!;
          const alen = atyp === 1 ? 4 : atyp === 4 ? 16 : 1 + buf[4]!;
          if (buf.length < 4 + alen + 2) return;
          const req = take(4 + alen + 2);
          client.off('data', onData);
          const addr = req.subarray(4, 4 + alen);
          const host = atyp === 1 ? [...addr].join('.') : atyp === 3 ? addr.subarray(1).toString('utf8') : (addr.toString('hex').match(/.{4}/g) ?? []).join(':');
          const port = req.readUInt16BE(4 + alen);
          const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
          b.records.push({ kind: 'socks5', target, head: `CONNECT ${target}`, credentials, allowed: true });
          b.splice(client, host, port, (err) => (err ? client.end(Buffer.from([5, 4, 0, 1, 0, 0, 0, 0, 0, 0])) : client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]))), buf);
          return;
        }
      }
    };
    client.on('data', onData);
  });
  return listen(server, 'socks5', b);
}
