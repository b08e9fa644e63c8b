// Writes that know about GitOps: every write a command sends carries its --field-manager, and a
// patch or update that would change a field a reverting manager (Argo CD, Flux, server-side apply)
// owns in the object the command read warns, is refused (exit 1, nothing sent) or goes ahead
// (--gitops=warn|refuse|ignore). One wrapper around the client, so no command repeats it.
import { failure } from '../cli/exit';
import type { KubeClient, KubeObject, PatchType, RequestOptions, ResourceType } from '../kube/client';
import { formatFinding, gitopsFindings, type GitOpsMode } from '../kruise/gitops/owners';
import { jsonPatch, mergePatch } from '../lib/json-patch';

export interface WritePolicy {
  /** The manager recorded for every write (kubectl's name for the verb, or kubectl-kruise-<verb>). */
  fieldManager: string;
  gitops: GitOpsMode;
  /** Prints one line on stderr. */
  warn: (line: string) => void;
}

type Json = Parameters<typeof jsonPatch>[0];

function objectKey(rt: ResourceType, namespace: string | undefined, name: string): string {
  return `${rt.group}/${rt.resource}/${rt.namespaced ? (namespace ?? '') : ''}/${name}`;
}

/** The object `patch` would make of `current`, or undefined when it cannot be told here (the server decides). */
export function patchedObject(current: KubeObject, type: PatchType, patch: unknown): KubeObject | undefined {
  try {
    if (type === 'json') return jsonPatch(current as unknown as Json, patch as Json) as unknown as KubeObject;
    // A strategic merge patch is a merge patch for the maps it sets (the lists it merges by key are not told apart).
    return mergePatch(current as unknown as Json, patch as Json) as unknown as KubeObject;
  } catch {
    return undefined;
  }
}

/**
 * The findings of a write turning `before` into `after` under `policy`: printed as warnings, or
 * a failure (exit 1) for --gitops=refuse. Nothing for --gitops=ignore.
 */
export function checkGitOpsWrite(policy: WritePolicy, before: KubeObject, after: KubeObject, printed?: Set<string>): void {
  if (policy.gitops === 'ignore') return;
  const findings = gitopsFindings(before, after, policy.fieldManager).map(formatFinding);
  if (findings.length === 0) return;
  const what = `${(before.kind ?? 'object').toLowerCase()}/${before.metadata.name ?? ''}`;
  if (policy.gitops === 'refuse') {
    throw failure(
      `refusing to change ${what}: ${findings.join('; ')}`,
      'hint: change it in Git (the GitOps source) instead, or pass --gitops=warn or --gitops=ignore to write anyway',
    );
  }
  for (const line of findings) {
    const text = `Warning: ${line}`;
    if (printed?.has(text)) continue;
    printed?.add(text);
    policy.warn(text);
  }
}

/**
 * `client` with every write attributed to `policy.fieldManager` and checked against the last copy
 * of the object the command read through it (get or list): no extra request is made for the check.
 */
export function guardWrites(client: KubeClient, policy: WritePolicy): KubeClient {
  const read = new Map<string, KubeObject>();
  const printed = new Set<string>();
  const remember = (rt: ResourceType, namespace: string | undefined, obj: KubeObject): void => {
    if (obj?.metadata?.name) read.set(objectKey(rt, obj.metadata.namespace ?? namespace ?? client.namespace, obj.metadata.name), obj);
  };
  const withManager = (opts: RequestOptions | undefined): RequestOptions => ({ ...opts, fieldManager: opts?.fieldManager ?? policy.fieldManager });
  const guarded: Partial<KubeClient> = {
    async get(rt, name, namespace, opts) {
      const obj = await client.get(rt, name, namespace, opts);
      if (!opts?.subresource) remember(rt, namespace, obj);
      return obj;
    },
    async list(rt, namespace, opts) {
      const list = await client.list(rt, namespace, opts);
      for (const item of list.items) remember(rt, namespace, item);
      return list;
    },
    async patch(rt, name, type, patch, namespace, opts) {
      const before = opts?.subresource ? undefined : read.get(objectKey(rt, namespace ?? client.namespace, name));
      const after = before && patchedObject(before, type, patch);
      if (before && after) checkGitOpsWrite({ ...policy, fieldManager: opts?.fieldManager ?? policy.fieldManager }, before, after, printed);
      const result = await client.patch(rt, name, type, patch, namespace, withManager(opts));
      remember(rt, namespace, result);
      return result;
    },
    async update(rt, obj, namespace, opts) {
      const before = opts?.subresource ? undefined : read.get(objectKey(rt, namespace ?? obj.metadata.namespace ?? client.namespace, obj.metadata.name ?? ''));
      if (before) checkGitOpsWrite({ ...policy, fieldManager: opts?.fieldManager ?? policy.fieldManager }, before, obj, printed);
      const result = await client.update(rt, obj, namespace, withManager(opts));
      remember(rt, namespace, result);
      return result;
    },
    create(rt, obj, namespace, opts) {
      return client.create(rt, obj, namespace, withManager(opts));
    },
  } as Partial<KubeClient>;
  return new Proxy(client, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in guarded) return (guarded as Record<string, unknown>)[prop];
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
