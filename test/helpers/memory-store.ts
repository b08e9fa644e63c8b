// The sandbox's real store (src/sandbox/server/store.ts) for controller unit tests, wired the
// way src/sandbox/index.ts wires it for the API server: the built-in kinds, the Kruise CRDs of
// one release (which also decide the storage versions), admission hooks of the controllers,
// and the kubelet flag. No HTTP. Tests therefore prove the product's storage semantics
// (resourceVersion, status subresource, finalizers, event order), not a copy of them.
import { builtinKruiseCrds, type KruiseRelease } from '../../src/sandbox/crds/builtin-crds';
import { attachCrdLifecycle, installCrds } from '../../src/sandbox/server/crd-lifecycle';
import { ResourceRegistry } from '../../src/sandbox/server/registry';
import { MemoryStore } from '../../src/sandbox/server/store';
import type { ControllerWithAdmission, SimulationSettings } from '../../src/sandbox/store-api';

export { MemoryStore };

/**
 * Stored objects are shared with watch backlogs and listeners, so the store never changes one
 * in place (store.ts). Freezing every committed object makes a controller or hook that mutates
 * an event's object, or a stored object reached through it, throw instead of silently
 * corrupting what watchers see.
 */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/** A store with the Kruise CRDs of `kruise` (default v1.9) installed, like `kubectl kruise sandbox --kruise`. */
export function createStore(opts: { kruise?: KruiseRelease } = {}): MemoryStore {
  const registry = new ResourceRegistry();
  const store = new MemoryStore(registry);
  // Subscribed first, so every later listener (CRD lifecycle, controllers) sees frozen objects.
  store.subscribeRaw((ev) => deepFreeze(ev.object));
  attachCrdLifecycle(store, registry);
  installCrds(store, builtinKruiseCrds(opts.kruise ?? 'v1.9'));
  return store;
}

/** Installs the controllers' admission hooks and starts them, as startSandbox does. Returns stop(). */
export function startControllers(store: MemoryStore, controllers: ControllerWithAdmission[], settings: SimulationSettings): () => void {
  for (const c of controllers) if (c.admission) store.addAdmissionHooks(c.admission);
  store.hasKubelet = controllers.some((c) => c.name === 'kubelet');
  for (const c of controllers) c.start(store, settings);
  return () => {
    for (const c of controllers) c.stop();
  };
}

/** A store of `settings.kruise` with `controllers` running on it. */
export function startOnStore(controllers: ControllerWithAdmission[], settings: SimulationSettings): { store: MemoryStore; settings: SimulationSettings; stop: () => void } {
  const store = createStore({ kruise: settings.kruise });
  const stop = startControllers(store, controllers, settings);
  return { store, settings, stop };
}

/** Polls `check` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function waitFor<T>(what: string, check: () => T | undefined | false | null, timeoutMs = 5000, stepMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
