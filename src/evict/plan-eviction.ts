import type { CopyFacts } from '../fleet/copy-facts.js';
import { KEEP_REASONS, type BudgetVerdict, type EvictionInput, type EvictionPlan, type KeepReason, type KeptTally, type PlannedCopy } from '../fleet/eviction-plan.js';
import { formatBytes } from '../fleet/store-budget.js';
import { heldByOtherRun, removalUnderWay } from '../fleet/copy-fence.js';
import { ownedBy, ownersText } from '../fleet/project-owners.js';

export { KEEP_REASONS, type BudgetVerdict, type EvictionInput, type EvictionPlan, type KeepReason, type KeptTally, type PlannedCopy } from '../fleet/eviction-plan.js';

// The eviction's decisions, as pure functions of the facts (copy-facts.ts): which copies of a store may go, in which
// order, and how many of them the budget needs. run-eviction.ts does the I/O and looks again before each removal; the
// tables in test/unit/evict/plan-eviction.test.ts pin these down.

/** Pure: the plan for one store. */
export function planEviction(input: EvictionInput): EvictionPlan {
  // Each copy goes into its group as it is judged: the candidates, or the bucket of the reason it stays for (no object
  // per copy): a fleet's plan judges 100 000 of them. The detail texts are written when a report reads them
  // (PlannedEntry), not for every copy planned.
  const unsorted: CopyFacts[] = [];
  const buckets: CopyFacts[][] = KEEP_REASONS.map(() => []);
  for (let i = 0; i < input.copies.length; i++) {
    const copy = input.copies[i] as CopyFacts;
    const keep = keepCode(copy, input);
    if (keep === undefined) unsorted.push(copy);
    else buckets[KEEP_RANK[keep]]?.push(copy);
  }
  const candidates = inLeastRecentlyUsedOrder(unsorted);
  let othersBytes = 0;
  for (const copy of buckets[KEEP_RANK.fenced] ?? []) if (removalUnderWay(copy.fence, input.run, input.wallNowMs)) othersBytes += copy.bytes;
  const overBy = input.budgetBytes === undefined ? Number.POSITIVE_INFINITY : input.poolBytes - input.budgetBytes - othersBytes;
  let chosen = 0;
  let freed = 0;
  while (chosen < candidates.length && freed < overBy) {
    freed += candidates[chosen]?.bytes ?? 0;
    chosen += 1;
  }
  const context: DetailContext = Object.freeze({ idleMs: input.idleMs, wallNowMs: input.wallNowMs, budgetBytes: input.budgetBytes,
    removeOwners: input.removeOwners });
  const entries: PlannedCopy[] = [];
  for (let i = 0; i < chosen; i++) entries.push(new PlannedEntry(candidates[i] as CopyFacts, 'idle', context));
  // What stays, grouped by reason in KEEP_REASONS' order, each group least recently used first (a candidate the budget
  // did not need is `under-budget`, in the candidates' order already): the sort compares within a group only.
  const tally = {} as Record<KeepReason, KeptTally>;
  KEEP_REASONS.forEach((reason, rank) => {
    const bucket = reason === 'under-budget' ? candidates.slice(chosen) : inLeastRecentlyUsedOrder(buckets[rank] ?? []);
    let bytes = 0;
    for (const copy of bucket) {
      entries.push(new PlannedEntry(copy, reason, context));
      bytes += copy.bytes;
    }
    tally[reason] = Object.freeze({ copies: bucket.length, bytes });
  });
  const afterBytes = input.poolBytes - freed;
  const budget = budgetVerdict(input.poolBytes, afterBytes, othersBytes, input.budgetBytes);
  return Object.freeze({
    store: input.store, idleMs: input.idleMs, wallNowMs: input.wallNowMs, copies: Object.freeze(entries),
    poolBytes: input.poolBytes, budgetBytes: input.budgetBytes, evictBytes: freed, afterBytes, othersBytes, budget, removeOwners: input.removeOwners,
    kept: Object.freeze(tally),
  });
}

/**
 * Pure: where the budget stands: the pool as it is, after this run's removals (`afterBytes`), and with the copies
 * another run is removing gone too (`othersBytes`: met with them, the other run's report says whether it did).
 */
