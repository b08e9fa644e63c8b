// kruise-manager's Deployment (Kruise config/manager/manager.yaml, leader election in main.go): the Kruise
// controllers run while one replica is available. Fixture: test/fixtures/preview/kruise-controller-manager.yaml.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kruiseControllersRun, kruiseManagerState } from '../../../src/kruise/kruise-manager';
import type { KubeObject } from '../../../src/kruise/types';

const manager = parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'preview', 'kruise-controller-manager.yaml'), 'utf8')) as KubeObject;

test('kruise-manager scaled to 0 runs no controller; one available replica runs them; replicas unset is 1', () => {
  assert.deepEqual(kruiseManagerState(manager), { replicas: 0, available: 0 });
  assert.equal(kruiseControllersRun(manager), false);
  const up = { ...manager, spec: { ...(manager.spec as object), replicas: 2 }, status: { replicas: 2, availableReplicas: 1 } };
  assert.equal(kruiseControllersRun(up), true);
  const { replicas: _r, ...noReplicas } = manager.spec as Record<string, unknown>;
  assert.deepEqual(kruiseManagerState({ ...manager, spec: noReplicas }), { replicas: 1, available: 0 });
});
