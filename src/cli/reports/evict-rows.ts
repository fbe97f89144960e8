import { evictToJson } from '../../contract/evict-document.js';
import type { EvictReport } from '../../fleet/evict-report.js';
import type { RowColumn, RowList } from '../output/row-list.js';

// `ferry evict -f value|csv|table|json|yaml`: its --json document (contract/evict-document.ts) as rows.

/** `ferry evict -f value|csv|table`: one row per copy. */
export const EVICT_COLUMNS: readonly RowColumn[] = [
  { key: 'image', header: 'Image' }, { key: 'name', header: 'Name' }, { key: 'store', header: 'Store' }, { key: 'bytes', header: 'Bytes' },
  { key: 'last_used', header: 'Last Used' }, { key: 'clones', header: 'Clones' }, { key: 'action', header: 'Action' },
  { key: 'reason', header: 'Reason' }, { key: 'outcome', header: 'Outcome' }, { key: 'detail', header: 'Detail' },
];

export function evictToRows(report: EvictReport): RowList {
  return { columns: EVICT_COLUMNS, rows: evictToJson(report).copies.map((copy) => ({ image: copy.image, name: copy.name, store: copy.store,
    bytes: copy.bytes, last_used: copy.last_used, clones: copy.clones, action: copy.action, reason: copy.outcome_reason ?? copy.reason,
    outcome: copy.outcome, detail: copy.outcome_detail ?? copy.detail })) };
}
