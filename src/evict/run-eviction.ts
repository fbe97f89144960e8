import type { Clock } from '../clock/clock.js';
import type { FerryErrorCode } from '../errors/error-table.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import { hasStore } from '../glance/image.js';
import type { Logger } from '../logging/logger.js';
import { clearCopyMarks, isMarkError, setCopyMarks, type MarkResult } from '../rbd/copy-fence-marks.js';
import type { PoolEntry } from '../rbd/pool-entry.js';
import { checkStoreCopies, type StorePool } from '../rbd/store-copies.js';
import { copyFactsOf, type CopyFacts } from '../fleet/copy-facts.js';
import { decideDeleteAnswer, decideFenced, decideFenceExpired, decideRemoved, type CopyOutcome } from './decide-removal.js';
import { FENCE_HOLD_MS, FENCE_KEY, fenceOf, fenceValue, isStaleFence, removalUnderWay, type EvictFence } from '../fleet/copy-fence.js';
import type { ResolvedEvictOptions } from './evict-options.js';
import type { FenceLeft } from '../fleet/evict-report.js';
import { judgeLastLook } from './judge-last-look.js';
import type { EvictionPlan } from './plan-eviction.js';

// The eviction's I/O: fence, grace, last look, removal through Glance, and a check that the bytes went. The
// decisions are judgeLastLook's, planEviction's and decide-removal's; this file only sequences them (docs/evict.md, "Boot safety").

export interface EvictContext {
  readonly glance: GlanceClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The project of ferry's credential, when known: the remove owners' and pin owners' default (project-owners.ts). */
  readonly projectId?: ((signal?: AbortSignal) => Promise<string | undefined>) | undefined;
}

export interface EvictionRun {
  /** By image id: every copy the run took on. */
  readonly outcomes: ReadonlyMap<string, CopyOutcome>;
  readonly freedBytes: number;
  /** Bytes of copies it chose that someone else took (CopyOutcome.othersBytes). */
  readonly othersBytes: number;
  /** Fences the run could not lift (a read or write error, or no answer): each runs out FENCE_HOLD_MS after its last look. */
  readonly fencesLeft: readonly FenceLeft[];
}

const NEVER = new AbortController().signal;

/**
 * Errors that will not go away by trying the next copy: stop, lift the fences, and say so. A 403 on a copy's DELETE is
 * not one of them (lastLookAndRemove: that copy's `forbidden`): Glance judges each image's owner.
 */
const STOPS_THE_RUN: ReadonlySet<FerryErrorCode> = new Set(['FERRY_FORBIDDEN', 'FERRY_AUTH_FAILED', 'FERRY_STORE_NOT_FOUND',
  'FERRY_ENDPOINT_NOT_FOUND', 'FERRY_ABORTED']);

/**
 * Remove the plan's chosen copies, round by round: each round fences its copies (one image-meta mark each, one
 * process; never over another run's live fence), waits the grace period, looks at them all in the pool again (one
 * process), then takes them one at a time: read again from Glance, judged, removed through Glance before the fence's
 * deadline. A copy kept at the last look (a clone meanwhile, an import, another run) has its fence lifted; when
 * such copies leave the budget unmet, the next round takes the plan's next candidates. Every fence this run wrote and
 * did not see removed with its copy is lifted before it returns or throws.
 */
