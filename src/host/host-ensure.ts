import { resolveBackendConfig, type BackendConfig } from '../backend/resolve-backend-config.js';
import { buildCephCluster } from '../config/build-ceph-cluster.js';
import { copyPolicyOf, type CopyPolicy, type TransferMode } from '../config/copy-policy.js';
import type { FerryConfig } from '../config/ferry-config.js';
import type { CopyContext } from '../copy/copy-context.js';
import type { CopyProgressEvent } from '../copy/copy-progress.js';
import { ensure, ensureOnHost } from '../copy/ensure.js';
import type { EnsureOutcome } from '../copy/ensure-result.js';

/** Per call: what a caller may set on top of the configuration (the agent's requests; the CLI's flags are in config). */
export interface EnsureCall {
  readonly store: string;
  readonly timeoutMs?: number;
  /** The transfer to copy with instead of the configuration's (the agent's, when --transfer rbd lacks its clusters). */
  readonly transfer?: TransferMode;
  readonly signal: AbortSignal;
  readonly onProgress?: (event: CopyProgressEvent) => void;
  /** The booting user's token (the agent's `X-Auth-Token`): the copy acts for that user (EnsureOptions.userToken). */
  readonly userToken?: string | undefined;
  readonly onVisible?: (() => void) | undefined;
}

/** The copy policy this host's configuration gives every copy. */
export function hostCopyPolicy(config: FerryConfig): CopyPolicy {
  return copyPolicyOf(config.copy);
}

/**
 * The host's per-image backends, when its storage was configured (nova.conf or flags); otherwise undefined: every
 * image then needs the rbd store.
 */
export function hostBackend(config: FerryConfig): BackendConfig | undefined {
  const { host, sources } = config;
  const configured = sources['host.imagesType'] !== 'default' || host.imagesTypeMapping !== undefined;
  if (!configured) return undefined;
  return resolveBackendConfig({ imagesType: host.imagesType, imagesTypeMapping: host.imagesTypeMapping ?? '',
    useCowImages: host.useCowImages, source: sources['host.imagesTypeMapping'] ?? sources['host.imagesType'] });
}

/**
 * ensure() on this host, from its resolved configuration: config → a CopyPolicy + the backend mapping → the copy
 * engine. `ferry ensure` and the agent both call this, so both answer alike.
 */
export async function ensureWithConfig(cloud: CopyContext, config: FerryConfig, imageRef: string, call: EnsureCall): Promise<EnsureOutcome> {
  const options = {
    ...hostCopyPolicy(config),
    ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
    ...(call.transfer === undefined ? {} : { transfer: call.transfer }),
    store: call.store,
    signal: call.signal,
    localCluster: buildCephCluster(config.ceph),
    ...(call.onProgress ? { onProgress: call.onProgress } : {}),
    ...(call.userToken === undefined ? {} : { userToken: call.userToken, onVisible: call.onVisible }),
  };
  const backend = hostBackend(config);
  return backend === undefined ? ensure(cloud, imageRef, options) : ensureOnHost(cloud, imageRef, { ...options, backend });
}
