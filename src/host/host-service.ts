import { ensureDocument } from '../contract/ensure-document.js';
import { statusDocument } from '../contract/status-document.js';
import type { CopyProgressEvent } from '../copy/copy-progress.js';
import { copyStatus } from '../copy/copy-status.js';
import { copyShared } from '../copy/copy-context.js';
import type { EnsureOutcome, EnsureResult } from '../copy/ensure-result.js';
import { isFerryError } from '../errors/ferry-error.js';
import { buildCephCluster } from '../config/build-ceph-cluster.js';
import type { FsidSource, ResolvedLocalCluster } from '../rbd/resolve-local-cluster.js';
import { withHeldCloud, type CloudSource, type HeldCloud } from './cloud-holder.js';
import type { HealthCheck } from './health-check.js';
import { lookAtCopies } from '../rbd/copy-look.js';
import { ensureToHandOut, type FailedClone } from './hand-out-copy.js';
import { ensureWithConfig } from './host-ensure.js';
import { readNovaIntegration, type NovaIntegrationCheck } from './nova-integration-state.js';
import { createPoolCheck, poolOfLocalCopies, type PoolTarget } from './pool-check.js';
import { servedTransfer } from './served-transfer.js';
import { shareHandOut } from './shared-hand-out.js';

export type { HealthCheck } from './health-check.js';

/**
 * What this host serves its callers (the agent's routes are an HTTP face of it): ensure and status answered with the
 * very documents `ferry ensure --json` / `ferry status --json` print, and health.
 */
export interface HostService {
  /** The store a request without `store` gets (--store / nova.conf); undefined when none is configured. */
  defaultStore(): string | undefined;
  ensure(request: HostEnsureCall): Promise<HostEnsureAnswer>;
  /** Exactly what `ferry status IMAGE --json` prints. */
  status(imageRef: string, signal: AbortSignal): Promise<unknown>;
  health(signal: AbortSignal): Promise<HostHealth>;
}

export interface HostEnsureCall {
  readonly imageRef: string;
  readonly store: string;
  readonly timeoutMs?: number | undefined;
  /** nova asks again: its clone of the copy it was handed failed (the source went away). Only then is the copy looked at. */
  readonly failedClone?: FailedClone | undefined;
  readonly signal: AbortSignal;
  readonly onProgress: (event: CopyProgressEvent) => void;
  /**
   * The booting user's token (`X-Auth-Token` of the request): every Glance call for this request acts for that user,
   * ferry's own token going as the service token. Undefined: ferry's own identity, as before. Never logged or kept.
   */
  readonly userToken?: string | undefined;
  /** Acting for a user: called once that user's own look at the image passed (before any copy is joined). */
  readonly onVisible?: (() => void) | undefined;
}

export interface HostEnsureAnswer {
  /** Exactly what `ferry ensure --json` prints. */
  readonly document: unknown;
  /** For the metrics: copy-image requests made, and whether an import someone else started was joined. */
  readonly importRequests: number;
  readonly joined: boolean;
  /** Set when a clone target went back: how the image came to be in the store, and the bytes this call's copy moved. */
  readonly available?: HostAvailability;
}

export interface HostAvailability {
  /** present: it was there already; copied: this call (or the flight it shared) copied it; joined: another's import brought it. */
  readonly source: 'present' | 'copied' | 'joined';
  /** The image size when source is copied, else 0. */
  readonly copiedBytes: number;
}

/** `GET /healthz`: one entry per check; healthy when all pass. */
export interface HostHealth {
  readonly token: HealthCheck;
  readonly glance: HealthCheck;
  /**
   * `source`: where the fsid came from — `option` (--fsid), `cluster` (`ceph fsid` answered), or `ceph-conf` (the
   * cluster could not be asked: ceph.conf's value, unconfirmed; `warnings` says why). Still ok: clones can work.
   */
  readonly fsid: HealthCheck & { readonly fsid?: string; readonly source?: FsidSource; readonly warnings?: readonly string[] };
  /** Whether --transfer rbd has what it needs; failing: copies go through Glance (served-transfer.ts). */
  readonly transfer: HealthCheck;
  /**
   * Whether the site's images pool answers a read (pool-check.ts): the data path the fsid check (mons only) does not
   * reach. Absent without a local ceph.conf, and until the pool is known: a copy handed out (its pool is the one read),
   * or one found in Glance's image list (a clonable location of ours, looked for at most every 30 s).
   */
  readonly pool?: HealthCheck;
  /** Whether nova's image backend carries ferry's patch, where the Debian package keeps it applied (else absent). */
  readonly nova_integration?: NovaIntegrationCheck;
}