export async function runEviction(ctx: EvictContext, plan: EvictionPlan, pool: StorePool, options: ResolvedEvictOptions): Promise<EvictionRun> {
  // What this run must free: over the budget, less what other runs were removing when it planned (plan.othersBytes).
  const needBytes = plan.budgetBytes === undefined ? Number.POSITIVE_INFINITY : plan.poolBytes - plan.budgetBytes - plan.othersBytes;
  const reserve = plan.copies.filter((entry) => entry.action === 'keep' && entry.reason === 'under-budget').map((entry) => entry.copy);
  const outcomes = new Map<string, CopyOutcome>();
  const fencesLeft: FenceLeft[] = [];
  let freed = 0;
  // Copies someone else took since the plan (gone, or another run's removal under way).
  let taken = 0;
  let batch = plan.copies.filter((entry) => entry.action === 'evict').map((entry) => entry.copy);
  while (batch.length > 0) {
    const round = await runRound(ctx, batch, pool, options, needBytes - freed - taken, fencesLeft, plan.removeOwners);
    for (const [id, outcome] of round) {
      outcomes.set(id, outcome);
      freed += outcome.freedBytes;
      taken += outcome.othersBytes ?? 0;
    }
    if (freed + taken >= needBytes) break;
    batch = takeCovering(reserve, needBytes - freed - taken);
  }
  return Object.freeze({ outcomes, freedBytes: freed, othersBytes: taken, fencesLeft: Object.freeze(fencesLeft) });
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
  needBytes: number, fencesLeft: FenceLeft[], removeOwners: ReadonlySet<string> | undefined): Promise<Map<string, CopyOutcome>> {
  const outcomes = new Map<string, CopyOutcome>();
  const fencedAtMs = ctx.clock.wallNow();
  const fence: EvictFence = { run: options.run, recheckAtMs: fencedAtMs + options.graceMs, by: options.by, sinceMs: fencedAtMs };
  const value = fenceValue(fence);
  const marks = await fenceCopies(ctx, batch.map((copy) => copy.rbdImage), value, pool, options);
  const fenced = batch.filter((copy) => marks.get(copy.rbdImage) === 'set');
  for (const copy of batch) {
    const outcome = decideFenced(copy, marks.get(copy.rbdImage), options.run, ctx.clock.wallNow());
    if (outcome !== undefined) outcomes.set(copy.imageId, outcome);
  }
  options.onProgress?.({ type: 'fenced', copies: fenced.length, recheckAtMs: fence.recheckAtMs });
  ctx.logger.info({ store: options.store, fenced: fenced.length, graceMs: options.graceMs }, 'eviction: fenced, waiting the grace period');
  const removed: CopyFacts[] = [];
  try {
    await ctx.clock.sleep(options.graceMs, options.signal);
    const looks = await lookAtRound(ctx, fenced, pool, options, outcomes);
    let freedThisRound = 0;
    for (const copy of fenced) {
      if (outcomes.has(copy.imageId)) continue;
      if (freedThisRound >= needBytes) {
        outcomes.set(copy.imageId, { outcome: 'kept', reason: 'under-budget', detail: 'the copies before it brought the store under its budget', freedBytes: 0 });
        continue;
      }
      const outcome = await options.removals.run([copy.imageId], options.signal ?? NEVER,
        () => lastLookAndRemove(ctx, copy, looks.get(copy.rbdImage), fence, options, removeOwners));
      if (outcome === 'removed') {
        removed.push(copy);
        freedThisRound += copy.bytes;
      } else {
        outcomes.set(copy.imageId, outcome);
      }
    }
  } catch (error) {
    await settle(ctx, { fenced, removed, value }, outcomes, pool, options, fencesLeft);
    throw isFerryError(error) || !options.signal?.aborted ? error
      : new FerryError('FERRY_ABORTED', `the eviction of store ${options.store} was interrupted`, 'Every fence it wrote was lifted; run it again.');
  }
  await settle(ctx, { fenced, removed, value }, outcomes, pool, options, fencesLeft);
  for (const copy of batch) {
    const outcome = outcomes.get(copy.imageId);
    if (outcome !== undefined) options.onProgress?.({ type: 'copy-done', imageId: copy.imageId, store: options.store, outcome: outcome.outcome, detail: outcome.detail });
  }
  return outcomes;
}

/**
 * Fence the copies where no one else holds a fence (one process), then take over the fences found stale (their run
 * is gone: past their last look by FENCE_HOLD_MS), each only while it still holds what was read (one process per
 * distinct stale value, normally one run's). Another run's live fence, or a mark written over ours, is left alone.
 */
