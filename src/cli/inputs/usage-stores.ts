import { FerryError } from '../../errors/ferry-error.js';
import { parseBudget } from '../../fleet/store-budget.js';
import { EVICT_DEFAULTS } from '../../evict/evict-options.js';
import type { UsageStore } from '../../evict/read-usage.js';
import { buildStoreCluster } from '../../fleet/store-cluster.js';
import type { SyncPolicy } from '../../fleet/sync-policy.js';
import type { CommandContext } from '../command-spec.js';
import { budgetOfFlag, durationFlag, flagList, flagText } from './evict-flags.js';

/**
 * The stores `ferry status --usage` looks at, each with its cluster, budget and idle: every store of the policy's
 * `stores:` section, or the `--store`s given (a store the policy names takes its cluster and budget from there, the
 * others --ceph-conf/--rbd-user/--pool). `--budget` and `--pool` are one store's, `--idle` every store's. Checked
 * before any request.
 */
export function usageStoresFromFlags(ctx: Pick<CommandContext, 'flags' | 'config'>, policy: SyncPolicy | undefined): UsageStore[] {
  const given = flagList(ctx.flags.store);
  const names = given.length > 0 ? [...new Set(given)] : [...(policy?.stores.keys() ?? [])];
  if (names.length === 0) {
    throw new FerryError('FERRY_INVALID_OPTION', policy === undefined ? '--usage needs the stores to look at: --store STORE, or --policy FILE'
      : `the policy ${policy.source} has no stores: section, and no --store was given`,
    'Pass --store STORE (repeatable) with --ceph-conf FILE, or --policy FILE whose stores: section names each store\'s ceph_conf.', { option: 'store' });
  }
  const budget = flagText(ctx.flags.budget);
  const pool = flagText(ctx.flags.pool);
  for (const [flag, value] of [['budget', budget], ['pool', pool]] as const) {
    if (value !== undefined && names.length !== 1) {
      throw new FerryError('FERRY_INVALID_OPTION', `--${flag} is one store's, and ${names.length} stores are asked for (${names.join(', ')})`,
        `Give one --store with --${flag}, or set each store's ${flag} under the policy's stores: section.`, { option: flag });
    }
  }
  const of = budgetOfFlag(ctx);
  const flagBudget = budget === undefined ? undefined : parseBudget(budget, of);
  const idleMs = ctx.flags.idle === undefined ? undefined : durationFlag(ctx, 'idle', EVICT_DEFAULTS.idleMs);
  return names.map((store): UsageStore => {
    const settings = policy?.stores.get(store);
    const cluster = buildStoreCluster(settings?.cluster, ctx.config.ceph, pool);
    if (cluster === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', `store ${store} has no cluster to read: ${policy === undefined ? 'no --ceph-conf'
        : `the policy ${policy.source} gives it no ceph_conf, and no --ceph-conf`} was given`,
      `Pass --ceph-conf FILE (and --rbd-user: a user with profile rbd-read-only on every pool), or give ${store} a ceph_conf under the policy's stores:.`,
      { option: 'ceph-conf', store });
    }
    return { store, cluster, budget: flagBudget ?? settings?.budget, idleMs: idleMs ?? settings?.idleMs ?? EVICT_DEFAULTS.idleMs };
  });
}
