import { prewarmToJson } from '../../contract/prewarm-document.js';
import type { PrewarmReport } from '../../fleet/prewarm-report.js';
import type { RowColumn, RowList } from '../output/row-list.js';

// `ferry prewarm` and `ferry sync` as rows (-f value|csv|table|json|yaml): the --json document's items
// (contract/prewarm-document.ts).

/** `ferry prewarm` (and `ferry sync`) as rows: one per (image, store), the fields of `--json`'s `items`. */
export const PREWARM_COLUMNS: readonly RowColumn[] = [
  { key: 'image', header: 'Image' }, { key: 'name', header: 'Name' }, { key: 'store', header: 'Store' },
  { key: 'planned', header: 'Planned' }, { key: 'action', header: 'Action' }, { key: 'outcome', header: 'Outcome' },
  { key: 'failure', header: 'Failure' }, { key: 'skip_reason', header: 'Skip Reason' }, { key: 'code', header: 'Code' },
  { key: 'reason', header: 'Reason' }, { key: 'seconds', header: 'Seconds' }, { key: 'task', header: 'Task' },
  { key: 'running_in_glance', header: 'Running In Glance' },
];

export function prewarmToRows(report: PrewarmReport | undefined): RowList {
  // `transfer` stays in --json: a 14th column would not fit a row table into 80 cells.
  return { columns: PREWARM_COLUMNS, rows: report === undefined ? [] : prewarmToJson(report).items.map(({ transfer: _transfer, ...row }) => row) };
}
