import type { Clock } from '../clock/clock.js';
import type { GlanceClient } from '../glance/glance-client.js';
import { readStoreOverview, type LocalIdentity, type StoreOverview } from '../glance/store-overview.js';
import type { CommandRunner } from '../rbd/command-runner.js';
import { planStoreProbes, type StoreProbeSources } from './plan-store-probes.js';
import { createClusterProbes, probeStores, type StoreAnswer } from './probe-stores.js';

// `ferry stores`' sequence: which stores Glance offers, and whether each answers as this host can check it.

/** Where the stores are read from: Glance, and its clock for the /detail deadline. */
export interface StoreReader {
  readonly glance: GlanceClient;
  readonly clock: Clock;
}

export interface CheckStoresOptions extends StoreProbeSources {
  /** The configured store and fsid: which store is the local one. */
  readonly identity: LocalIdentity;
  /** The bound of each probe command and of /detail. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly runner?: CommandRunner;
}

export interface StoresCheck {
  readonly overview: StoreOverview;
  readonly answers: readonly StoreAnswer[];
}

/**
 * The stores and their answers. The mons of every cluster ferry can reach (`local`, `byStore`) are asked at once,
 * while the connection to the cloud is made and Glance answers: a dead mon is known by the time the list is there,
 * even when /detail waits out its deadline (it gets the probes' bound too: Glance answers it only after reconnecting
 * to every rbd store's cluster). Then the plan (plan-store-probes) and the probes (probe-stores) reuse those answers.
 * If the connection, the list or the plan fails, the probes still running are stopped and the error is thrown.
 */
export async function checkStores(connection: Promise<StoreReader>, options: CheckStoresOptions): Promise<StoresCheck> {
  const { local, byStore, identity, timeoutMs, signal } = options;
  const stop = new AbortController();
  const probes = createClusterProbes({ timeoutMs, signal: AbortSignal.any([signal, stop.signal]), ...(options.runner ? { runner: options.runner } : {}) });
  for (const access of [...(local ? [local] : []), ...(byStore?.values() ?? [])]) probes.mons(access).catch(() => undefined);
  try {
    const { glance, clock } = await connection;
    const overview = await readStoreOverview(glance, identity, { signal, detailTimeoutMs: timeoutMs, clock });
    const plans = planStoreProbes(overview, { ...(byStore ? { byStore } : {}), ...(local ? { local } : {}) });
    return { overview, answers: await probeStores(plans, probes) };
  } catch (error) {
    stop.abort();
    throw error;
  }
}
