import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';
import type { BackendConfig } from '../backend/resolve-backend-config.js';
import type { CopyProgressEvent } from './copy-progress.js';

export interface EnsureOptions {
  /** The Glance store that stands for the local Ceph cluster (nova: images_rbd_glance_store_name). Required. */
  readonly store: string;
  /** Overall deadline, ms. Default ENSURE_DEFAULTS.timeoutMs (nova's images_rbd_glance_copy_timeout = 600 s). */
  readonly timeoutMs?: number;
  /** First and smallest delay between image reads. */
  readonly minPollDelayMs?: number;
  /** Largest delay between image reads (nova's fixed images_rbd_glance_copy_poll_interval maps here). */
  readonly maxPollDelayMs?: number;
  /** A lock whose task has not moved for this long is reported as stuck instead of waited on. */
  readonly staleLockAfterMs?: number;
  /**
   * A lock Glance would release on the next import (expired by its 60/120-min rule, or naming a task it lacks): send
   * that import and follow our own copy instead of reporting FERRY_COPY_STUCK. Default true.
   */
  readonly takeOverExpired?: boolean;
  /** Local Ceph cluster fsid; default: the cloud's (from --fsid or the ceph CLI). */
  readonly fsid?: string;
  /** Pools ferry may clone from; default any pool of the local cluster. */
  readonly poolAllowList?: readonly string[];
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: CopyProgressEvent) => void;
  /** For tests: the jitter source. */
  readonly random?: () => number;
}

/** ensureOnHost(): the host's storage backends (images_type + images_type_mapping) decide whether a copy is needed. */
export interface HostEnsureOptions extends EnsureOptions {
  readonly backend: BackendConfig;
}

export const ENSURE_DEFAULTS = {
  timeoutMs: 600_000,
  minPollDelayMs: 100,
  /** nova's images_rbd_glance_copy_poll_interval default: ferry never polls less often than nova. */
  maxPollDelayMs: 15_000,
  staleLockAfterMs: 600_000,
  /** A finished task that still holds the lock after this long is stuck (Glance releases it within ~0.1 s). */
  finishedGraceMs: 15_000,
  /** Read the lock holder's task (message, updated_at) once the wait is this old, and then at most this often. */
  taskCheckAfterMs: 20_000,
  taskCheckEveryMs: 30_000,
  /** How often to re-request a copy after joining someone else's import that did not bring the image to our store. */
  maxRequestRounds: 3,
  takeOverExpired: true,
} as const;

export type ResolvedEnsureOptions = Required<Pick<EnsureOptions, 'store' | 'timeoutMs' | 'minPollDelayMs' | 'maxPollDelayMs' | 'staleLockAfterMs'
  | 'takeOverExpired'>>
  & Pick<EnsureOptions, 'fsid' | 'poolAllowList' | 'signal' | 'onProgress' | 'random'> & { readonly backend?: BackendConfig | undefined };

const storeName = z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');
const positiveMs = z.number().int().positive();
const schema = z.object({
  store: storeName,
  timeoutMs: positiveMs,
  minPollDelayMs: positiveMs,
  maxPollDelayMs: positiveMs,
  staleLockAfterMs: positiveMs,
  fsid: z.string().regex(/^[0-9a-fA-F-]{36}$/, 'a UUID').optional(),
  poolAllowList: z.array(z.string().min(1)).optional(),
});

/** Fill defaults once and validate, so nothing below checks for undefined again. */
export function resolveEnsureOptions(input: EnsureOptions & { readonly backend?: BackendConfig | undefined }): ResolvedEnsureOptions {
  const merged = {
    timeoutMs: input.timeoutMs ?? ENSURE_DEFAULTS.timeoutMs,
    minPollDelayMs: input.minPollDelayMs ?? ENSURE_DEFAULTS.minPollDelayMs,
    maxPollDelayMs: input.maxPollDelayMs ?? ENSURE_DEFAULTS.maxPollDelayMs,
    staleLockAfterMs: input.staleLockAfterMs ?? ENSURE_DEFAULTS.staleLockAfterMs,
    store: input.store,
    fsid: input.fsid,
    poolAllowList: input.poolAllowList,
  };
  const result = schema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? 'options');
    const value = (merged as Record<string, unknown>)[field];
    throw new FerryError('FERRY_INVALID_OPTION', `${field} must be ${issue?.message ?? 'valid'}, got ${JSON.stringify(value)}`,
      `Fix the ${field} option.`, { option: field });
  }
  if (merged.minPollDelayMs > merged.maxPollDelayMs) {
    throw new FerryError('FERRY_INVALID_OPTION',
      `minPollDelayMs (${merged.minPollDelayMs}) is larger than maxPollDelayMs (${merged.maxPollDelayMs})`,
      'Make the poll interval at least the minimum delay.', { option: 'minPollDelayMs' });
  }
  return { ...result.data, takeOverExpired: input.takeOverExpired ?? ENSURE_DEFAULTS.takeOverExpired, signal: input.signal, onProgress: input.onProgress, random: input.random, backend: input.backend };
}
