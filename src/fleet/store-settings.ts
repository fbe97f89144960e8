import { FerryError } from '../errors/ferry-error.js';
import type { CephCluster } from '../config/ceph-cluster.js';
import { EVICT_DEFAULTS } from './evict-defaults.js';
import type { Budget } from './store-budget.js';
import { buildStoreCluster, type StoreCluster } from './store-cluster.js';
import type { SyncPolicy } from './sync-policy.js';

// Each store's settings for a look at usage (`ferry status --usage`): which stores, and each one's cluster, budget and
// idle, from the flags, else the policy's `stores:`, else the defaults. Pure: the flags come parsed, checked before
// any request; a bad combination throws the one message that names it.

/** A store to look at, settled: where its pool is read, its budget if it has one, its idle. */
export interface StoreSettings {
  readonly store: string;
  readonly cluster: StoreCluster;
  readonly budget: Budget | undefined;
  readonly idleMs: number;
}

/**
 * The stores asked for: the `--store`s given (each once), else every store of the policy's `stores:` section.
 * `--budget` and `--pool` (`oneStore`, as given) are one store's: with more, the run is refused.
 */
export function usageStoreNames(given: readonly string[], policy: SyncPolicy | undefined,
  oneStore: { readonly budget?: string | undefined; readonly pool?: string | undefined }): readonly string[] {
  const names = given.length > 0 ? [...new Set(given)] : [...(policy?.stores.keys() ?? [])];
  if (names.length === 0) {
    throw new FerryError('FERRY_INVALID_OPTION', policy === undefined ? '--usage needs the stores to look at: --store STORE, or --policy FILE'
      : `the policy ${policy.source} has no stores: section, and no --store was given`,
    'Pass --store STORE (repeatable) with --ceph-conf FILE, or --policy FILE whose stores: section names each store\'s ceph_conf.', { option: 'store' });
  }
  for (const [flag, value] of [['budget', oneStore.budget], ['pool', oneStore.pool]] as const) {
    if (value !== undefined && names.length !== 1) {
      throw new FerryError('FERRY_INVALID_OPTION', `--${flag} is one store's, and ${names.length} stores are asked for (${names.join(', ')})`,
        `Give one --store with --${flag}, or set each store's ${flag} under the policy's stores: section.`, { option: flag });
    }
  }
  return names;
}

/** What the flags set for the stores: `budget` and `pool` one store's, `idleMs` every store's, `ceph` the configured cluster. */
export interface StoreSettingFlags {
  readonly budget?: Budget | undefined;
  readonly pool?: string | undefined;
  readonly idleMs?: number | undefined;
  readonly ceph: Partial<CephCluster>;
}

/**
 * Each store's settings: a store the policy names takes its cluster from there (its pool from `--pool` first), the
 * others the configured cluster (--ceph-conf/--rbd-user); the budget and idle are the flags', else the policy's, else
 * none and EVICT_DEFAULTS.idleMs. A store with no cluster to read is refused.
 */
export function usageStoreSettings(names: readonly string[], policy: SyncPolicy | undefined, flags: StoreSettingFlags): StoreSettings[] {
  return names.map((store): StoreSettings => {
    const settings = policy?.stores.get(store);
    const cluster = buildStoreCluster(settings?.cluster, flags.ceph, flags.pool);
    if (cluster === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', `store ${store} has no cluster to read: ${policy === undefined ? 'no --ceph-conf'
        : `the policy ${policy.source} gives it no ceph_conf, and no --ceph-conf`} was given`,
      `Pass --ceph-conf FILE (and --rbd-user: a user with profile rbd-read-only on every pool), or give ${store} a ceph_conf under the policy's stores:.`,
      { option: 'ceph-conf', store });
    }
    return { store, cluster, budget: flags.budget ?? settings?.budget, idleMs: flags.idleMs ?? settings?.idleMs ?? EVICT_DEFAULTS.idleMs };
  });
}
