// Shared steps of the rollout e2e tests: apply fixtures with real kubectl, read objects back
// through the API, wait for controller progress with deadlines, parse JSON Lines.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { kubectl, KUBECTL_BIN, pluginDir, REPO_ROOT, testEnv, type RunResult } from '../helpers/cli';
import { waitUntil, type AuditEntry, type Sandbox } from '../helpers/sandbox';

export const FIXTURES = join(REPO_ROOT, 'test/fixtures/rollout/e2e');

export const PATHS = {
  cloneset: (v = 'v1alpha1', name = 'web') => `/apis/apps.kruise.io/${v}/namespaces/default/clonesets/${name}`,
  asts: (name = 'db') => `/apis/apps.kruise.io/v1beta1/namespaces/default/statefulsets/${name}`,
  ads: (v = 'v1alpha1', name = 'agent') => `/apis/apps.kruise.io/${v}/namespaces/default/daemonsets/${name}`,
  deployment: (name = 'api') => `/apis/apps/v1/namespaces/default/deployments/${name}`,
};

export async function applyFixture(sb: Sandbox, file: string): Promise<void> {
  const r = await kubectl(['apply', '-f', join(FIXTURES, file)], sb.kubeconfig);
  assert.equal(r.code, 0, `kubectl apply ${file}: ${r.stderr}`);
}

export async function kubectlOk(sb: Sandbox, args: string[]): Promise<RunResult> {
  const r = await kubectl(args, sb.kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r;
}

export async function getObject(sb: Sandbox, path: string): Promise<any> {
  const r = await sb.api('GET', path);
  assert.equal(r.status, 200, `GET ${path}: ${r.text}`);
  return r.body;
}

/** Waits until every pod of the workload is updated and ready (the starting point of a test). */
export async function waitSettled(sb: Sandbox, path: string, timeoutMs = 20_000): Promise<any> {
  return waitUntil(
    `${path} to settle`,
    async () => {
      const r = await sb.api('GET', path);
      if (r.status !== 200) return undefined;
      const o = r.body;
      const s = o.status ?? {};
      if ((s.observedGeneration ?? 0) < o.metadata.generation) return undefined;
      if (s.desiredNumberScheduled !== undefined) {
        return s.desiredNumberScheduled > 0 && s.updatedNumberScheduled === s.desiredNumberScheduled && s.numberAvailable === s.desiredNumberScheduled ? o : undefined;
      }
      const want = o.spec.replicas ?? 1;
      const ready = s.updatedReadyReplicas ?? s.readyReplicas;
      return s.replicas === want && s.updatedReplicas === want && ready === want && (s.availableReplicas ?? want) === want ? o : undefined;
    },
    timeoutMs,
  );
}

export async function podsOf(sb: Sandbox, selector: string): Promise<any[]> {
  const r = await sb.api('GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(selector)}`);
  return (r.body.items as any[]).filter((p) => !p.metadata.deletionTimestamp);
}

export function isPodReady(pod: any): boolean {
  return (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
}

export function jsonLines(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

export const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export function writes(entries: AuditEntry[]): AuditEntry[] {
  return entries.filter((e) => WRITE_VERBS.has(e.verb));
}

export function summary(r: RunResult): string {
  return `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

/** `kubectl kruise ARGS` through kubectl's plugin mechanism (bin/ on PATH, KUBECONFIG exported). */
export function kubectlKruise(sb: Sandbox, args: string[], timeoutMs = 40_000): Promise<RunResult> {
  return new Promise((resolve) => {
    const env = { ...testEnv(sb.kubeconfig), PATH: `${pluginDir()}${delimiter}${process.env.PATH ?? ''}` };
    execFile(KUBECTL_BIN, ['kruise', ...args], { env, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