async function fenceCopies(ctx: EvictContext, names: readonly string[], value: string, pool: StorePool,
  options: ResolvedEvictOptions): Promise<Map<string, MarkResult>> {
  const marks = new Map(await setCopyMarks(pool, FENCE_KEY, value, undefined, names, options.ceph));
  refuseUnwritablePool(marks, pool, options);
  const stale = new Map<string, string[]>();
  for (const [name, mark] of marks) {
    if (typeof mark !== 'object' || isMarkError(mark) || mark.held === null) continue;
    const found = fenceOf({ [FENCE_KEY]: mark.held });
    if (found !== undefined && isStaleFence(found, ctx.clock.wallNow())) stale.set(mark.held, [...stale.get(mark.held) ?? [], name]);
  }
  for (const [held, staleNames] of stale) {
    ctx.logger.info({ store: options.store, copies: staleNames.length, fence: held }, 'eviction: taking over fences whose run is gone');
    for (const [name, mark] of await setCopyMarks(pool, FENCE_KEY, value, held, staleNames, options.ceph)) marks.set(name, mark);
  }
  return marks;
}

/**
 * The last look at the round's copies in the pool: one process for all of them, right after the grace period. A
 * failure that stops the run is thrown; any other leaves the copies failed (their fences are lifted by settle).
 */
async function lookAtRound(ctx: EvictContext, fenced: readonly CopyFacts[], pool: StorePool, options: ResolvedEvictOptions,
  outcomes: Map<string, CopyOutcome>): Promise<ReadonlyMap<string, PoolEntry>> {
  try {
    const entries = await checkStoreCopies(pool, fenced.map((copy) => copy.rbdImage), { ...options.ceph, ...(options.signal ? { signal: options.signal } : {}) });
    return new Map(fenced.map((copy, index) => [copy.rbdImage, entries[index]!]));
  } catch (error) {
    if (!isFerryError(error) || STOPS_THE_RUN.has(error.code)) throw error;
    ctx.logger.warn({ store: options.store, code: error.code }, `eviction: the last look failed: ${error.message}`);
    for (const copy of fenced) outcomes.set(copy.imageId, { outcome: 'failed', detail: `the last look failed: ${error.code}: ${error.message}`, freedBytes: 0 });
    return new Map();
  }
}

/** Fences that could not be written for want of rights on every copy: the run cannot evict at all. */
function refuseUnwritablePool(marks: ReadonlyMap<string, MarkResult>, pool: StorePool, options: ResolvedEvictOptions): void {
  const results = [...marks.values()];
  const refused = results.filter((mark) => isMarkError(mark) && (mark.errno === 1 || mark.errno === 13));
  if (results.length > 0 && refused.length === results.length) {
    throw new FerryError('FERRY_CEPH', `client.${pool.user ?? 'admin'} may not write image-meta in pool ${pool.pool}, so the eviction cannot fence `
      + 'the copies it would remove (nothing was removed)', `Give the evicting user mon 'profile rbd' osd 'profile rbd pool=${pool.pool}' `
      + '(and profile rbd-read-only on the other pools), or run ferry evict with --rbd-user naming such a user.',
    { pool: pool.pool, user: pool.user, store: options.store });
  }
}

/**
 * Judge the copy on Glance's record read again now and the round's look at the pool, and remove it through Glance;
 * 'removed' until the check after. Never after the fence's deadline: checked before the look and right before the
 * DELETE (a round's removals take time, and agents stop waiting for a fence past it).
 */
