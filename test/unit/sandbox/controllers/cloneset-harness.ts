// Test harness for the Kruise workload controllers: the runtime (nodes, scheduler, kubelet) plus
// the controllers under test on the sandbox's real store, whose admission hooks run like the API
// server's (mutating result kept, rejections thrown), so webhook rules and pod injection are exercised.
// The imitated release (settings.kruise) also decides the storage versions, as in the sandbox.
import { parseAllDocuments } from 'yaml';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MemoryStore, startOnStore } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import type { ControllerWithAdmission, SimulationSettings } from '../../../../src/sandbox/store-api';
import type { KubeObject } from '../../../../src/kruise/types';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures/kruise-controllers');

export function fixture(name: string): KubeObject[] {
  return parseAllDocuments(readFileSync(join(FIXTURES, name), 'utf8'))
    .map((d) => d.toJS() as KubeObject)
    .filter(Boolean);
}

export interface Sim {
  store: MemoryStore;
  settings: SimulationSettings;
  stop(): void;
}

export function startSim(controllers: ControllerWithAdmission[], opts: { settings?: Partial<SimulationSettings> } = {}): Sim {
  const settings: SimulationSettings = { readyDelayMs: 20, kruise: 'v1.9', nodes: 3, ...(opts.settings ?? {}) };
  return startOnStore([createNodesController(), createScheduler(), createKubelet(), ...controllers], settings);
}
