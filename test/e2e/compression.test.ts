// Compression as between kubectl and kube-apiserver: the sandbox gzips answers over 128 KiB to a client
// that asks (responsewriters/writers.go: level 1, Vary: Accept-Encoding, no Content-Length), real kubectl
// reads them, and so does this CLI in both forms; --disable-compression asks for plain answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { EXE, kubectl, runCli } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const PODS = 150;
let sb: Sandbox;

function raw(path: string, acceptEncoding?: string): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, sb.url), { headers: acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('compressed answers', () => {
  before(async () => {
    sb = await startSandbox({ readyDelay: '10ms' });
    const cs = `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: big, namespace: default}
spec:
  replicas: ${PODS}
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: app, image: "nginx:1.25"}]}
`;
    assert.equal((await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: cs })).code, 0);
    await waitUntil(`${PODS} pods`, async () => (await sb.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dbig')).body.items.length === PODS, 30_000);
  });
  after(async () => {
    await sb?.stop();
  });

  it('the sandbox: a list over 128 KiB gzipped at a client\'s request, plain otherwise; a small answer never', async () => {
    const zipped = await raw('/api/v1/namespaces/default/pods', 'gzip');
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers.vary, 'Accept-Encoding');
    assert.equal(zipped.headers['content-length'], undefined);
    const inflated = gunzipSync(zipped.body);
    const plain = await raw('/api/v1/namespaces/default/pods');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.length > 128 * 1024, `${plain.body.length} bytes`);
    assert.equal(JSON.parse(inflated.toString()).items.length, PODS);
    assert.ok(zipped.body.length * 5 < plain.body.length, `${zipped.body.length} vs ${plain.body.length} bytes`);
    const small = await raw('/apis/apps.kruise.io/v1alpha1/namespaces/default/clonesets/big', 'gzip');
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal((await raw('/api/v1/namespaces/default/pods', 'gzip;q=0')).headers['content-encoding'], undefined);
  });

  it('real kubectl and this CLI read the compressed list; --disable-compression asks for none', async () => {
    const k = await kubectl(['get', 'pods', '-l', 'app=big', '--no-headers'], sb.kubeconfig);
    assert.equal(k.stdout.trim().split('\n').length, PODS);
    for (const extra of [[], ['--disable-compression']]) {
      const h = await runCli(['rollout', 'history', 'cloneset/big', '-v=7', ...extra], { kubeconfig: sb.kubeconfig });
      assert.equal(h.code, 0, h.stderr);
      assert.match(h.stdout, new RegExp(`^1 +<none> +nginx:1\\.25 +${PODS}$`, 'm'));
      const asked = /Request Header: "Accept-Encoding: ([^"]*)"/.exec(h.stderr)?.[1];
      // The npm form asks for gzip itself; the executable's fetch asks on its own, and is told "identity" when disabled.
      if (EXE) assert.equal(asked, extra.length ? 'identity' : undefined);
      else assert.equal(asked, extra.length ? undefined : 'gzip');
    }
  });
});
