import type { CephCluster } from '../config/ceph-cluster.js';
import { cephCliFor } from '../rbd/ceph-cli.js';
import type { CommandRunner } from '../rbd/command-runner.js';
import { probeCephMons, type MonProbe } from '../rbd/probe-ceph-mons.js';
import { probeRbdPool, type PoolProbe } from '../rbd/probe-rbd-pool.js';
import type { StoreProbePlan } from './plan-store-probes.js';

/** Whether one store answers: `null` when ferry could not check, `why` says how it was checked or why not. */
export interface StoreAnswer extends PoolProbe {
  readonly store: string;
}

export interface ProbeStoresOptions {
  /** The bound of each probe. Default POOL_PROBE_DEFAULTS.timeoutMs. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly runner?: CommandRunner;
}

/**
 * The probes of the clusters this host can reach. `mons` runs `ceph fsid` once per (ceph.conf, user), however often it
 * is asked, so a caller can start it before it knows the stores (while Glance answers) and the store probes reuse it.
 */
export interface ClusterProbes {
  mons(access: CephCluster): Promise<MonProbe>;
  pool(access: CephCluster, pool: string): Promise<PoolProbe>;
}

export function createClusterProbes(options: ProbeStoresOptions = {}): ClusterProbes {
  const cliOf = (access: CephCluster) => cephCliFor(access, { timeoutMs: options.timeoutMs, signal: options.signal, runner: options.runner });
  const mons = new Map<string, Promise<MonProbe>>();
  return {
    mons(access) {
      const key = `${access.confFile}\0${access.user ?? ''}`;
      let probe = mons.get(key);
      if (probe === undefined) {
        probe = probeCephMons(cliOf(access));
        mons.set(key, probe);
      }
      return probe;
    },
    pool: (access, pool) => probeRbdPool({ ...cliOf(access), pool }),
  };
}

/**
 * Runs the planned probes side by side; a store without a probe keeps its reason. Each probed store's mons are asked
 * first: mons that do not answer settle it (false), and a cluster other than the one Glance names for the store (Glance
 * ≥ 30 reports it) is not taken for it (null). Then `rbd ls` on the pool, or, when the pool is unknown, nothing more:
 * answering mons alone do not make a store work. Only an abort throws.
 */
export async function probeStores(plans: readonly StoreProbePlan[], probes: ClusterProbes): Promise<readonly StoreAnswer[]> {
  return Promise.all(plans.map(async (plan): Promise<StoreAnswer> => {
    if (plan.probe === 'none') return { store: plan.store, answers: null, why: plan.why };
    // rbd ls does not wait for the mon probe (the `ceph` CLI is slow to start); the mons' answer is weighed first.
    const [mons, pool] = await Promise.all([probes.mons(plan.access), plan.probe === 'rbd' ? probes.pool(plan.access, plan.pool) : undefined]);
    if (mons.monsAnswer === false) return { store: plan.store, answers: false, why: mons.why };
    if (plan.probe === 'mons' || pool === undefined) {
      return { store: plan.store, answers: null, why: mons.monsAnswer === true && plan.probe === 'mons' ? `the mons answer (${mons.why}), but ${plan.unchecked}` : mons.why };
    }
    if (plan.fsid !== undefined && mons.fsid !== undefined && mons.fsid !== plan.fsid) {
      return { store: plan.store, answers: null, why: `not this store's cluster: ${plan.access.confFile} reaches cluster ${mons.fsid}, `
        + `but Glance reports the store on cluster ${plan.fsid}; give the ceph.conf of that cluster` };
    }
    return { store: plan.store, ...pool };
  }));
}