export function budgetVerdict(poolBytes: number, afterBytes: number, othersBytes: number, budgetBytes: number | undefined): BudgetVerdict {
  if (budgetBytes === undefined) return 'none';
  if (poolBytes <= budgetBytes) return 'under';
  return afterBytes - othersBytes <= budgetBytes ? 'met' : 'unmet';
}

/** What a planned copy's detail text is written from: the plan's own settings, fixed once it is made. */
interface DetailContext {
  readonly idleMs: number;
  readonly wallNowMs: number;
  readonly budgetBytes: number | undefined;
  readonly removeOwners?: ReadonlySet<string> | undefined;
}

/**
 * A planned copy whose detail is written when read (a report reads each once; a fleet's plan holds 100 000), and
 * whose action follows from its reason (only `idle` goes).
 */
class PlannedEntry implements PlannedCopy {
  readonly #context: DetailContext;

  constructor(readonly copy: CopyFacts, readonly reason: 'idle' | KeepReason, context: DetailContext) {
    this.#context = context;
  }

  get action(): 'evict' | 'keep' {
    return this.reason === 'idle' ? 'evict' : 'keep';
  }

  get detail(): string {
    return detailOf(this.copy, this.reason, this.#context);
  }

  toJSON(): PlannedCopy {
    return { copy: this.copy, action: this.action, reason: this.reason, detail: this.detail };
  }
}

/**
 * `copies` least recently used first (never seen used: first of all), then the larger (frees more), then by id in
 * code-unit order: the same plan on every host whatever its locale (for Glance's ids, lowercase UUIDs, the same order
 * as localeCompare's, which this was; the collator's call was most of the sort's time when many copies share a last
 * use and a size). Each copy's sort keys are read once, not twice per comparison: a fleet's plan sorts 100 000 copies,
 * and the last use is worked out from the pool's entry each time it is read.
 */
function inLeastRecentlyUsedOrder(copies: readonly CopyFacts[]): CopyFacts[] {
  if (copies.length < 2) return [...copies];
  const used = copies.map((copy) => copy.lastUsedMs ?? Number.NEGATIVE_INFINITY);
  const bytes = copies.map((copy) => copy.bytes);
  const ids = copies.map((copy) => copy.imageId);
  // The comparator answers -1 or 1, never a difference: a difference of two timestamps is a new heap number for each of
  // the ~900 000 comparisons of a fleet's plan (the sort's largest allocation, measured).
  const order = copies.map((_copy, i) => i).sort((a, b) => {
    const useA = used[a] ?? 0;
    const useB = used[b] ?? 0;
    if (useA !== useB && !Number.isNaN(useA - useB)) return useA < useB ? -1 : 1;
    const bytesA = bytes[a] ?? 0;
    const bytesB = bytes[b] ?? 0;
    if (bytesA !== bytesB) return bytesA > bytesB ? -1 : 1;
    const idA = ids[a] ?? '';
    const idB = ids[b] ?? '';
    return idA < idB ? -1 : idA > idB ? 1 : 0;
  });
  return order.map((i) => copies[i] as CopyFacts);
}

const KEEP_RANK = Object.freeze(Object.fromEntries(KEEP_REASONS.map((reason, rank) => [reason, rank]))) as Readonly<Record<KeepReason, number>>;

/** Why a copy cannot go (the first rule that applies) with its detail, or undefined for a candidate. Pure. */
export function keepReason(copy: CopyFacts, input: Pick<EvictionInput, 'idleMs' | 'wallNowMs' | 'run' | 'removedElsewhere' | 'removeOwners'>):
  { readonly reason: Exclude<KeepReason, 'under-budget'>; readonly detail: string } | undefined {
  const reason = keepCode(copy, input);
  return reason === undefined ? undefined
    : { reason, detail: detailOf(copy, reason, { idleMs: input.idleMs, wallNowMs: input.wallNowMs, budgetBytes: undefined, removeOwners: input.removeOwners }) };
}

/**
 * keepReason's reason alone: what a plan decides on, with no text written. Ownership is judged last: `not-owned` is an
 * idle copy only the owner keeps (what another account could free), never one that would stay anyway.
 */
function keepCode(copy: CopyFacts, input: Pick<EvictionInput, 'idleMs' | 'wallNowMs' | 'run' | 'removedElsewhere' | 'removeOwners'>):
  Exclude<KeepReason, 'under-budget'> | undefined {
  if (copy.status !== 'active') return 'not-active';
  if (copy.importing) return 'importing';
  if (copy.clones > 0) return 'in-use';
  const inPool = copy.inPool;
  if (typeof inPool === 'object') return 'clones-unknown';
  if (inPool === 'absent') return 'not-in-pool';
  if (copy.locations - (input.removedElsewhere?.get(copy.imageId) ?? 0) <= 1) return 'last-copy';
  if (copy.pin !== undefined) return 'pinned';
  if (heldByOtherRun(copy.fence, input.run, input.wallNowMs)) return 'fenced';
  const idleFor = copy.lastUsedMs === undefined ? Number.POSITIVE_INFINITY : input.wallNowMs - copy.lastUsedMs;
  if (idleFor < input.idleMs) return 'not-idle';
  return input.removeOwners === undefined || ownedBy(copy.owner, input.removeOwners) ? undefined : 'not-owned';
}

/** The text that says why a copy goes (`idle`) or stays, from its facts and the plan's settings. Pure. */
function detailOf(copy: CopyFacts, reason: 'idle' | KeepReason, context: DetailContext): string {
  switch (reason) {
    case 'idle':
      return copy.lastUsedMs === undefined ? 'no use seen (no clone, no timestamp)'
        : `last used ${formatAge(context.wallNowMs - copy.lastUsedMs)} ago (${lastUseWhat(copy)})`;
    case 'not-active': return `Glance status ${copy.status}: only an active image's copy can be removed`;
    case 'importing': return 'an import holds the image: removing a location now could break it or leave a phantom';
    case 'in-use': {
      const trash = copy.trashedClones > 0 ? `, ${copy.trashedClones} of them in the trash` : '';
      return `${copy.clones} clone${copy.clones === 1 ? '' : 's'}${trash}: instances booted from it`;
    }
    case 'clones-unknown': return `its clones cannot be listed: ${typeof copy.inPool === 'object' ? copy.inPool.unreadable : ''}`;
    case 'not-in-pool': return `Glance lists it, but the pool has no image ${copy.rbdImage}`;
    case 'last-copy': return copy.locations <= 1 ? 'the image\'s only location' : 'its other copies are being removed: the last one stays';
    case 'pinned': return copy.pin ?? '';
    case 'fenced': return `another eviction is at it (${copy.fence?.by ?? '?'})`;
    case 'not-idle': {
      const idleFor = copy.lastUsedMs === undefined ? Number.POSITIVE_INFINITY : context.wallNowMs - copy.lastUsedMs;
      return `last used ${formatAge(idleFor)} ago (${lastUseWhat(copy)}); idle means ${formatAge(context.idleMs)}`;
    }
    case 'not-owned': return `owner ${copy.owner ?? '(none)'} is not a remove owner (${ownersText(context.removeOwners ?? new Set())}): `
      + 'ferry\'s account may not remove its copies';
    case 'under-budget': return `the store is under its budget (${formatBytes(context.budgetBytes ?? 0)}) without removing it`;
  }
}

/** Which signal gave the last use: the newest clone, a read, or the copy itself. */
export function lastUseWhat(copy: Pick<CopyFacts, 'lastUsedMs' | 'newestCloneMs' | 'accessedMs' | 'copiedMs'>): string {
  if (copy.lastUsedMs === undefined) return 'never';
  if (copy.lastUsedMs === copy.newestCloneMs) return 'its newest clone';
  if (copy.lastUsedMs === copy.copiedMs) return 'copied then';
  return 'read then';
}

/** 45 s, 12 min, 5.5 h, 3 d: ages in plans and messages. */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms)) return 'ever';
  const s = Math.max(0, ms) / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round((s / 3600) * 10) / 10} h`;
  return `${Math.round((s / 86_400) * 10) / 10} d`;
}
