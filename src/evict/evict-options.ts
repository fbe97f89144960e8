import { z } from 'zod';
import { storeNameSchema } from '../config/store-name.js';
import { FerryError } from '../errors/ferry-error.js';
import { createKeyedLimiter, type KeyedLimiter } from '../concurrency/keyed-limiter.js';
import type { GlanceImage } from '../glance/image.js';
import type { StoreCopiesOptions } from '../rbd/store-copies.js';
import { parseBudget, type Budget, type BudgetBase } from '../fleet/store-budget.js';
import { EVICT_DEFAULTS } from '../fleet/evict-defaults.js';
import type { PinSet } from '../fleet/copy-pins.js';
import type { PinInputs } from '../fleet/resolve-pins.js';
import type { StoreCluster } from '../fleet/store-cluster.js';
import type { EvictEvent } from '../fleet/evict-report.js';

export { EVICT_DEFAULTS } from '../fleet/evict-defaults.js';

export interface EvictOptions {
  /** The Glance store to free space in. */
  readonly store: string;
  readonly cluster: StoreCluster;
  /** Bytes or a percentage (`500G`, `80%`); undefined: every idle candidate goes. */
  readonly budget?: string | Budget;
  /** What a percentage is of: the pool (its quota, else ceph df), or the cluster. Default pool. */
  readonly budgetOf?: BudgetBase;
  /** How long a copy must have gone unused to be a candidate. Default EVICT_DEFAULTS.idleMs. */
  readonly idleMs?: number;
  /** Between the fence and the last look: how long a boot that was handed the copy has to clone it. */
  readonly graceMs?: number;
  /** What stays whatever its use; a function gets every image Glance listed (to resolve a sync policy's selections). */
  readonly pins?: PinSet | ((images: readonly GlanceImage[]) => PinSet);
  /** What stays, as given (--pin, a policy, pin owners): resolved against the listing (fleet/resolve-pins.ts); before `pins`. */
  readonly pinsFrom?: PinInputs;
  /**
   * The remove owners: projects whose images' copies may be removed (IDs as Glance's `owner`; `*`: every project's).
   * Default: the project of ferry's credential (EvictContext.projectId), else none. Others' copies stay, `not-owned`.
   */
  readonly removeOwners?: readonly string[];
  /** Plan only: no fence, no removal. */
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: EvictEvent) => void;
  /** Passed to the rbd_store_copies runs (a runner for tests, the python, timeouts). */
  readonly ceph?: StoreCopiesOptions;
  /** For tests: the run's id (default a random UUID) and who the fence names. */
  readonly run?: string;
  readonly by?: string;
  /**
   * Runs evicting several stores at once (sync) share it: the last look and the removal of one image happen one
   * store at a time, so two stores never both see the other's copy as the one that stays.
   */
  readonly removals?: KeyedLimiter;
}

export interface ResolvedEvictOptions {
  readonly store: string;
  readonly cluster: StoreCluster;
  readonly budget: Budget | undefined;
  readonly idleMs: number;
  readonly graceMs: number;
  readonly pins: PinSet | ((images: readonly GlanceImage[]) => PinSet) | undefined;
  readonly pinsFrom: PinInputs | undefined;
  /** As given (undefined: the credential's project, resolved by the caller that knows it: ownersOf). */
  readonly removeOwners: readonly string[] | undefined;
  readonly dryRun: boolean;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((event: EvictEvent) => void) | undefined;
  readonly ceph: StoreCopiesOptions;
  readonly run: string;
  readonly by: string;
  readonly removals: KeyedLimiter;
}

const schema = z.object({
  store: storeNameSchema(),
  idleMs: z.number().int().min(0, 'must be 0 or more'),
  // Shorter than the time a clone takes after an answer would let a removal pass a boot that was handed the copy.
  graceMs: z.number().int().min(1_000, 'must be at least 1 s: a boot handed the copy before the fence needs that long to clone it'),
  confFile: z.string().min(1, 'is required (the ceph.conf of the store\'s cluster)'),
});

/** Fill the defaults once and check every value, naming the option (FERRY_INVALID_OPTION). */
export function resolveEvictOptions(input: EvictOptions): ResolvedEvictOptions {
  const values = { store: input.store, idleMs: input.idleMs ?? EVICT_DEFAULTS.idleMs, graceMs: input.graceMs ?? EVICT_DEFAULTS.graceMs,
    confFile: input.cluster.confFile };
  const result = schema.safeParse(values);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? 'options');
    throw new FerryError('FERRY_INVALID_OPTION', `${field} ${issue?.message ?? 'is not valid'}, got ${JSON.stringify((values as Record<string, unknown>)[field])}`,
      `Fix the ${field} option (docs/evict.md).`, { option: field });
  }
  const budget = typeof input.budget === 'string' ? parseBudget(input.budget, input.budgetOf ?? EVICT_DEFAULTS.budgetOf) : input.budget;
  return Object.freeze({ store: result.data.store, cluster: input.cluster, budget, idleMs: result.data.idleMs, graceMs: result.data.graceMs,
    pins: input.pins, pinsFrom: input.pinsFrom, removeOwners: input.removeOwners, dryRun: input.dryRun === true, signal: input.signal, onProgress: input.onProgress, ceph: input.ceph ?? {},
    run: input.run ?? crypto.randomUUID(), by: input.by ?? `ferry evict pid ${process.pid}`, removals: input.removals ?? createKeyedLimiter(1) });
}
