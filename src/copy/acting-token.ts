/** A caller waiting on a shared copy with the token of the user it asks for (the agent's `X-Auth-Token`). */
export interface TokenWaiter {
  /** In the order the callers came: a lower id has waited longer. */
  readonly id: number;
  readonly token: string;
}

/**
 * Pure: whose token the shared copy's next Glance call carries. The one in use while its caller still waits (one
 * user's view for as long as it lasts); once that caller has gone, or Glance refused its token (revoked, or expired
 * past Keystone's allow_expired_window), the longest-waiting caller still there whose token was not refused; nobody's
 * when none is left (the copy then stops: single-flight.ts aborts it, or the refusal is the answer). Each waiter passed
 * its own visibility check before it joined, so any of them may see the image; a token whose caller has gone, or that
 * Glance refused, is never used again.
 */
export function chooseActingWaiter(currentId: number | undefined, live: readonly TokenWaiter[],
  refused: ReadonlySet<number> = new Set()): TokenWaiter | undefined {
  const usable = live.filter((waiter) => !refused.has(waiter.id));
  const current = usable.find((waiter) => waiter.id === currentId);
  if (current !== undefined) return current;
  let longest: TokenWaiter | undefined;
  for (const waiter of usable) if (longest === undefined || waiter.id < longest.id) longest = waiter;
  return longest;
}