async function lastLookAndRemove(ctx: EvictContext, copy: CopyFacts, entry: PoolEntry | undefined, fence: EvictFence,
  options: ResolvedEvictOptions, removeOwners: ReadonlySet<string> | undefined): Promise<CopyOutcome | 'removed'> {
  try {
    const expired = decideFenceExpired(fence, ctx.clock.wallNow());
    if (expired !== undefined) return expired;
    const image = await ctx.glance.getImage(copy.imageId, { signal: options.signal }).catch((error: unknown) => {
      if (isFerryError(error, 'FERRY_IMAGE_NOT_FOUND')) return undefined;
      throw error;
    });
    if (image === undefined || !hasStore(image.stores, options.store)) {
      return { outcome: 'gone', detail: image === undefined ? 'Glance no longer has the image' : 'Glance no longer lists it in the store', freedBytes: 0,
        othersBytes: copy.bytes };
    }
    const fresh = copyFactsOf(image, options.store, entry, copy.pin);
    const look = judgeLastLook(fresh, { run: options.run, idleMs: options.idleMs, wallNowMs: ctx.clock.wallNow(), removeOwners });
    if (look.verdict === 'keep') {
      // Another run took it over: it removes it, and its bytes count as leaving.
      const takenOver = look.reason === 'fenced' && removalUnderWay(fresh.fence, options.run, ctx.clock.wallNow());
      return { outcome: 'kept', reason: look.reason, detail: `at the last look: ${look.detail}`, freedBytes: 0, ...(takenOver ? { othersBytes: copy.bytes } : {}) };
    }
    const late = decideFenceExpired(fence, ctx.clock.wallNow());
    if (late !== undefined) return late;
    const answer = await ctx.glance.deleteFromStore(copy.imageId, options.store, { signal: options.signal }).catch((error: unknown) => {
      // One image's refusal (another project's, a policy on one image): this copy's outcome, not the run's end.
      if (isFerryError(error, 'FERRY_FORBIDDEN')) return { kind: 'forbidden' as const, message: error.message };
      throw error;
    });
    if (answer.kind === 'forbidden') ctx.logger.warn({ imageId: copy.imageId, store: options.store, owner: copy.owner }, `eviction: ${answer.message}`);
    return decideDeleteAnswer(copy, answer);
  } catch (error) {
    if (!isFerryError(error) || STOPS_THE_RUN.has(error.code)) throw error;
    ctx.logger.warn({ imageId: copy.imageId, store: options.store, code: error.code }, `eviction: ${error.message}`);
    return { outcome: 'failed', detail: `${error.code}: ${error.message}`, freedBytes: 0 };
  }
}

/**
 * After a round: the removed copies are checked in the pool (gone: evicted; in its trash: a newer Glance moved it
 * there because a clone appeared, no byte freed), and every other fence of the round is lifted (only where it is
 * still this run's), a removed copy's still in the pool included. Never throws: a fence it could not lift is added to
 * `fencesLeft` (the report says so) and runs out on its own (FENCE_HOLD_MS).
 */
async function settle(ctx: EvictContext, round: { readonly fenced: readonly CopyFacts[]; readonly removed: readonly CopyFacts[]; readonly value: string },
  outcomes: Map<string, CopyOutcome>, pool: StorePool, options: ResolvedEvictOptions, fencesLeft: FenceLeft[]): Promise<void> {
  const { fenced, removed } = round;
  const quiet = { ...options.ceph, signal: undefined };
  const stillInPool = new Set<CopyFacts>();
  if (removed.length > 0) {
    const entries = await checkStoreCopies(pool, removed.map((copy) => copy.rbdImage), quiet).catch((error: unknown) => {
      ctx.logger.warn({ store: options.store, error: String(error) }, 'eviction: the removed copies could not be checked in the pool');
      return undefined;
    });
    removed.forEach((copy, index) => {
      const entry = entries?.[index];
      if (entry !== undefined && entry.kind !== 'absent') stillInPool.add(copy);
      outcomes.set(copy.imageId, decideRemoved(copy, entry));
    });
  }
  const lift = fenced.filter((copy) => !removed.includes(copy) || stillInPool.has(copy));
  const lifted = await clearCopyMarks(pool, FENCE_KEY, round.value, lift.map((copy) => copy.rbdImage), quiet).catch((error: unknown) => String(error));
  for (const copy of lift) {
    const result = typeof lifted === 'string' ? { error: lifted, errno: 0 } : lifted.get(copy.rbdImage);
    if (result !== undefined && !isMarkError(result)) continue;
    const detail = `its fence could not be lifted (${result?.error ?? 'no answer for it'}): it runs out on its own ${Math.round(FENCE_HOLD_MS / 1000)} s after its last look`;
    fencesLeft.push(Object.freeze({ imageId: copy.imageId, rbdImage: copy.rbdImage, detail }));
    ctx.logger.warn({ store: options.store, imageId: copy.imageId, rbdImage: copy.rbdImage }, `eviction: ${detail}`);
  }
}
