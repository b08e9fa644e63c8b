// The sandbox's pods/exec upgrade (src/sandbox/server/exec.ts) on a plain HTTP server, driven by a ws
// client and raw upgrade requests: v5 chosen over v4 (and v4 alone when only it is offered), stdin ended by
// the v5 close signal, every refusal a Status with its audit line (ours, and what ws itself refuses: the
// method, a missing key), a message over the limit closed with 1009, and closeAll's 1001 to a running exec.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { CHANNEL, channelMessage } from '../../../../src/lib/remotecommand';
import { createUpgradeHandler, type UpgradeHandler } from '../../../../src/sandbox/server/exec';
import { FaultInjector } from '../../../../src/sandbox/server/faults';
import { ResourceRegistry } from '../../../../src/sandbox/server/registry';
import type { AuditRecord } from '../../../../src/sandbox/server/request';
import { MemoryStore } from '../../../../src/sandbox/server/store';

const PODS = { group: '', resource: 'pods' };
const EXEC = '/api/v1/namespaces/default/pods/box/exec';

interface Session {
  protocol: string;
  out: string;
  status: string;
  close: { code: number; reason: string };
}

describe('the sandbox kubelet\'s exec upgrade', () => {
  let server: Server;
  let upgrades: UpgradeHandler;
  let base = '';
  const audit: AuditRecord[] = [];

  before(async () => {
    const store = new MemoryStore(new ResourceRegistry());
    store.create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'box', namespace: 'default' },
      spec: { nodeName: 'node-1', containers: [{ name: 'box', image: 'busybox:1.36' }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'box', ready: true, restartCount: 0, image: 'busybox:1.36', imageID: '', state: { running: { startedAt: '2025-01-01T00:00:00Z' } } }] },
    });
    upgrades = createUpgradeHandler({ store, faults: new FaultInjector({}), audit: (r) => audit.push(r) });
    server = createServer((_req, res) => res.end());
    server.on('upgrade', upgrades);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  /** One exec through ws: what it printed, its Status, and how the server closed. */
  function exec(query: string, protocols: string[], script: (ws: WebSocket) => void = () => undefined): Promise<Session> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://${base}${EXEC}?${query}`, protocols);
      let out = '';
      let status = '';
      ws.on('open', () => script(ws));
      ws.on('message', (data: Buffer) => {
        if (data[0] === CHANNEL.stdout) out += data.subarray(1).toString();
        if (data[0] === CHANNEL.error) status += data.subarray(1).toString();
      });
      ws.on('error', reject);
      ws.on('close', (code, reason) => resolve({ protocol: ws.protocol, out, status, close: { code, reason: reason.toString() } }));
    });
  }

  /** A raw upgrade request: the answer's status line, Content-Type and body, or 101. */
  function rawUpgrade(method: string, headers: Record<string, string>): Promise<{ status: number; contentType?: string; body: unknown }> {
    return new Promise((resolve, reject) => {
      const req = request(`http://${base}${EXEC}?command=true&stdout=true`, { method, headers: { Connection: 'Upgrade', ...headers } });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, body: undefined });
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('offers v5 then v4: v5 is chosen, the command runs, its Status comes, then a normal close; one audit line with 101', async () => {
    audit.length = 0;
    const s = await exec('command=echo&command=hi&stdout=true', ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    assert.deepEqual(s, { protocol: 'v5.channel.k8s.io', out: 'hi\n', status: '{"metadata":{},"status":"Success"}', close: { code: 1000, reason: '' } });
    assert.deepEqual(audit.map((a) => `${a.method} ${a.path} ${a.code}`), [`GET ${EXEC} 101`]);
  });

  it('a client offering v4 alone gets v4; nothing it does not speak', async () => {
    assert.equal((await exec('command=true&stdout=true', ['v4.channel.k8s.io'])).protocol, 'v4.channel.k8s.io');
    audit.length = 0;
    const r = await rawUpgrade('GET', { Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'channel.k8s.io' });
    assert.equal(r.status, 400);
    assert.match((r.body as { message: string }).message, /^requested protocol\(s\) are not supported: \[channel\.k8s\.io\]; supports \[v5\.channel\.k8s\.io v4\.channel\.k8s\.io\]$/);
    assert.deepEqual(audit.map((a) => a.code), [400]);
  });

  it('v5: stdin flows to cat and the close signal ([255, 0]) ends it', async () => {
    const s = await exec('command=cat&stdin=true&stdout=true', ['v5.channel.k8s.io'], (ws) => {
      ws.send(channelMessage(CHANNEL.stdin, Buffer.from('one\ntwo\n')));
      ws.send(channelMessage(CHANNEL.close, Buffer.from([CHANNEL.stdin])));
    });
    assert.equal(s.out, 'one\ntwo\n');
    assert.equal(s.status, '{"metadata":{},"status":"Success"}');
  });

  it('what ws refuses is a Status with an audit line too: a POST upgrade (405), a missing key (400); SPDY gets the clear refusal', async () => {
    audit.length = 0;
    const post = await rawUpgrade('POST', { Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' });
    assert.equal(post.status, 405);
    assert.equal(post.contentType, 'application/json');
    assert.equal((post.body as { message: string }).message, 'a WebSocket upgrade is a GET request');
    const noKey = await rawUpgrade('GET', { Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' });
    assert.equal(noKey.status, 400);
    assert.equal((noKey.body as { message: string }).message, 'invalid WebSocket upgrade: Missing or invalid Sec-WebSocket-Key header');
    const spdy = await rawUpgrade('POST', { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' });
    assert.equal(spdy.status, 400);
    assert.match((spdy.body as { message: string }).message, /^the sandbox streams exec over WebSocket only \(v5\.channel\.k8s\.io, v4\.channel\.k8s\.io\), not SPDY\/3\.1: use kubectl >= 1\.30 or kubectl kruise exec$/);
    assert.deepEqual(audit.map((a) => `${a.method} ${a.code}`), ['POST 405', 'GET 400', 'POST 400']);
  });

  it('a client message over 4 MiB is refused with 1009 and the session ends', async () => {
    const s = await exec('command=cat&stdin=true&stdout=true', ['v5.channel.k8s.io'], (ws) => ws.send(channelMessage(CHANNEL.stdin, Buffer.alloc(4 * 1024 * 1024 + 1, 0x61))));
    assert.equal(s.close.code, 1009);
    assert.equal(s.status, '');
  });

  it('closeAll (the sandbox stopping) ends a running exec with 1001 and says why', async () => {
    const s = await exec('command=sleep&command=60&stdout=true', ['v5.channel.k8s.io'], () => setTimeout(() => upgrades.closeAll(), 50));
    assert.deepEqual(s.close, { code: 1001, reason: 'the sandbox is stopping' });
  });
});
