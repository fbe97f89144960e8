import type { CopyFacts } from './copy-facts.js';
import { formatBytes } from './evict-budget.js';
import { heldByOtherRun } from './evict-fence.js';

// The eviction's decisions, as pure functions of the facts (copy-facts.ts): which copies of a store may go, in which
// order, and how many of them the budget needs. run-eviction.ts does the I/O and looks again before each removal; the
// tables in test/unit/evict/plan-eviction.test.ts pin these down.

/** Why a copy stays, in the order they are judged: the first that applies is the one reported. */
export const KEEP_REASONS = ['not-active', 'importing', 'in-use', 'clones-unknown', 'not-in-pool', 'last-copy', 'pinned', 'fenced',
  'not-idle', 'under-budget'] as const;
export type KeepReason = (typeof KEEP_REASONS)[number];

export interface PlannedCopy {
  readonly copy: CopyFacts;
  readonly action: 'evict' | 'keep';
  /** `idle` for a copy chosen; else why it stays. */
  readonly reason: 'idle' | KeepReason;
  readonly detail: string;
}

export interface EvictionInput {
  readonly store: string;
  /** Every copy Glance lists in the store. */
  readonly copies: readonly CopyFacts[];
  /** Every byte the pool holds: the copies, and images that are none (leftovers, other tools' images, the trash). */
  readonly poolBytes: number;
  /** The store's budget in bytes; undefined: every idle candidate goes. */
  readonly budgetBytes: number | undefined;
  readonly idleMs: number;
  readonly wallNowMs: number;
  /** This run's id: its own fences do not keep a copy. */
  readonly run: string;
  /** Copies of an image removed (or planned to be) in other stores: counted off its locations, so one always stays. */
  readonly removedElsewhere?: ReadonlyMap<string, number>;
}

export type BudgetVerdict =
  /** No budget: every idle candidate goes. */
  | 'none'
  /** The pool is under its budget as it is: nothing goes. */
  | 'under'
  /** The planned removals bring it under. */
  | 'met'
  /** Even with every candidate gone it stays over. */
  | 'unmet';

export interface KeptTally {
  readonly copies: number;
  readonly bytes: number;
}

export interface EvictionPlan {
  readonly store: string;
  readonly idleMs: number;
  readonly wallNowMs: number;
  /** The copies to remove, least recently used first, then the ones kept (grouped by reason, least recently used first). */
  readonly copies: readonly PlannedCopy[];
  readonly poolBytes: number;
  readonly budgetBytes: number | undefined;
  /** Bytes the planned removals free. */
  readonly evictBytes: number;
  readonly afterBytes: number;
  readonly budget: BudgetVerdict;
  /** What stays, by reason: why a budget cannot be met. */
  readonly kept: Readonly<Record<KeepReason, KeptTally>>;
}

/** Pure: the plan for one store. */
export function planEviction(input: EvictionInput): EvictionPlan {
  // Each copy's reason in an array beside the copies (no object per copy): a fleet's plan judges 100 000 of them.
  const keeps = input.copies.map((copy) => keepReason(copy, input));
  // One string per distinct detail: a store's copies repeat a few dozen ("1 clone: …", "last used 12 d ago …"), and a
  // fleet's plan keeps them all.
  const details = new Map<string, string>();
  const shared = (detail: string): string => {
    const known = details.get(detail);
    if (known !== undefined) return known;
    details.set(detail, detail);
    return detail;
  };
  const candidates: CopyFacts[] = [];
  input.copies.forEach((copy, i) => {
    if (keeps[i] === undefined) candidates.push(copy);
  });
  candidates.sort(leastRecentlyUsedFirst);
  const overBy = input.budgetBytes === undefined ? Number.POSITIVE_INFINITY : input.poolBytes - input.budgetBytes;
  const chosen: CopyFacts[] = [];
  let freed = 0;
  for (const copy of candidates) {
    if (freed >= overBy) break;
    chosen.push(copy);
    freed += copy.bytes;
  }
  const chosenIds = new Set(chosen);
  const planned: PlannedCopy[] = chosen.map((copy) => Object.freeze({ copy, action: 'evict' as const, reason: 'idle' as const,
    detail: shared(idleDetail(copy, input)) }));
  const kept: PlannedCopy[] = [];
  const underBudget = `the store is under its budget (${formatBytes(input.budgetBytes ?? 0)}) without removing it`;
  input.copies.forEach((copy, i) => {
    if (chosenIds.has(copy)) return;
    const keep = keeps[i];
    kept.push(Object.freeze({ copy, action: 'keep' as const, reason: keep?.reason ?? 'under-budget', detail: keep === undefined ? underBudget : shared(keep.detail) }));
  });
  kept.sort((a, b) => (KEEP_RANK.get(a.reason) ?? 0) - (KEEP_RANK.get(b.reason) ?? 0) || leastRecentlyUsedFirst(a.copy, b.copy));
  const tally = Object.fromEntries(KEEP_REASONS.map((reason) => [reason, { copies: 0, bytes: 0 }])) as Record<KeepReason, { copies: number; bytes: number }>;
  for (const entry of kept) {
    const slot = tally[entry.reason as KeepReason];
    slot.copies += 1;
    slot.bytes += entry.copy.bytes;
  }
  const afterBytes = input.poolBytes - freed;
  const budget: BudgetVerdict = input.budgetBytes === undefined ? 'none' : input.poolBytes <= input.budgetBytes ? 'under'
    : afterBytes <= input.budgetBytes ? 'met' : 'unmet';
  return Object.freeze({
    store: input.store, idleMs: input.idleMs, wallNowMs: input.wallNowMs, copies: Object.freeze([...planned, ...kept]),
    poolBytes: input.poolBytes, budgetBytes: input.budgetBytes, evictBytes: freed, afterBytes, budget,
    kept: Object.freeze(Object.fromEntries(KEEP_REASONS.map((reason) => [reason, Object.freeze(tally[reason])])) as Record<KeepReason, KeptTally>),
  });
}

