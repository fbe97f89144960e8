import { z } from 'zod';
import { ENSURE_DEFAULTS } from '../copy/ensure-options.js';
import { FerryError } from '../errors/ferry-error.js';
import type { PrewarmEvent } from './prewarm-events.js';

/**
 * How an image reaches several stores:
 * - `image`: one import request per image naming all its missing stores (`all_stores_must_succeed: false`); Glance
 *   stages the data once and writes the stores one after another;
 * - `store`: one request per store, one after another (Glance allows one import per image at a time).
 * bench/prewarm.ts measures both; docs/prewarm.md has the numbers behind the default.
 */
export const REQUEST_MODES = ['image', 'store'] as const;
export type RequestMode = (typeof REQUEST_MODES)[number];

export interface PrewarmOptions {
  /** Target stores, in the order Glance should write them. Required. */
  readonly stores: readonly string[];
  /** Images being copied at once, overall. Default PREWARM_DEFAULTS.concurrency. */
  readonly concurrency?: number;
  /** Images being copied into any one store at once. Default: `concurrency` (no limit of its own). */
  readonly perStoreConcurrency?: number;
  readonly requestMode?: RequestMode;
  /** Copy non-raw images into rbd stores too. */
  readonly anyFormat?: boolean;
  /** Plan only: no import request is sent. */
  readonly dryRun?: boolean;
  /** Deadline of one image's job (its requests, waits and joins), ms. */
  readonly timeoutMs?: number;
  readonly minPollDelayMs?: number;
  readonly maxPollDelayMs?: number;
  /** A lock whose task has not moved for this long is reported as stuck instead of waited on. */
  readonly staleLockAfterMs?: number;
  /** Take over import locks Glance would release anyway (see EnsureOptions.takeOverExpired). Default true. */
  readonly takeOverExpired?: boolean;
  /** Stops new work; copies already running inside Glance go on (the report lists them). */
  readonly signal?: AbortSignal;
  /** The library reports; it never prints. Events are frozen. */
  readonly onProgress?: (event: PrewarmEvent) => void;
  /** For tests: the jitter source. */
  readonly random?: () => number;
}

export const PREWARM_DEFAULTS = {
  /**
   * Measured on the dev cloud (glance-api with 2 workers, bench/RESULTS.md, "prewarm"): Glance sustains ≈ 1.45–1.67
   * copies' worth of work at once with 4 or 8 imports in flight, no more; beyond 4 ferry's own reads only take CPU from
   * the copies (8: no faster, 16: 15–30 % slower). Each running import also holds a staged copy of its image
   * on the Glance node, so more is not free. A Glance with more workers or API nodes may take more (--concurrency).
   */
  concurrency: 4,
  requestMode: 'image' as RequestMode,
  timeoutMs: ENSURE_DEFAULTS.timeoutMs,
  /**
   * Larger than ensure's 100 ms: a prewarm wants throughput, not the fastest notice of one copy's end. With several imports
   * in flight Glance keeps copying while ferry sleeps, and every read costs Glance CPU that the
   * copies then lack (bench/RESULTS.md, "prewarm").
   */
  minPollDelayMs: 250,
  maxPollDelayMs: ENSURE_DEFAULTS.maxPollDelayMs,
  staleLockAfterMs: ENSURE_DEFAULTS.staleLockAfterMs,
  /** Upper bound of both limits: Glance runs every accepted copy at once, so more only queues inside Glance. */
  maxConcurrency: 64,
} as const;

export interface ResolvedPrewarmOptions {
  readonly stores: readonly string[];
  readonly concurrency: number;
  readonly perStoreConcurrency: number;
  readonly requestMode: RequestMode;
  readonly anyFormat: boolean;
  readonly dryRun: boolean;
  readonly timeoutMs: number;
  readonly minPollDelayMs: number;
  readonly maxPollDelayMs: number;
  readonly staleLockAfterMs: number;
  readonly takeOverExpired: boolean;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((event: PrewarmEvent) => void) | undefined;
  readonly random: (() => number) | undefined;
}

const storeName = z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');
const limit = z.number().int().min(1).max(PREWARM_DEFAULTS.maxConcurrency);
const positiveMs = z.number().int().positive();
const schema = z.object({
  stores: z.array(storeName).min(1, 'at least one store'),
  concurrency: limit,
  perStoreConcurrency: limit,
  requestMode: z.enum(REQUEST_MODES),
  timeoutMs: positiveMs,
  minPollDelayMs: positiveMs,
  maxPollDelayMs: positiveMs,
  staleLockAfterMs: positiveMs,
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
    perStoreConcurrency: input.perStoreConcurrency ?? input.concurrency ?? PREWARM_DEFAULTS.concurrency,
    requestMode: input.requestMode ?? PREWARM_DEFAULTS.requestMode,
    timeoutMs: input.timeoutMs ?? PREWARM_DEFAULTS.timeoutMs,
    minPollDelayMs: input.minPollDelayMs ?? Math.min(PREWARM_DEFAULTS.minPollDelayMs, input.maxPollDelayMs ?? PREWARM_DEFAULTS.maxPollDelayMs),
    maxPollDelayMs: input.maxPollDelayMs ?? PREWARM_DEFAULTS.maxPollDelayMs,
    staleLockAfterMs: input.staleLockAfterMs ?? PREWARM_DEFAULTS.staleLockAfterMs,
  };
  const result = schema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? 'options');
    const value = (merged as Record<string, unknown>)[field];
    const from = origin[field] === undefined ? '' : ` (from ${origin[field]})`;
    throw new FerryError('FERRY_INVALID_OPTION', `${field} must be ${issue?.message ?? 'valid'}, got ${JSON.stringify(value)}${from}`,
      `Fix the ${origin[field] ?? field} option.`, { option: field });
  }
  if (merged.minPollDelayMs > merged.maxPollDelayMs) {
    throw new FerryError('FERRY_INVALID_OPTION', `minPollDelayMs (${merged.minPollDelayMs}) is larger than maxPollDelayMs (${merged.maxPollDelayMs})`,
      'Make the poll interval at least the minimum delay.', { option: 'minPollDelayMs' });
  }
  return Object.freeze({ ...result.data, takeOverExpired: input.takeOverExpired ?? ENSURE_DEFAULTS.takeOverExpired, anyFormat: input.anyFormat === true, dryRun: input.dryRun === true,
    signal: input.signal, onProgress: input.onProgress, random: input.random });
}
