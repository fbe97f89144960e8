import { parseDuration } from '../../clock/parse-duration.js';
import { FerryError } from '../../errors/ferry-error.js';
import { EVICT_DEFAULTS } from '../../evict/evict-options.js';
import type { BudgetBase } from '../../fleet/store-budget.js';
import type { CommandContext, OptionSpec } from '../command-spec.js';

// The budget and idle flags `ferry evict` and `ferry status --usage` share: one meaning, one message.

export const flagText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const flagList = (value: unknown): readonly string[] => (Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : []);

export const BUDGET_FLAGS: readonly OptionSpec[] = [
  { name: 'budget', value: 'BYTES|PERCENT', description: 'the pool may hold at most this: 500G, 1.5TiB, 750GB, or 80%' },
  { name: 'budget-of', value: 'pool|cluster', description: 'what a percentage --budget is of: the pool (its quota, else ceph df) or the cluster (default pool)' },
];

/** A duration flag in ms (`24h`, `7d`, `0`), or the fallback when it is not given. */
export function durationFlag(ctx: Pick<CommandContext, 'flags'>, name: string, fallbackMs: number): number {
  const value = flagText(ctx.flags[name]);
  return value === undefined ? fallbackMs : parseDuration(value, `--${name}`);
}

/** --budget-of: pool or cluster, and only with a percentage --budget. */
export function budgetOfFlag(ctx: Pick<CommandContext, 'flags'>): BudgetBase {
  const value = flagText(ctx.flags['budget-of']) ?? EVICT_DEFAULTS.budgetOf;
  if (value !== 'pool' && value !== 'cluster') {
    throw new FerryError('FERRY_INVALID_OPTION', `--budget-of must be pool or cluster, got '${value}'`,
      'pool: a percentage of the pool (its quota, else what ceph df says it can hold); cluster: of the cluster\'s capacity.', { option: 'budget-of' });
  }
  if (flagText(ctx.flags.budget)?.trim().endsWith('%') !== true && ctx.flags['budget-of'] !== undefined) {
    throw new FerryError('FERRY_INVALID_OPTION', '--budget-of goes with a percentage --budget (e.g. --budget 80%)',
      'Drop --budget-of, or give --budget as a percentage.', { option: 'budget-of' });
  }
  return value;
}