/** Least recently used first (never seen used: first of all), then the larger (frees more), then by id. */
export function leastRecentlyUsedFirst(a: CopyFacts, b: CopyFacts): number {
  const used = (a.lastUsedMs ?? Number.NEGATIVE_INFINITY) - (b.lastUsedMs ?? Number.NEGATIVE_INFINITY);
  if (used !== 0 && !Number.isNaN(used)) return used;
  return b.bytes - a.bytes || compareIds(a.imageId, b.imageId);
}

/** String.prototype.localeCompare's order (the default locale's collator), made once: sorting a store's copies calls it often. */
const compareIds = new Intl.Collator().compare;
const KEEP_RANK: ReadonlyMap<string, number> = new Map(KEEP_REASONS.map((reason, rank) => [reason, rank]));

/** Why a copy cannot go (the first rule that applies), or undefined for a candidate. Pure. */
export function keepReason(copy: CopyFacts, input: Pick<EvictionInput, 'idleMs' | 'wallNowMs' | 'run' | 'removedElsewhere'>):
  { readonly reason: Exclude<KeepReason, 'under-budget'>; readonly detail: string } | undefined {
  if (copy.status !== 'active') return { reason: 'not-active', detail: `Glance status ${copy.status}: only an active image's copy can be removed` };
  if (copy.importing) return { reason: 'importing', detail: 'an import holds the image: removing a location now could break it or leave a phantom' };
  if (copy.clones > 0) {
    const trash = copy.trashedClones > 0 ? `, ${copy.trashedClones} of them in the trash` : '';
    return { reason: 'in-use', detail: `${copy.clones} clone${copy.clones === 1 ? '' : 's'}${trash}: instances booted from it` };
  }
  if (typeof copy.inPool === 'object') return { reason: 'clones-unknown', detail: `its clones cannot be listed: ${copy.inPool.unreadable}` };
  if (copy.inPool === 'absent') return { reason: 'not-in-pool', detail: `Glance lists it, but the pool has no image ${copy.rbdImage}` };
  const left = copy.locations - (input.removedElsewhere?.get(copy.imageId) ?? 0);
  if (left <= 1) {
    return { reason: 'last-copy', detail: copy.locations <= 1 ? 'the image\'s only location' : 'its other copies are being removed: the last one stays' };
  }
  if (copy.pin !== undefined) return { reason: 'pinned', detail: copy.pin };
  if (heldByOtherRun(copy.fence, input.run, input.wallNowMs)) {
    return { reason: 'fenced', detail: `another eviction is at it (${copy.fence?.by ?? '?'})` };
  }
  const idleFor = copy.lastUsedMs === undefined ? Number.POSITIVE_INFINITY : input.wallNowMs - copy.lastUsedMs;
  if (idleFor < input.idleMs) {
    return { reason: 'not-idle', detail: `last used ${formatAge(idleFor)} ago (${lastUseWhat(copy)}); idle means ${formatAge(input.idleMs)}` };
  }
  return undefined;
}

function idleDetail(copy: CopyFacts, input: EvictionInput): string {
  if (copy.lastUsedMs === undefined) return 'no use seen (no clone, no timestamp)';
  return `last used ${formatAge(input.wallNowMs - copy.lastUsedMs)} ago (${lastUseWhat(copy)})`;
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
