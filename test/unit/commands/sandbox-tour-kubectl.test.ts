// The tour runs the kubectl that ran the plugin: kubectl ≥ 1.36 passes its own path in KUBECTL_PATH.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findKubectl } from '../../../src/commands/sandbox-tour';

test('KUBECTL_PATH first, then the first kubectl on PATH; a KUBECTL_PATH that does not exist is passed over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kk-kubectl-path-'));
  const onPath = join(dir, 'bin');
  mkdirSync(onPath);
  writeFileSync(join(onPath, 'kubectl'), '#!/bin/sh\n');
  chmodSync(join(onPath, 'kubectl'), 0o755);
  const pinned = join(dir, 'kubectl-1.36');
  writeFileSync(pinned, '#!/bin/sh\n');
  chmodSync(pinned, 0o755);
  assert.equal(findKubectl({ PATH: onPath, KUBECTL_PATH: pinned }), pinned);
  assert.equal(findKubectl({ PATH: onPath }), join(onPath, 'kubectl'));
  assert.equal(findKubectl({ PATH: onPath, KUBECTL_PATH: join(dir, 'gone') }), join(onPath, 'kubectl'));
  assert.equal(findKubectl({ PATH: join(dir, 'none') }), undefined);
});
