// The eviction's fence: an image-meta mark on the copy itself, written before the grace period and read by anyone
// who would hand the copy out (the agent). It dies with the copy: a copy brought again later carries none. Pure.
//
// Its value says when the run will look again and remove the copy. Until shortly before that moment a boot may still
// be given the copy: its clone lands before the last look, which then sees it and keeps the copy. After it, whoever
// hands copies out waits for the run to end instead (docs/evict.md, "Boot safety").

/** The image-meta key (rbd image-meta get POOL/IMAGE ferry.evicting). */
export const FENCE_KEY = 'ferry.evicting';

/**
 * A fence older than its last look by this much belongs to a run that is gone (killed, or stuck): the next run takes
 * it over, and agents stop waiting for it. Short, because a boot that reaches the agent while a copy is fenced waits
 * for the run to end: a killed run's fence holds such boots this long.
 */
export const FENCE_HOLD_MS = 120_000;
/** Whoever hands copies out (the agent) hands out a fenced copy only while its last look is at least this far ahead. */
export const FENCE_ANSWER_MARGIN_MS = 10_000;
/** Clocks of the evicting host and the compute hosts may differ this much (NTP keeps them within milliseconds). */
export const FENCE_SKEW_MS = 30_000;
/**
 * The longest a fence counts as another run's removal under way, from when it was first written (`since`): a run's
 * fence lives its grace and at most FENCE_HOLD_MS − FENCE_SKEW_MS after its last look; three times FENCE_HOLD_MS leaves
 * room for a grace of minutes. One renewed for longer is no run's removal (a loop, or a writer of the pool's image-meta):
 * it still keeps its copy, but no budget counts its bytes as leaving.
 */
export const FENCE_COUNTED_MS = 3 * FENCE_HOLD_MS;

/** The last moment a run may remove a fenced copy: well before anyone calls its fence stale. */
export function removalDeadline(fence: EvictFence): number {
  return fence.recheckAtMs + FENCE_HOLD_MS - FENCE_SKEW_MS;
}

export interface EvictFence {
  /** The run that wrote it (a random id per run). */
  readonly run: string;
  /** Unix ms: when that run looks again (fence time + grace) and, if nothing changed, removes the copy. */
  readonly recheckAtMs: number;
  /** Who wrote it (host and process), for people reading the mark. */
  readonly by: string;
  /** Unix ms: when the run first wrote it; undefined in an older ferry's fence (read, kept, never counted as leaving). */
  readonly sinceMs?: number | undefined;
}

/** A mark that does not parse: someone's, but not in ferry's format. Kept, never removed or overwritten by ferry. */
export const FOREIGN_FENCE: EvictFence = Object.freeze({ run: '?', recheckAtMs: Number.POSITIVE_INFINITY, by: 'not ferry\'s format' });

export function fenceValue(fence: EvictFence): string {
  return JSON.stringify({ run: fence.run, recheck_at: new Date(fence.recheckAtMs).toISOString(), by: fence.by,
    ...(fence.sinceMs === undefined ? {} : { since: new Date(fence.sinceMs).toISOString() }) });
}

/** The fence among a copy's image-meta marks; undefined when there is none. */
export function fenceOf(meta: Readonly<Record<string, string>>): EvictFence | undefined {
  const value = meta[FENCE_KEY];
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as { run?: unknown; recheck_at?: unknown; by?: unknown; since?: unknown };
    const recheckAtMs = typeof parsed.recheck_at === 'string' ? Date.parse(parsed.recheck_at) : Number.NaN;
    // `since` came later: a fence without it is an older ferry's, still ferry's format.
    const sinceMs = parsed.since === undefined ? undefined : typeof parsed.since === 'string' ? Date.parse(parsed.since) : Number.NaN;
    if (typeof parsed.run !== 'string' || Number.isNaN(recheckAtMs) || Number.isNaN(sinceMs)) return FOREIGN_FENCE;
    return Object.freeze({ run: parsed.run, recheckAtMs, by: typeof parsed.by === 'string' ? parsed.by : '', sinceMs });
  } catch {
    return FOREIGN_FENCE;
  }
}

/** A fence whose run is gone: past its last look by FENCE_HOLD_MS. */
export function isStaleFence(fence: EvictFence, wallNowMs: number): boolean {
  return fence !== FOREIGN_FENCE && wallNowMs > fence.recheckAtMs + FENCE_HOLD_MS;
}

/** Whether another run is at this copy now (a live fence that is not `run`'s). */
export function heldByOtherRun(fence: EvictFence | undefined, run: string, wallNowMs: number): boolean {
  return fence !== undefined && fence.run !== run && !isStaleFence(fence, wallNowMs);
}

/**
 * Whether another run's removal of the copy is under way, so that its bytes count as leaving (a budget met with them):
 * a live fence in ferry's format, due within FENCE_HOLD_MS, first written (`since`) no longer than FENCE_COUNTED_MS ago,
 * not in the future, and before its last look. A mark not in ferry's format, due further out, renewed for longer than
 * a run takes, or an older ferry's (no `since`: its age cannot be told) keeps its copy all the same but is not counted:
 * anyone who may write the pool's image-meta could have written it, and counted, it would hold a budget's verdict at
 * `met` (and its alert silent) while nothing leaves. What this cannot tell: a writer who writes a fresh fence, `since`
 * and all, every minute (docs/security.md).
 */
export function removalUnderWay(fence: EvictFence | undefined, run: string, wallNowMs: number): boolean {
  if (fence === undefined || fence === FOREIGN_FENCE || !heldByOtherRun(fence, run, wallNowMs)) return false;
  const since = fence.sinceMs;
  return fence.recheckAtMs <= wallNowMs + FENCE_HOLD_MS && since !== undefined && since <= wallNowMs + FENCE_SKEW_MS
    && since <= fence.recheckAtMs && wallNowMs - since <= FENCE_COUNTED_MS;
}

/**
 * For whoever hands the copy out (the agent): `hand-out` when there is no live fence, or when its last look is far
 * enough ahead that the caller's clone (within `marginMs`) lands before it; `wait` otherwise: the run may remove the
 * copy before a clone could be made, so the caller waits for it to end (the copy gone, or the fence lifted).
 */
export function judgeFencedCopy(fence: EvictFence | undefined, wallNowMs: number, marginMs: number): 'hand-out' | 'wait' {
  if (fence === undefined || isStaleFence(fence, wallNowMs)) return 'hand-out';
  return wallNowMs + marginMs <= fence.recheckAtMs ? 'hand-out' : 'wait';
}
