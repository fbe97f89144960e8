import { usageToJson } from '../../contract/usage-document.js';
import type { UsageReport } from '../../evict/read-usage.js';
import type { RowColumn, RowList } from '../output/row-list.js';

// `ferry status --usage -f value|csv|table|json|yaml`: its --json document (contract/usage-document.ts) as rows.

/** `ferry status --usage -f value|csv|table`: one row per copy (image × store). */
export const USAGE_COLUMNS: readonly RowColumn[] = [
  { key: 'image', header: 'Image' }, { key: 'name', header: 'Name' }, { key: 'store', header: 'Store' }, { key: 'bytes', header: 'Bytes' },
  { key: 'clones', header: 'Clones' }, { key: 'last_used', header: 'Last Used' }, { key: 'last_use', header: 'Last Use' },
  { key: 'locations', header: 'Locations' }, { key: 'pinned', header: 'Pinned' }, { key: 'pin_ignored', header: 'Pin Ignored' },
  { key: 'owner', header: 'Owner' }, { key: 'not_owned', header: 'Not Owned' },
];

export function usageToRows(report: UsageReport): RowList {
  return { columns: USAGE_COLUMNS, rows: usageToJson(report).copies.map((copy) => ({ image: copy.image, name: copy.name, store: copy.store,
    bytes: copy.bytes, clones: copy.clones, last_used: copy.last_used, last_use: copy.last_use, locations: copy.locations, pinned: copy.pinned,
    pin_ignored: copy.pin_ignored, owner: copy.owner, not_owned: copy.not_owned })) };
}
