import { z } from 'zod';
import { storeNameSchema } from './store-name.js';
import { FerryError } from '../errors/ferry-error.js';
import { parseResolvedOptions } from './parse-resolved-options.js';

/**
 * How one copy is followed: the five knobs every caller of the copy engine shares (ensure, prewarm, sync, the agent,
 * the configuration). One type, one set of defaults, one resolver. It lives in config/ (below the engine) because the
 * configuration resolves these values from flags, env, clouds.yaml and nova.conf; the engine only reads them.
 */
export interface CopyPolicy {
  /** Overall deadline of one copy job (nova: images_rbd_glance_copy_timeout). */
  readonly timeoutMs: number;
  /** The waiter's first and smallest delay between image reads. */
  readonly minPollDelayMs: number;
  /** The waiter's largest delay (nova's fixed images_rbd_glance_copy_poll_interval maps here). */
  readonly maxPollDelayMs: number;
  /** An import lock whose task has not moved for this long is reported as stuck instead of waited on. */
  readonly staleLockAfterMs: number;
  /** Make Glance bust a lock it would release anyway (expired by its own rule), then follow our own copy. */
  readonly takeOverExpired: boolean;
  /** How a missing store is brought: Glance's copy-image, the direct RBD transfer, or rbd where it can and else Glance. */
  readonly transfer: TransferMode;
  /** The clusters the direct transfer may read from: Glance store id → its ceph.conf (--source-ceph-conf STORE=PATH). */
  readonly sourceCephConfs: Readonly<Record<string, string>>;
  /** The cephx user for the source clusters (--source-rbd-user); undefined: the local --rbd-user. */
  readonly sourceRbdUser: string | undefined;
  /**
   * The direct transfer's quiet time (--rbd-quiet-time): a temporary image of a writer on another host that nobody has
   * open and nobody wrote for this long is a leftover and removed. Never below RBD_QUIET_FLOOR_MS.
   */
  readonly rbdQuietMs: number;
}

export const TRANSFER_MODES = ['glance', 'rbd', 'auto'] as const;

/**
 * The lowest quiet time ferry accepts. librbd updates an image's modify time at most once a minute while a writer has
 * it open (rbd_mtime_update_interval, 60 s), so a live writer's image can look 60 s old the moment it closes it;
 * between two of its rbd commands, and while its read-back opens the snapshot read-only, it shows no watcher either.
 * 30 s more covers those gaps and clock skew between hosts.
 */
export const RBD_QUIET_FLOOR_MS = 90_000;
export type TransferMode = (typeof TRANSFER_MODES)[number];

export const COPY_POLICY_DEFAULTS: CopyPolicy = Object.freeze({
  /** nova's images_rbd_glance_copy_timeout (600 s). */
  timeoutMs: 600_000,
  /** The end of a copy is seen within about this long. */
  minPollDelayMs: 100,
  /** nova's images_rbd_glance_copy_poll_interval default: ferry never polls less often than nova. */
  maxPollDelayMs: 15_000,
  /** 10 min. Glance itself breaks such a lock only after 60 min (glance-multistore.md §7). */
  staleLockAfterMs: 600_000,
  /** Nothing is lost by asking Glance to release a lock it would release on the next import anyway. */
  takeOverExpired: true,
  /** Glance's own copy, as before the direct transfer existed: it needs no Ceph access on the caller's side. */
  transfer: 'glance',
  sourceCephConfs: Object.freeze({}),
  sourceRbdUser: undefined,
  /** Three times librbd's modify-time interval: waits out a live writer on another host with room to spare. */
  rbdQuietMs: 180_000,
});

const positiveMs = z.number().int().positive();
const policySchema = z.object({
  timeoutMs: positiveMs,
  minPollDelayMs: positiveMs,
  maxPollDelayMs: positiveMs,
  staleLockAfterMs: positiveMs,
  takeOverExpired: z.boolean(),
  transfer: z.enum(TRANSFER_MODES),
  sourceCephConfs: z.record(storeNameSchema(), z.string().min(1)),
  sourceRbdUser: z.string().min(1).optional(),
  rbdQuietMs: positiveMs,
});

