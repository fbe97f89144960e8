import { jsonText, yamlText } from './machine-text.js';
import { cellText, selectRowColumns, type RowList } from './row-list.js';
import { renderCsv } from './render-csv.js';

export type RowFormat = 'json' | 'yaml' | 'value' | 'csv' | 'table';

/**
 * A list in an openstack CLI format, with only the `-c` columns: `json`/`yaml` an array of row objects keyed by the
 * JSON keys, `value` each row's fields separated by a space, `csv` with a header line, `table` a row table that fits
 * `width` terminal cells. Headers are the columns' own (`ID`, `Read Only`), as osc prints them.
 */
export async function renderRows(list: RowList, format: RowFormat, columns: readonly string[], width: number): Promise<string> {
  const selected = selectRowColumns(list, columns);
  if (format === 'json' || format === 'yaml') {
    const objects = list.rows.map((row) => Object.fromEntries(selected.map((column) => [column.key, row[column.key] ?? null])));
    return format === 'json' ? jsonText(objects) : (objects.length === 0 ? '[]' : yamlText(objects));
  }
  const headers = selected.map((column) => column.header);
  const cells = list.rows.map((row) => selected.map((column) => cellText(row[column.key])));
  switch (format) {
    case 'value':
      return cells.map((fields) => fields.join(' ')).join('\n');
    case 'csv':
      return renderCsv(headers, cells);
    case 'table': {
      // string-width and wrap-ansi load only when a table is printed.
      const { rowTable } = await import('./row-table.js');
      return rowTable(headers, cells, width);
    }
  }
}
