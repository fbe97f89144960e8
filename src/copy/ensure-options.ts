import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';
import type { BackendConfig } from '../backend/resolve-backend-config.js';
import type { CephCluster } from '../config/ceph-cluster.js';
import { COPY_POLICY_DEFAULTS, resolveCopyPolicy, type CopyPolicy } from '../config/copy-policy.js';
import { storeNameSchema } from '../config/store-name.js';
import type { CopyProgressEvent } from './copy-progress.js';

export interface EnsureOptions extends Partial<CopyPolicy> {
  /** The Glance store that stands for the local Ceph cluster (nova: images_rbd_glance_store_name). Required. */
  readonly store: string;
  /** Local Ceph cluster fsid; default: the cloud's (from --fsid or the ceph CLI). */
  readonly fsid?: string;
  /** Pools ferry may clone from; default any pool of the local cluster. */
  readonly poolAllowList?: readonly string[];
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: CopyProgressEvent) => void;
  /** For tests: the jitter source. */
  readonly random?: () => number;
  /** The local cluster, where the direct RBD transfer writes (--ceph-conf, --rbd-user); needed by transfer rbd/auto. */
  readonly localCluster?: CephCluster | undefined;
  /**
   * Act for this user (the agent's request carried the booting user's token): every Glance call of the copy goes with a
   * waiting user's token and the context's own as the service token, the image is looked up with this one first (a
   * user never gets what it cannot see), and the copy goes through Glance's copy-image (docs/security.md, "Acting for
   * the booting user"). Never logged, never kept past the call.
   */
  readonly userToken?: string | undefined;
  /** Acting for a user: called once that user's own look at the image passed, before the shared copy is joined. */
  readonly onVisible?: (() => void) | undefined;
}

/** ensureOnHost(): the host's storage backends (images_type + images_type_mapping) decide whether a copy is needed. */
export interface HostEnsureOptions extends EnsureOptions {
  readonly backend: BackendConfig;
}

/** The engine's own limits: not a caller's choice, so not part of the CopyPolicy. */
export const COPY_ENGINE_LIMITS = {
  /** A finished task that still holds the lock after this long is stuck (Glance releases it within ~0.1 s). */
  finishedGraceMs: 15_000,
  /** Read the lock holder's task (message, updated_at) once the wait is this old, and then at most this often. */
  taskCheckAfterMs: 20_000,
  taskCheckEveryMs: 30_000,
  /** How often to re-request a copy after joining someone else's import that did not bring the image to our store. */
  maxRequestRounds: 3,
  /**
   * Before an aborted Glance copy is reported, the image is read again after each of these pauses (10 s in all):
   * Glance deletes an image's data before its record, so a copy broken by a deletion ends while the image still reads
   * as there (seen in CI: task failed, lock released, the 404 only later: within 3 s once, after more than 4 s on a
   * loaded run for a 128 MiB image in two stores). Gone meanwhile: FERRY_IMAGE_NOT_FOUND. An abort that is no deletion
   * (rare: a staging quota, a lock taken over) is reported 10 s later for it; a store Glance marked failed, at once.
   */
  deletionRecheckPausesMs: [250, 500, 1_000, 1_250, 2_000, 2_500, 2_500],
} as const;

/** The policy defaults and the engine's limits, as the library exported them before CopyPolicy had a name. */
export const ENSURE_DEFAULTS = Object.freeze({ ...COPY_POLICY_DEFAULTS, ...COPY_ENGINE_LIMITS });

export type ResolvedEnsureOptions = CopyPolicy & { readonly store: string }
  & Pick<EnsureOptions, 'fsid' | 'poolAllowList' | 'signal' | 'onProgress' | 'random' | 'localCluster' | 'userToken' | 'onVisible'> & { readonly backend?: BackendConfig | undefined };

const schema = z.object({
  store: storeNameSchema(),
  fsid: z.string().regex(/^[0-9a-fA-F-]{36}$/, 'a UUID').optional(),
  poolAllowList: z.array(z.string().min(1)).optional(),
});

/** Fill defaults once and validate, so nothing below checks for undefined again. */
export function resolveEnsureOptions(input: EnsureOptions & { readonly backend?: BackendConfig | undefined }): ResolvedEnsureOptions {
  const policy = resolveCopyPolicy(input);
  const target = { store: input.store, fsid: input.fsid, poolAllowList: input.poolAllowList };
  const result = schema.safeParse(target);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? 'options');
    const value = (target as Record<string, unknown>)[field];
    throw new FerryError('FERRY_INVALID_OPTION', `${field} must be ${issue?.message ?? 'valid'}, got ${JSON.stringify(value)}`,
      `Fix the ${field} option.`, { option: field });
  }
  return { ...policy, ...result.data, signal: input.signal, onProgress: input.onProgress, random: input.random, backend: input.backend,
    localCluster: input.localCluster, userToken: input.userToken, onVisible: input.onVisible };
}
