import { probeCephMons } from '../rbd/probe-ceph-mons.js';
import { probeRbdPool, type PoolProbe } from '../rbd/probe-rbd-pool.js';
import type { CommandRunner } from '../rbd/command-runner.js';
import type { StoreProbePlan } from './plan-store-probes.js';

/** Whether one store answers: `null` when ferry could not check, `why` says how it was checked or why not. */
export interface StoreAnswer extends PoolProbe {
  readonly store: string;
}

export interface ProbeStoresOptions {
  /** The bound of each probe (they run at once, so also of all of them). Default POOL_PROBE_DEFAULTS.timeoutMs. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly runner?: CommandRunner;
}

/** Runs the planned probes side by side; a store without a probe keeps its reason. Only an abort throws. */
export async function probeStores(plans: readonly StoreProbePlan[], options: ProbeStoresOptions = {}): Promise<readonly StoreAnswer[]> {
  return Promise.all(plans.map(async (plan): Promise<StoreAnswer> => {
    if (plan.probe === 'none') return { store: plan.store, answers: null, why: plan.why };
    const cli = {
      confFile: plan.access.confFile,
      ...(plan.access.user === undefined ? {} : { user: plan.access.user }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.runner === undefined ? {} : { runner: options.runner }),
    };
    if (plan.probe === 'mons') {
      // Mons that answer do not make the store work (its OSDs, its pool), so the best this can say is false or null.
      const mons = await probeCephMons(cli);
      return { store: plan.store, answers: mons.monsAnswer === false ? false : null,
        why: mons.monsAnswer === true ? `the mons answer (${mons.why}), but ${plan.unchecked}` : mons.why };
    }
    return { store: plan.store, ...(await probeRbdPool({ ...cli, pool: plan.pool })) };
  }));
}
