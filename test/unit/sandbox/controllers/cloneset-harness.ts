// Test harness for the Kruise workload controllers: the runtime (nodes, scheduler, kubelet) plus
// the controllers under test on a MemoryStore that runs admission hooks like the API server does
// (mutating result kept, rejections thrown), so webhook rules and pod injection are exercised.
import { parseAllDocuments } from 'yaml';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryStore, type MemoryStoreOptions } from '../../../helpers/memory-store';
import { createNodesController } from '../../../../src/sandbox/controllers/nodes';
import { createScheduler } from '../../../../src/sandbox/controllers/scheduler';
import { createKubelet } from '../../../../src/sandbox/controllers/kubelet';
import type { AdmissionHook, ControllerWithAdmission, GroupResource, SimulationSettings } from '../../../../src/sandbox/store-api';
import type { KubeObject } from '../../../../src/kruise/types';

export const FIXTURES = join(import.meta.dirname, '../../../fixtures/kruise-controllers');

export function fixture(name: string): KubeObject[] {
  return parseAllDocuments(readFileSync(join(FIXTURES, name), 'utf8'))
    .map((d) => d.toJS() as KubeObject)
    .filter(Boolean);
}

class AdmittingStore extends MemoryStore {
  hooks: AdmissionHook[] = [];
  private admit(op: 'CREATE' | 'UPDATE', gr: GroupResource, obj: KubeObject, old: KubeObject | undefined): KubeObject {
    let cur = obj;
    for (const h of this.hooks) {
      if (h.gr.group !== gr.group || h.gr.resource !== gr.resource || !h.operations.includes(op)) continue;
      const out = h.admit(op, structuredClone(cur), old ? structuredClone(old) : undefined, this);
      if (out) cur = out;
    }
    return cur;
  }
  override create(gr: GroupResource, obj: KubeObject): KubeObject {
    const sv = this.storageVersion(gr);
    const input = sv ? { ...obj, apiVersion: sv } : obj;
    return super.create(gr, this.admit('CREATE', gr, input, undefined));
  }
  override update(gr: GroupResource, obj: KubeObject): KubeObject {
    const old = this.get(gr, obj.metadata.namespace, obj.metadata.name ?? '');
    return super.update(gr, this.admit('UPDATE', gr, old ? { ...obj, apiVersion: old.apiVersion } : obj, old));
  }
}

export interface Sim {
  store: AdmittingStore;
  settings: SimulationSettings;
  stop(): void;
}

export function startSim(
  controllers: ControllerWithAdmission[],
  opts: { settings?: Partial<SimulationSettings>; store?: MemoryStoreOptions } = {},
): Sim {
  const store = new AdmittingStore(opts.store ?? {});
  const settings: SimulationSettings = { readyDelayMs: 20, kruise: 'v1.9', nodes: 3, ...(opts.settings ?? {}) };
  const all: ControllerWithAdmission[] = [createNodesController(), createScheduler(), createKubelet(), ...controllers];
  for (const c of all) store.hooks.push(...(c.admission ?? []));
  for (const c of all) c.start(store, settings);
  return { store, settings, stop: () => all.forEach((c) => c.stop()) };
}
