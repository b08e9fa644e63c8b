// Reference point for bench section 2, not part of the product: the least a Node.js process
// can do for `rollout pause|resume` — node:http, one keep-alive connection, GET the CloneSet,
// PATCH spec.updateStrategy.paused, print one line — with no CLI, no kubeconfig handling and
// no checks. Its time against `kubectl patch` shows how much of our ratio is Node itself.
// Usage: node bench/node-floor.cjs SERVER NAMESPACE NAME true|false
'use strict';
const http = require('node:http');

const [server, namespace, name, paused] = process.argv.slice(2);
const base = new URL(server);
const agent = new http.Agent({ keepAlive: true });
const path = `/apis/apps.kruise.io/v1alpha1/namespaces/${namespace}/clonesets/${name}`;

function send(method, body) {
  return new Promise((resolve, reject) => {
    const headers = body ? { 'Content-Type': 'application/merge-patch+json', 'Content-Length': Buffer.byteLength(body) } : {};
    const req = http.request({ host: base.hostname, port: base.port, path, method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode < 300 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

(async () => {
  await send('GET');
  await send('PATCH', JSON.stringify({ spec: { updateStrategy: { paused: paused === 'true' } } }));
  process.stdout.write(`cloneset.apps.kruise.io/${name} ${paused === 'true' ? 'paused' : 'resumed'}\n`);
  process.exit(0);
})().catch((err) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
