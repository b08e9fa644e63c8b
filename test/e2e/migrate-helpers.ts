// Shared by the migrate end-to-end tests: Deployments from the fixture under other names, the
// pods of both workloads as real kubectl sees them, and reading the two workloads back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, REPO_ROOT } from '../helpers/cli';
import { waitUntil, type Sandbox } from '../helpers/sandbox';

export const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'migrate', 'deployment-web.yaml');

export interface PodView {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string; ownerReferences?: Array<{ kind: string; name: string; uid: string; controller?: boolean }> };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
}

export interface WorkloadView {
  metadata: { name: string; uid: string; generation?: number; annotations?: Record<string, string> };
  spec: { replicas?: number } & Record<string, unknown>;
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number };
}

export const isReady = (p: PodView): boolean => !p.metadata.deletionTimestamp && p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
export const controllerKind = (p: PodView): string | undefined => p.metadata.ownerReferences?.find((o) => o.controller)?.kind;

/** The fixture's Deployment renamed (name and app label), resized, and with another image (the sandbox's `slow` tag starts 5x slower). */
export function deploymentYaml(name: string, replicas: number, image = 'nginx:1.27'): string {
  return readFileSync(FIXTURE, 'utf8')
    .replaceAll('name: web', `name: ${name}`)
    .replaceAll('app: web', `app: ${name}`)
    .replace('replicas: 6', `replicas: ${replicas}`)
    .replace('image: nginx:1.27', `image: ${image}`);
}

export async function pods(sb: Sandbox, app: string): Promise<PodView[]> {
  return (await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).body.items as PodView[];
}

/**
 * Applies the Deployment with real kubectl and waits until every pod is Ready and the Deployment's
 * status says so (all available, current generation observed: what `kubectl rollout status` waits
 * for). Until then its controller still writes status, and a resourceVersion-guarded write from the
 * command under test could meet a (retried, but audited) 409.
 */
export async function deploymentReady(sb: Sandbox, name: string, replicas: number, image?: string): Promise<PodView[]> {
  const r = await kubectl(['apply', '-f', '-'], sb.kubeconfig, { input: deploymentYaml(name, replicas, image) });
  assert.equal(r.code, 0, r.stderr);
  return waitUntil(`${replicas} ready pods of deployment/${name}, all available in its status`, async () => {
    const items = (await pods(sb, name)).filter((p) => !p.metadata.deletionTimestamp);
    if (items.length !== replicas || !items.every(isReady)) return undefined;
    const d = await getDeployment(sb, name);
    const s = d.status ?? {};
    const settled = (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 1) && s.replicas === replicas && s.readyReplicas === replicas && s.availableReplicas === replicas;
    return settled ? items : undefined;
  }, 40_000);
}

export async function getDeployment(sb: Sandbox, name: string): Promise<WorkloadView> {
  const r = await sb.api('GET', `/apis/apps/v1/namespaces/default/deployments/${name}`);
  assert.equal(r.status, 200, r.text);
  return r.body as WorkloadView;
}

export async function getCloneSet(sb: Sandbox, name: string, version = 'v1alpha1'): Promise<WorkloadView | undefined> {
  const r = await sb.api('GET', `/apis/apps.kruise.io/${version}/namespaces/default/clonesets/${name}`);
  return r.status === 404 ? undefined : (r.body as WorkloadView);
}

/** Waits until the CloneSet runs `n` ready pods of its own and the Deployment none; returns those pods. */
export async function migrated(sb: Sandbox, name: string, n: number): Promise<PodView[]> {
  return waitUntil(`cloneset/${name} with ${n} ready pods and deployment/${name} with none`, async () => {
    const items = (await pods(sb, name)).filter((p) => !p.metadata.deletionTimestamp);
    return items.length === n && items.every((p) => isReady(p) && controllerKind(p) === 'CloneSet') ? items : undefined;
  }, 40_000);
}

/**
 * Samples the pods of both workloads with real kubectl (`get pods -o json`) until stopped: the
 * fewest Ready pods and the most pods seen at once (terminating pods not counted in either).
 */
export function podSampler(sb: Sandbox, app: string): { stop(): Promise<{ samples: number; minReady: number; maxPods: number; owners: Set<string> }> } {
  let running = true;
  let samples = 0;
  let minReady = Number.POSITIVE_INFINITY;
  let maxPods = 0;
  const owners = new Set<string>();
  const loop = (async () => {
    while (running) {
      const r = await kubectl(['get', 'pods', '-l', `app=${app}`, '-o', 'json'], sb.kubeconfig);
      if (r.code !== 0) continue;
      const items = ((JSON.parse(r.stdout) as { items: PodView[] }).items ?? []).filter((p) => !p.metadata.deletionTimestamp);
      samples++;
      minReady = Math.min(minReady, items.filter(isReady).length);
      maxPods = Math.max(maxPods, items.length);
      for (const p of items) owners.add(controllerKind(p) ?? 'none');
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { samples, minReady, maxPods, owners };
    },
  };
}
