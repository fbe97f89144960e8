import { z } from 'zod';
import { COPY_POLICY_DEFAULTS, resolveCopyPolicy, type CopyPolicy } from '../config/copy-policy.js';
import { storeNameSchema } from '../config/store-name.js';
import type { TimeWindow } from '../clock/time-window.js';
import { FerryError } from '../errors/ferry-error.js';
import type { PrewarmEvent } from '../fleet/prewarm-events.js';
import type { PrewarmOptions } from '../fleet/prewarm-options.js';
import { REQUEST_MODES, type RequestMode } from '../fleet/request-mode.js';
import { parseResolvedOptions } from '../config/parse-resolved-options.js';
import { ADAPTIVE_DEFAULTS } from './adaptive-concurrency.js';

export { REQUEST_MODES, type RequestMode } from '../fleet/request-mode.js';
export type { PrewarmOptions } from '../fleet/prewarm-options.js';

export const PREWARM_DEFAULTS = {
  /**
   * Measured on the dev cloud (glance-api with 2 workers, bench/RESULTS.md, "prewarm"): Glance sustains ≈ 1.45–1.67
   * copies' worth of work at once with 4 or 8 imports in flight, no more; beyond 4 ferry's own reads only take CPU from
   * the copies (8: no faster, 16: 15–30 % slower). Each running import also holds a staged copy of its image
   * on the Glance node, so more is not free. A Glance with more workers or API nodes may take more (--concurrency).
   */
  concurrency: 4,
  requestMode: 'image' as RequestMode,
  /**
   * Larger than ensure's 100 ms: a prewarm wants throughput, not the fastest notice of one copy's end. With several imports
   * in flight Glance keeps copying while ferry sleeps, and every read costs Glance CPU that the
   * copies then lack (bench/RESULTS.md, "prewarm").
   */
  minPollDelayMs: 250,
  /** Upper bound of both limits: Glance runs every accepted copy at once, so more only queues inside Glance. */
  maxConcurrency: 64,
} as const;

/** Prewarm's pacing over the policy defaults: only the first delay differs. */
const PREWARM_POLICY_BASE: CopyPolicy = Object.freeze({ ...COPY_POLICY_DEFAULTS, minPollDelayMs: PREWARM_DEFAULTS.minPollDelayMs });

export interface ResolvedPrewarmOptions extends CopyPolicy {
  readonly stores: readonly string[];
  /** Fixed: the limit. Adaptive: where the search starts. */
  readonly concurrency: number;
  /** No --concurrency given: the limit follows Glance's throughput (adaptive-concurrency.ts). */
  readonly adaptiveConcurrency: boolean;
  readonly perStoreConcurrency: number;
  readonly requestMode: RequestMode;
  readonly anyFormat: boolean;
  readonly dryRun: boolean;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((event: PrewarmEvent) => void) | undefined;
  readonly random: (() => number) | undefined;
  readonly localCluster: PrewarmOptions['localCluster'];
  readonly localStore: string | undefined;
  readonly perClusterTransfers: number | undefined;
  readonly fanOut: number | undefined;
  readonly bytesPerSecond: number | undefined;
  readonly window: TimeWindow | undefined;
}

const storeName = storeNameSchema();
const limit = z.number().int().min(1).max(PREWARM_DEFAULTS.maxConcurrency);
const schema = z.object({
  stores: z.array(storeName).min(1, 'at least one store'),
  concurrency: limit,
  perStoreConcurrency: limit,
  requestMode: z.enum(REQUEST_MODES),
});

/** Fill defaults once and validate, so nothing below checks for undefined again. */
export function resolvePrewarmOptions(input: PrewarmOptions, origin: Readonly<Record<string, string>> = {}): ResolvedPrewarmOptions {
  // A store named twice is a typo to point out, not to guess about (Glance itself would lock the image for 60 min
  // on such an import; ferry never sends one).
  const twice = input.stores.find((store, index) => input.stores.indexOf(store) !== index);
  if (twice !== undefined) {
    const from = origin.stores === undefined ? '' : ` (from ${origin.stores})`;
    throw new FerryError('FERRY_INVALID_OPTION', `stores names '${twice}' twice: ${input.stores.join(', ')}${from}`,
      `Name each store once (--store ${[...new Set(input.stores)].join(' --store ')}).`, { option: 'stores', store: twice });
  }
  const merged = {
    stores: [...input.stores],
    concurrency: input.concurrency ?? PREWARM_DEFAULTS.concurrency,
    perStoreConcurrency: input.perStoreConcurrency ?? input.concurrency ?? ADAPTIVE_DEFAULTS.ceiling,
    requestMode: input.requestMode ?? PREWARM_DEFAULTS.requestMode,
  };
  const parsed = parseResolvedOptions(schema, merged, origin);
  const policy = resolveCopyPolicy(input, PREWARM_POLICY_BASE, origin);
  if (input.bytesPerSecond !== undefined && policy.transfer === 'glance') {
    throw new FerryError('FERRY_INVALID_OPTION', 'a rate limit paces the direct RBD transfer, but the transfer is glance: Glance copies the bytes itself and ferry cannot pace them',
      'Use --transfer rbd (or auto) with --rate-limit, or leave --rate-limit out.', { option: 'rateLimit' });
  }
  return Object.freeze({ ...parsed, ...policy, adaptiveConcurrency: input.concurrency === undefined, anyFormat: input.anyFormat === true, dryRun: input.dryRun === true,
    signal: input.signal, onProgress: input.onProgress, random: input.random, localCluster: input.localCluster, localStore: input.localStore,
    perClusterTransfers: input.perClusterTransfers, fanOut: input.fanOut, bytesPerSecond: input.bytesPerSecond, window: input.window });
}
