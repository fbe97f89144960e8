/**
 * What a fixed-interval poller (nova's FixedIntervalWithTimeoutLoopingCall: first poll right after the request, then
 * one every `intervalMs`) costs for a copy that ends `durationMs` after the request: image reads after the request,
 * and how late it notices the end. Round-trip time is ignored, which flatters the poller slightly.
 */
export function fixedIntervalCost(durationMs: number, intervalMs: number): { reads: number; delayMs: number } {
  const polls = Math.max(0, Math.ceil(durationMs / intervalMs));
  return { reads: polls + 1, delayMs: polls * intervalMs - durationMs };
}

/** nova's default images_rbd_glance_copy_poll_interval. */
export const NOVA_POLL_INTERVAL_MS = 15_000;