/**
 * Fill a policy from what a caller set, over `base` (the defaults, or a caller's own pacing such as prewarm's larger
 * first delay), and validate it. A cap below the base's first delay lowers the first delay with it. `origin` names
 * where a field came from (`--timeout`), for the message.
 */
export function resolveCopyPolicy(input: Partial<CopyPolicy>, base: CopyPolicy = COPY_POLICY_DEFAULTS,
  origin: Readonly<Record<string, string>> = {}): CopyPolicy {
  const maxPollDelayMs = input.maxPollDelayMs ?? base.maxPollDelayMs;
  const merged = {
    timeoutMs: input.timeoutMs ?? base.timeoutMs,
    minPollDelayMs: input.minPollDelayMs ?? Math.min(base.minPollDelayMs, maxPollDelayMs),
    maxPollDelayMs,
    staleLockAfterMs: input.staleLockAfterMs ?? base.staleLockAfterMs,
    takeOverExpired: input.takeOverExpired ?? base.takeOverExpired,
    transfer: input.transfer ?? base.transfer,
    sourceCephConfs: input.sourceCephConfs ?? base.sourceCephConfs,
    sourceRbdUser: input.sourceRbdUser ?? base.sourceRbdUser,
    rbdQuietMs: input.rbdQuietMs ?? base.rbdQuietMs,
  };
  const parsed = parseResolvedOptions(policySchema, merged, origin);
  if (merged.minPollDelayMs > merged.maxPollDelayMs) {
    throw new FerryError('FERRY_INVALID_OPTION', `minPollDelayMs (${merged.minPollDelayMs}) is larger than maxPollDelayMs (${merged.maxPollDelayMs})`,
      'Make the poll interval at least the minimum delay.', { option: 'minPollDelayMs' });
  }
  if (merged.rbdQuietMs < RBD_QUIET_FLOOR_MS) {
    throw new FerryError('FERRY_INVALID_OPTION', `rbdQuietMs must be at least ${RBD_QUIET_FLOOR_MS / 1000} s, got ${merged.rbdQuietMs / 1000} s${origin.rbdQuietMs === undefined ? '' : ` (from ${origin.rbdQuietMs})`}`,
      `Give --rbd-quiet-time ${RBD_QUIET_FLOOR_MS / 1000}s or more: librbd updates an image's modify time only once a minute, so a shorter quiet time could remove a live writer's image.`,
      { option: 'rbdQuietMs' });
  }
  if (merged.transfer === 'rbd' && Object.keys(merged.sourceCephConfs).length === 0) {
    throw new FerryError('FERRY_INVALID_OPTION', `transfer rbd needs at least one source cluster, got none${origin.transfer === undefined ? '' : ` (from ${origin.transfer})`}`,
      'Name the clusters ferry may read from with --source-ceph-conf STORE=PATH (repeatable), or use --transfer auto / glance.', { option: 'sourceCephConfs' });
  }
  return Object.freeze({ ...parsed, sourceCephConfs: Object.freeze({ ...parsed.sourceCephConfs }), sourceRbdUser: parsed.sourceRbdUser });
}

/** The policy fields of a larger object (resolved options, the configuration's copy section). */
export function copyPolicyOf(source: CopyPolicy): CopyPolicy {
  const { timeoutMs, minPollDelayMs, maxPollDelayMs, staleLockAfterMs, takeOverExpired, transfer, sourceCephConfs, sourceRbdUser, rbdQuietMs } = source;
  return Object.freeze({ timeoutMs, minPollDelayMs, maxPollDelayMs, staleLockAfterMs, takeOverExpired, transfer, sourceCephConfs, sourceRbdUser, rbdQuietMs });
}
