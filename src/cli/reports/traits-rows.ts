import type { TraitsCommandReport } from '../../traits/traits-command-report.js';
import type { RowColumn, RowList } from '../output/row-list.js';

export const TRAIT_COLUMNS: readonly RowColumn[] = [{ key: 'trait', header: 'Trait' }, { key: 'reason', header: 'Reason' }];

/** `ferry traits` as rows: one per trait the host has, with what produced it (unmapped values are only in `--json`). */
export function traitsToRows({ report }: TraitsCommandReport): RowList {
  return {
    columns: TRAIT_COLUMNS,
    rows: report.traits.map((trait) => ({ trait, reason: report.reasons[trait] ?? null })),
  };
}
