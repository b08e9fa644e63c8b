// Input the CLI reads is bounded (issue #14 items 6 and 7): a YAML alias bomb in -f is invalid
// input (exit 2) naming the file, whichever command reads it, and nothing is sent anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '../helpers/cli';

const BOMB = join(REPO_ROOT, 'test/fixtures/bad/alias-bomb.yaml');
const NO_CLUSTER = { kubeconfig: '/nonexistent/kubeconfig', timeoutMs: 20_000 };

for (const args of [
  ['set', 'image', '-f', BOMB, 'app=nginx:1.27', '--local', '-o', 'name'],
  ['explain', 'partition', '-f', BOMB],
  ['rollout', 'status', '-f', BOMB],
]) {
  test(`an alias bomb in -f exits 2 naming the file: ${args.slice(0, 2).join(' ')}`, async () => {
    const r = await runCli(args, NO_CLUSTER);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^error: error parsing \S*test\/fixtures\/bad\/alias-bomb\.yaml \(document 1\): too many aliases/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });
}
