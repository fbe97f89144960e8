import { parseBudget } from '../../fleet/store-budget.js';
import { EVICT_DEFAULTS } from '../../evict/evict-options.js';
import type { UsageStore } from '../../evict/read-usage.js';
import { usageStoreNames, usageStoreSettings } from '../../fleet/store-settings.js';
import type { SyncPolicy } from '../../fleet/sync-policy.js';
import type { CommandContext } from '../command-spec.js';
import { budgetOfFlag, durationFlag, flagList, flagText } from './evict-flags.js';

/**
 * The stores `ferry status --usage` looks at, each with its cluster, budget and idle: the flags parsed, in the order
 * their checks run, and handed to fleet/store-settings, which decides the stores and merges each one's settings with
 * the policy's `stores:`. Checked before any request.
 */
export function usageStoresFromFlags(ctx: Pick<CommandContext, 'flags' | 'config'>, policy: SyncPolicy | undefined): UsageStore[] {
  const budget = flagText(ctx.flags.budget);
  const pool = flagText(ctx.flags.pool);
  const names = usageStoreNames(flagList(ctx.flags.store), policy, { budget, pool });
  const of = budgetOfFlag(ctx);
  return usageStoreSettings(names, policy, {
    budget: budget === undefined ? undefined : parseBudget(budget, of),
    idleMs: ctx.flags.idle === undefined ? undefined : durationFlag(ctx, 'idle', EVICT_DEFAULTS.idleMs),
    pool, ceph: ctx.config.ceph,
  });
}
