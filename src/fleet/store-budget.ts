import { FerryError } from '../errors/ferry-error.js';
import { readByteSize } from '../config/byte-size.js';

// A store's budget: how many bytes its pool may hold. Written as bytes (`500G`, `1.5TiB`, `750GB`, `1073741824`, in
// the units of config/byte-size.ts, which --rate-limit reads too: 500G is 500 GiB) or as a share of a capacity (`80%`
// of the pool, or of the cluster). Pure.

export type BudgetBase = 'pool' | 'cluster';

export type Budget =
  | { readonly kind: 'bytes'; readonly bytes: number; readonly text: string }
  | { readonly kind: 'percent'; readonly percent: number; readonly of: BudgetBase; readonly text: string };

/** The capacities a percentage can be taken of, as the store's cluster reports them. */
export interface CapacityFacts {
  /** The pool's quota (`ceph osd pool set-quota POOL max_bytes`), from the OSD map; undefined: none set. */
  readonly quotaBytes: number | undefined;
  /** From `ceph df` (needs a ceph-mgr): what the pool stores plus what it could still take. */
  readonly poolBytes: number | undefined;
  /** From `ceph df`: the cluster's raw capacity divided by the pool's replicas (what the pool could take alone). */
  readonly clusterBytes: number | undefined;
}

/** `--budget` (or a policy's `budget:`) → a Budget; `origin` names where it came from in the message. */
export function parseBudget(text: string, of: BudgetBase = 'pool', origin = '--budget'): Budget {
  const trimmed = text.trim();
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(trimmed);
  if (percent) {
    const value = Number(percent[1]);
    if (value <= 0 || value > 100) throw invalid(text, origin, 'a percentage must be above 0 and at most 100');
    return Object.freeze({ kind: 'percent', percent: value, of, text: trimmed });
  }
  const reading = readByteSize(trimmed, { bits: false });
  if (!reading.ok) throw invalid(text, origin, reading.why);
  if (reading.bytes <= 0) throw invalid(text, origin, 'a budget must be above 0 bytes');
  return Object.freeze({ kind: 'bytes', bytes: reading.bytes, text: trimmed });
}

function invalid(text: string, origin: string, why: string): FerryError {
  return new FerryError('FERRY_INVALID_OPTION', `${origin} must be bytes or a percentage (500G, 1.5TiB, 750GB, 80%), got '${text}': ${why}`,
    `Pass e.g. ${origin} 500G, or ${origin} 80% (of the pool's capacity; of the cluster's with --budget-of cluster).`, { option: origin.replace(/^--/, '') });
}

/**
 * The budget in bytes for one store. A percentage of the pool is taken of its quota when one is set, else of what
 * `ceph df` says the pool could hold; of the cluster, of its raw capacity over the pool's replicas. When the cluster
 * does not report the capacity asked for, FERRY_CAPACITY_UNKNOWN says so and what to give instead.
 */
export function budgetBytes(budget: Budget, capacity: CapacityFacts, store: string): number {
  if (budget.kind === 'bytes') return budget.bytes;
  const base = budget.of === 'pool' ? capacity.quotaBytes ?? capacity.poolBytes : capacity.clusterBytes;
  if (base === undefined || base <= 0) {
    throw new FerryError('FERRY_CAPACITY_UNKNOWN', `the budget of store ${store} is ${budget.text} of the ${budget.of}'s capacity, which its `
      + `cluster does not report (${budget.of === 'pool' ? 'no quota on the pool, and ' : ''}ceph df gives no capacity: it needs a running ceph-mgr)`,
    budget.of === 'pool'
      ? `Give the budget in bytes (e.g. --budget 500G), or set a quota on the pool (ceph osd pool set-quota POOL max_bytes …).`
      : 'Give the budget in bytes (e.g. --budget 500G), or run a ceph-mgr in that cluster.', { store, budget: budget.text, of: budget.of });
  }
  return Math.floor((base * budget.percent) / 100);
}

/** 1.5 GiB, 800 MiB, 12 KiB, 512 B: the renderers' and the messages' byte counts. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value >= 100 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}
