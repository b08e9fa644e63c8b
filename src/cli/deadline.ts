// The --timeout of a wait bounds the whole command, whatever the server does: the watchers end
// themselves at the deadline with their own words; this is the bound of last resort for what comes
// before them (discovery, lookups) or a request that never answers.

/** How long after the deadline the bound of last resort cuts in (the watchers' own timers come first). */
export const DEADLINE_GRACE_MS = 250;

/** `work`, or `expired()` once `deadline` (ms since epoch) has passed by the grace; undefined: no bound. */
export function untilDeadline<T>(work: Promise<T>, deadline: number | undefined, expired: () => Error): Promise<T> {
  if (deadline === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), Math.max(0, deadline - Date.now()) + DEADLINE_GRACE_MS);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}