/** The host's service over its cloud holder: each call on the generation current when it starts. */
export function createHostService(clouds: CloudSource): HostService {
  const poolCheck = createPoolCheck({ discover: (timeoutMs) => discoverPool(clouds, timeoutMs) });
  return {
    defaultStore: () => {
      const held = clouds.acquire();
      held.release();
      return held.config.copy.store;
    },
    ensure: (call) => withHeldCloud(clouds, async ({ cloud, config }: HeldCloud) => {
      const once = (signal: AbortSignal) => ensureWithConfig(cloud, config, call.imageRef, { store: call.store, signal,
        transfer: servedTransfer(config).transfer, onProgress: call.onProgress, userToken: call.userToken, onVisible: call.onVisible,
        ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }) });
      const local = buildCephCluster(config.ceph);
      const answer = (outcome: EnsureOutcome): HostEnsureAnswer => {
        if (local !== undefined && outcome.needed) poolCheck.handedOut({ cluster: local, pool: outcome.target.pool });
        return answerOf(outcome);
      };
      // A first ask is one ensure. A retry after a failed clone looks at the copy before handing it out (an eviction
      // may be removing it), on one wait per (image, store) shared by every retry, each answered by its own deadline:
      // docs/evict.md, "Boot safety".
      if (local === undefined || call.failedClone === undefined) return answer(await once(call.signal));
      cloud.logger.info({ image: call.imageRef, failed: call.failedClone }, 'nova asks again: its clone of the copy it was handed failed');
      const failedClone = call.failedClone;
      return answer(await shareHandOut({ imageRef: call.imageRef, store: call.store, requestTimeoutMs: call.timeoutMs, actingFor: call.userToken,
        agentTimeoutMs: config.copy.timeoutMs, flights: copyShared(cloud).copyFlights, clock: cloud.clock, signal: call.signal,
        wait: (signal) => ensureToHandOut({ ensure: once, clock: cloud.clock, signal, failedClone,
          look: async (target, lookSignal) => {
            try {
              return (await lookAtCopies({ ...local, pool: target.pool, snapshot: target.snapshot }, [target.image], { signal: lookSignal }))[0];
            } catch (error) {
              if (!isFerryError(error, 'FERRY_CEPH')) throw error;
              cloud.logger.warn({ image: target.image, code: error.code }, `cannot look at the copy before handing it out: ${error.message}`);
              return undefined;
            }
          },
          onWait: (why, target) => cloud.logger.info({ image: target.image, pool: target.pool }, `not handing out the copy yet: ${why}`),
        }) }));
    }),
    status: (imageRef, signal) => withHeldCloud(clouds, async ({ cloud }) => statusDocument(await copyStatus(cloud, imageRef, { signal }))),
    health: (signal) => withHeldCloud(clouds, async ({ cloud, config }): Promise<HostHealth> => {
      let cluster: ResolvedLocalCluster | undefined;
      const pool = poolCheck.check();
      const [token, glance, fsidCheck, novaIntegration] = await Promise.all([
        check(() => cloud.session.token(signal)),
        check(() => cloud.glance.getStoresInfo({ signal })),
        check(async () => { cluster = await cloud.localCluster(signal); }),
        readNovaIntegration(),
      ]);
      return { token, glance, fsid: cluster === undefined ? fsidCheck
        : { ...fsidCheck, fsid: cluster.fsid, source: cluster.source, ...(cluster.warnings.length > 0 ? { warnings: cluster.warnings } : {}) },
      transfer: servedTransfer(config).check, ...(pool === undefined ? {} : { pool }), ...(novaIntegration === undefined ? {} : { nova_integration: novaIntegration }) };
    }),
  };
}

/**
 * Images one look reads for the pool of the site's copies: one page of PUBLIC images only. Their locations are the
 * cloud admin's to write; a tenant's own or shared image could carry a forged location tagged with our store, and
 * steer every restarted agent's check to a pool of the tenant's choosing (a false page).
 */
const DISCOVERY_QUERY = { limit: 100, visibility: 'public' } as const;

/**
 * Where this site's copies are before the agent has handed one out (pool-check.ts): one page of Glance's image list,
 * the local cluster's fsid, the pool of a clonable location tagged with our store. Bounded by the check's own timeout.
 */
function discoverPool(clouds: CloudSource, timeoutMs: number): Promise<PoolTarget | undefined> {
  return withHeldCloud(clouds, async ({ cloud, config }) => {
    const local = buildCephCluster(config.ceph);
    const store = config.copy.store;
    if (local === undefined || store === undefined) return undefined;
    const signal = AbortSignal.timeout(timeoutMs);
    const [cluster, page] = await Promise.all([cloud.localCluster(signal), cloud.glance.listImages(DISCOVERY_QUERY, { signal })]);
    const pool = poolOfLocalCopies(page.images, { fsid: cluster.fsid, store });
    return pool === undefined ? undefined : { cluster: local, pool };
  });
}

function answerOf(outcome: EnsureOutcome): HostEnsureAnswer {
  return { document: ensureDocument(outcome), importRequests: outcome.needed ? outcome.importRequests : 0,
    joined: outcome.needed && outcome.joined, ...(outcome.needed ? { available: availability(outcome) } : {}) };
}

function availability(outcome: EnsureResult): HostAvailability {
  if (outcome.copied) return { source: 'copied', copiedBytes: outcome.sizeBytes ?? 0 };
  return { source: outcome.joined ? 'joined' : 'present', copiedBytes: 0 };
}

async function check(probe: () => Promise<unknown>): Promise<HealthCheck> {
  try {
    await probe();
    return { ok: true };
  } catch (error) {
    return isFerryError(error) ? { ok: false, code: error.code, message: error.message }
      : { ok: false, code: 'FERRY_INTERNAL', message: 'the check failed unexpectedly (see the agent log)' };
  }
}
