import type { MatrixCell, StoreMatrix } from '../../prewarm/store-matrix.js';
import type { RowColumn, RowList, RowValue } from '../output/row-list.js';
import type { TextStyle } from '../output/text-style.js';
import type { UnresolvedCode } from '../../fleet/select-images.js';
import { table } from './prewarm.js';

/** The text's word for an unresolved name: a name two images carry is not "not found". */
const UNRESOLVED_WORDS: Readonly<Record<UnresolvedCode, string>> = {
  FERRY_IMAGE_NOT_FOUND: 'not found', FERRY_IMAGE_AMBIGUOUS: 'ambiguous', FERRY_INVALID_IMAGE_REF: 'not an image reference',
};

const MATRIX_IMAGE_COLUMNS: readonly RowColumn[] = [
  { key: 'image', header: 'Image' }, { key: 'name', header: 'Name' }, { key: 'status', header: 'Status' },
  { key: 'disk_format', header: 'Disk Format' },
];

/**
 * `ferry status --matrix` as rows: one per image found, then a column per store named as the store (`store:NAME` when
 * the name is one of the image columns). Names that did not resolve are only in `--json`'s `unresolved`.
 */
export function matrixToRows(matrix: StoreMatrix): RowList {
  const taken = new Set(MATRIX_IMAGE_COLUMNS.map((column) => column.key));
  const storeKeys = matrix.stores.map((store) => (taken.has(store.toLowerCase()) ? `store:${store}` : store));
  return {
    columns: [...MATRIX_IMAGE_COLUMNS, ...matrix.stores.map((store, index) => ({ key: storeKeys[index] ?? store, header: store }))],
    rows: matrix.rows.map((row) => Object.fromEntries<RowValue>([['image', row.imageId], ['name', row.imageName], ['status', row.status],
      ['disk_format', row.diskFormat], ...matrix.stores.map((store, index) => [storeKeys[index] ?? store, row.cells[store] ?? 'missing'] as const)])),
  };
}

/** images × stores, one word per cell, coloured on a TTY. */
export function renderMatrix(matrix: StoreMatrix, style: TextStyle): string {
  const paint: Readonly<Record<MatrixCell, (text: string) => string>> = {
    present: (t) => style.good(t), copying: (t) => style.warn(t), failed: (t) => style.bad(t), missing: (t) => style.dim(t),
  };
  const rows = matrix.rows.map((row) => [
    row.imageName ?? '(no name)', row.imageId, row.status === 'active' ? row.diskFormat ?? '?' : style.warn(row.status),
    ...matrix.stores.map((store) => {
      const cell = row.cells[store] ?? 'missing';
      return paint[cell](cell);
    }),
  ]);
  const c = matrix.counts;
  const lines = [
    table(['image', 'id', 'format', ...matrix.stores], rows),
    '',
    style.dim(`${matrix.rows.length} image${matrix.rows.length === 1 ? '' : 's'} × ${matrix.stores.length} stores: `
      + `${c.present} present, ${c.copying} copying, ${c.failed} failed, ${c.missing} missing`),
  ];
  for (const u of matrix.unresolved) lines.push(style.bad(`${UNRESOLVED_WORDS[u.code]}: ${u.ref}: ${u.reason}`));
  return lines.join('\n');
}
