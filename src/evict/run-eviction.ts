import type { Clock } from '../clock/clock.js';
import type { FerryErrorCode } from '../errors/error-table.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import { hasStore } from '../glance/image.js';
import type { Logger } from '../logging/logger.js';
import { clearCopyMarks, setCopyMarks, type MarkResult } from '../rbd/copy-fence-marks.js';
import { checkStoreCopies, type StorePool } from '../rbd/store-copies.js';
import { copyFactsOf, type CopyFacts } from './copy-facts.js';
import { FENCE_KEY, fenceValue, type EvictFence } from './evict-fence.js';
import type { ResolvedEvictOptions } from './evict-options.js';
import type { EvictOutcome } from './evict-report.js';
import { judgeLastLook } from './judge-last-look.js';
import type { EvictionPlan, KeepReason } from './plan-eviction.js';

// The eviction's I/O: fence, grace, last look, removal through Glance, and a check that the bytes went. The
// decisions are judgeLastLook's and planEviction's; this file only sequences them (docs/evict.md, "Boot safety").

export interface EvictContext {
  readonly glance: GlanceClient;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface CopyOutcome {
  readonly outcome: EvictOutcome;
  readonly reason?: KeepReason | undefined;
  readonly detail: string;
  /** Bytes the pool no longer holds because of it (an evicted copy's). */
  readonly freedBytes: number;
}

export interface EvictionRun {
  /** By image id: every copy the run took on. */
  readonly outcomes: ReadonlyMap<string, CopyOutcome>;
  readonly freedBytes: number;
}

const NEVER = new AbortController().signal;

/** Errors that will not go away by trying the next copy: stop, lift the fences, and say so. */
const STOPS_THE_RUN: ReadonlySet<FerryErrorCode> = new Set(['FERRY_FORBIDDEN', 'FERRY_AUTH_FAILED', 'FERRY_STORE_NOT_FOUND',
  'FERRY_ENDPOINT_NOT_FOUND', 'FERRY_ABORTED']);

/**
 * Remove the plan's chosen copies, round by round: each round fences its copies (one image-meta mark each, one
 * process), waits the grace period, then takes them one at a time: read again from Glance and Ceph, judged, removed
 * through Glance. A copy kept at the last look (a clone meanwhile, an import, another run) has its fence lifted; when
 * such copies leave the budget unmet, the next round takes the plan's next candidates. Every fence this run wrote and
 * did not see removed with its copy is lifted before it returns or throws.
 */
export async function runEviction(ctx: EvictContext, plan: EvictionPlan, pool: StorePool, options: ResolvedEvictOptions): Promise<EvictionRun> {
  const overBy = plan.budgetBytes === undefined ? Number.POSITIVE_INFINITY : plan.poolBytes - plan.budgetBytes;
  const reserve = plan.copies.filter((entry) => entry.action === 'keep' && entry.reason === 'under-budget').map((entry) => entry.copy);
  const outcomes = new Map<string, CopyOutcome>();
  let freed = 0;
  let batch = plan.copies.filter((entry) => entry.action === 'evict').map((entry) => entry.copy);
  while (batch.length > 0) {
    const round = await runRound(ctx, batch, pool, options, overBy - freed);
    for (const [id, outcome] of round) {
      outcomes.set(id, outcome);
      freed += outcome.freedBytes;
    }
    if (freed >= overBy) break;
    batch = takeCovering(reserve, overBy - freed);
  }
  return Object.freeze({ outcomes, freedBytes: freed });
}

/** The next candidates, least recently used first, until their bytes cover `needBytes` (taken out of `reserve`). */
function takeCovering(reserve: CopyFacts[], needBytes: number): CopyFacts[] {
  const taken: CopyFacts[] = [];
  let bytes = 0;
  while (reserve.length > 0 && bytes < needBytes) {
    const copy = reserve.shift()!;
    taken.push(copy);
    bytes += copy.bytes;
  }
  return taken;
}

async function runRound(ctx: EvictContext, batch: readonly CopyFacts[], pool: StorePool, options: ResolvedEvictOptions,
  needBytes: number): Promise<Map<string, CopyOutcome>> {
  const outcomes = new Map<string, CopyOutcome>();
  const fence: EvictFence = { run: options.run, recheckAtMs: ctx.clock.wallNow() + options.graceMs, by: options.by };
  const value = fenceValue(fence);
  const marks = await setCopyMarks(pool, FENCE_KEY, value, batch.map((copy) => copy.rbdImage), options.ceph);
  refuseUnwritablePool(marks, pool, options);
  const fenced = batch.filter((copy) => marks.get(copy.rbdImage) === 'set');
  for (const copy of batch) {
    const mark = marks.get(copy.rbdImage);
    if (mark === 'absent') outcomes.set(copy.imageId, { outcome: 'gone', detail: 'the pool no longer had it when it was fenced', freedBytes: 0 });
    else if (typeof mark === 'object') outcomes.set(copy.imageId, { outcome: 'failed', detail: `its fence could not be written: ${mark.error}`, freedBytes: 0 });
  }
  options.onProgress?.({ type: 'fenced', copies: fenced.length, recheckAtMs: fence.recheckAtMs });
  ctx.logger.info({ store: options.store, fenced: fenced.length, graceMs: options.graceMs }, 'eviction: fenced, waiting the grace period');
  const removed: CopyFacts[] = [];
  try {
    await ctx.clock.sleep(options.graceMs, options.signal);
    let freedThisRound = 0;
    for (const copy of fenced) {
      if (freedThisRound >= needBytes) {
        outcomes.set(copy.imageId, { outcome: 'kept', reason: 'under-budget', detail: 'the copies before it brought the store under its budget', freedBytes: 0 });
        continue;
      }
      const outcome = await options.removals.run([copy.imageId], options.signal ?? NEVER, () => lastLookAndRemove(ctx, copy, pool, options));
      if (outcome === 'removed') {
        removed.push(copy);
        freedThisRound += copy.bytes;
      } else {
        outcomes.set(copy.imageId, outcome);
      }
    }
  } catch (error) {
    await settle(ctx, { fenced, removed, value }, outcomes, pool, options);
    throw isFerryError(error) || !options.signal?.aborted ? error
      : new FerryError('FERRY_ABORTED', `the eviction of store ${options.store} was interrupted`, 'Every fence it wrote was lifted; run it again.');
  }
  await settle(ctx, { fenced, removed, value }, outcomes, pool, options);
  for (const copy of batch) {
    const outcome = outcomes.get(copy.imageId);
    if (outcome !== undefined) options.onProgress?.({ type: 'copy-done', imageId: copy.imageId, store: options.store, outcome: outcome.outcome, detail: outcome.detail });
  }
  return outcomes;
}

/** Fences that could not be written for want of rights on every copy: the run cannot evict at all. */
function refuseUnwritablePool(marks: ReadonlyMap<string, MarkResult>, pool: StorePool, options: ResolvedEvictOptions): void {
  const results = [...marks.values()];
  const refused = results.filter((mark) => typeof mark === 'object' && (mark.errno === 1 || mark.errno === 13));
  if (results.length > 0 && refused.length === results.length) {
    throw new FerryError('FERRY_CEPH', `client.${pool.user ?? 'admin'} may not write image-meta in pool ${pool.pool}, so the eviction cannot fence `
      + 'the copies it would remove (nothing was removed)', `Give the evicting user mon 'profile rbd' osd 'profile rbd pool=${pool.pool}' `
      + '(and profile rbd-read-only on the other pools), or run ferry evict with --rbd-user naming such a user.',
    { pool: pool.pool, user: pool.user, store: options.store });
  }
}

/** Read the copy again from Glance and Ceph, judge it, and remove it through Glance; 'removed' until the check after. */
async function lastLookAndRemove(ctx: EvictContext, copy: CopyFacts, pool: StorePool, options: ResolvedEvictOptions): Promise<CopyOutcome | 'removed'> {
  try {
    const image = await ctx.glance.getImage(copy.imageId, { signal: options.signal }).catch((error: unknown) => {
      if (isFerryError(error, 'FERRY_IMAGE_NOT_FOUND')) return undefined;
      throw error;
    });
    if (image === undefined || !hasStore(image.stores, options.store)) {
      return { outcome: 'gone', detail: image === undefined ? 'Glance no longer has the image' : 'Glance no longer lists it in the store', freedBytes: 0 };
    }
    const [entry] = await checkStoreCopies(pool, [copy.rbdImage], { ...options.ceph, ...(options.signal ? { signal: options.signal } : {}) });
    const look = judgeLastLook(copyFactsOf(image, options.store, entry, copy.pin),
      { run: options.run, idleMs: options.idleMs, wallNowMs: ctx.clock.wallNow() });
    if (look.verdict === 'keep') return { outcome: 'kept', reason: look.reason, detail: `at the last look: ${look.detail}`, freedBytes: 0 };
    const answer = await ctx.glance.deleteFromStore(copy.imageId, options.store, { signal: options.signal });
    switch (answer.kind) {
      case 'removed':
        return 'removed';
      case 'not-in-store':
        return { outcome: 'gone', detail: `Glance: ${answer.message}`, freedBytes: 0 };
      case 'last-location':
        return { outcome: 'kept', reason: 'last-copy', detail: `Glance refused: ${answer.message}`, freedBytes: 0 };
      case 'in-use':
        return { outcome: 'kept', reason: 'in-use', detail: `Glance refused: ${answer.message}`, freedBytes: 0 };
      case 'not-active':
        return { outcome: 'kept', reason: 'not-active', detail: `Glance refused: ${answer.message}`, freedBytes: 0 };
    }
  } catch (error) {
    if (!isFerryError(error) || STOPS_THE_RUN.has(error.code)) throw error;
    ctx.logger.warn({ imageId: copy.imageId, store: options.store, code: error.code }, `eviction: ${error.message}`);
    return { outcome: 'failed', detail: `${error.code}: ${error.message}`, freedBytes: 0 };
  }
}

/**
 * After a round: the removed copies are checked in the pool (gone: evicted; in its trash: a newer Glance moved it
 * there because a clone appeared, no byte freed), and every other fence of the round is lifted (only where it is
 * still this run's). Never throws: a fence it could not lift runs out on its own (FENCE_HOLD_MS).
 */
async function settle(ctx: EvictContext, round: { readonly fenced: readonly CopyFacts[]; readonly removed: readonly CopyFacts[]; readonly value: string },
  outcomes: Map<string, CopyOutcome>, pool: StorePool, options: ResolvedEvictOptions): Promise<void> {
  const { fenced, removed } = round;
  const quiet = { ...options.ceph, signal: undefined };
  if (removed.length > 0) {
    const entries = await checkStoreCopies(pool, removed.map((copy) => copy.rbdImage), quiet).catch((error: unknown) => {
      ctx.logger.warn({ store: options.store, error: String(error) }, 'eviction: the removed copies could not be checked in the pool');
      return undefined;
    });
    removed.forEach((copy, index) => {
      const entry = entries?.[index];
      outcomes.set(copy.imageId, entry === undefined ? { outcome: 'evicted', detail: 'removed through Glance (not checked in the pool)', freedBytes: copy.bytes }
        : entry.kind === 'absent' && entry.trashedMs !== undefined
          ? { outcome: 'trashed', detail: 'Glance moved it to the pool\'s RBD trash (a clone appeared at the last moment): its clones keep working, no byte was freed', freedBytes: 0 }
          : entry.kind === 'absent' ? { outcome: 'evicted', detail: 'removed through Glance; gone from the pool', freedBytes: copy.bytes }
            : { outcome: 'failed', detail: 'Glance answered that it removed it, but the pool still holds it', freedBytes: 0 });
    });
  }
  const lift = fenced.filter((copy) => !removed.includes(copy)).map((copy) => copy.rbdImage);
  await clearCopyMarks(pool, FENCE_KEY, round.value, lift, quiet).catch((error: unknown) => {
    ctx.logger.warn({ store: options.store, copies: lift.length, error: String(error) }, 'eviction: fences could not be lifted; they run out on their own');
  });
}
