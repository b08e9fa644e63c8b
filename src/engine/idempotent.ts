// Creating objects with deterministic names safely: a create whose response was lost
// (5xx, reset connection) is resent, and "already exists" means the earlier attempt (or an
// earlier run) made it, so the existing object is returned rather than a duplicate made.
import type { KubeClient, KubeObject, ResourceType } from '../kube/client';
import { KubeApiError, isAlreadyExists } from '../kube/errors';
import { CliError } from '../cli/exit';

const RESEND_STATUSES = new Set([429, 500, 502, 503, 504]);
// Deterministic names make resending safe, so a flaky server gets more chances than a plain write would.
const MAX_ATTEMPTS = 8;

function resendable(err: unknown): boolean {
  if (err instanceof KubeApiError) return RESEND_STATUSES.has(err.status);
  if (err instanceof CliError) return /reset|timed out|unreachable/.test(err.message);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT' || code === 'ECONNREFUSED';
}

export interface CreateOutcome<T extends KubeObject> {
  object: T;
  /** False when it existed already. */
  created: boolean;
}

export async function createOrAdopt<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  obj: KubeObject,
  opts: { dryRun?: boolean; signal?: AbortSignal } = {},
): Promise<CreateOutcome<T>> {
  const ns = obj.metadata.namespace;
  for (let attempt = 1; ; attempt++) {
    try {
      const object = await client.create<T>(rt, obj, ns, { dryRun: opts.dryRun, signal: opts.signal });
      return { object, created: true };
    } catch (err) {
      if (isAlreadyExists(err)) {
        if (opts.dryRun) return { object: obj as T, created: false };
        return { object: await client.get<T>(rt, obj.metadata.name!, ns, { signal: opts.signal }), created: false };
      }
      if (attempt >= MAX_ATTEMPTS || !resendable(err) || opts.signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
    }
  }
}
