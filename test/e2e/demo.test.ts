// The README's first command ends in `npm run demo`: the scripted tour must run to the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { testEnv } from '../helpers/cli';

test('the sandbox tour walks a CloneSet through partition, full rollout and undo, and exits 0', () => {
  const root = resolve(import.meta.dirname, '../..');
  const r = spawnSync(process.execPath, [resolve(root, 'scripts/demo.mjs')], { env: testEnv(), encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /partition rollout complete: 1 of 8 pods updated/);
  assert.match(r.stdout, /\$ kubectl kruise rollout undo cloneset\/web\ncloneset\.apps\.kruise\.io\/web rolled back/);
  assert.match(r.stdout, /Tour complete\./);
  // After the undo every pod runs the first image again, updated in place (restarted, same pods).
  const podLines = r.stdout.slice(r.stdout.lastIndexOf('NAME        IMAGE')).split('\n').slice(1).filter(Boolean);
  const pods = podLines.filter((l) => /^web-/.test(l));
  assert.equal(pods.length, 8, r.stdout);
  for (const l of pods) assert.match(l, /nginx:1\.25\s+2$/);
});
