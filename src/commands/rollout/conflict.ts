// Bounded retry with fresh state when the server reports a conflict (409, or a failed JSON
// patch `test` of the resourceVersion): each attempt re-reads and decides again, so a
// concurrent change is never overwritten and never lost.
import { KubeApiError } from '../../kube/errors';

export const MAX_CONFLICT_ATTEMPTS = 4;

export function isRace(err: unknown): boolean {
  return err instanceof KubeApiError && ((err.status === 409 && err.reason !== 'AlreadyExists') || (err.status === 422 && /\btest\b/i.test(err.message)));
}

export async function retryOnConflict<T>(attempt: () => Promise<T>, attempts = MAX_CONFLICT_ATTEMPTS): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isRace(err) || i >= attempts) throw err;
    }
  }
}
