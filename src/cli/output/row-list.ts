import { FerryError } from '../../errors/ferry-error.js';

/** One cell of a list: what a row table, `-f value` or `-f csv` can print as it is. */
export type RowValue = string | number | boolean | null;

/** A column of a list: its JSON key (the field name in `--json` and `-f json`) and the header a table shows. */
export interface RowColumn {
  readonly key: string;
  readonly header: string;
}

/**
 * A command's report as rows, as the openstack CLI's list commands print them (`-f value|csv|table|json|yaml`,
 * `-c COLUMN`). Each row holds a value for every column's key.
 */
export interface RowList {
  readonly columns: readonly RowColumn[];
  readonly rows: readonly Readonly<Record<string, RowValue>>[];
}

/** `Read Only`, `read_only`, `READ-ONLY` and `read only` are one column name. */
function columnName(text: string): string {
  return text.trim().toLowerCase().replace(/[\s_-]+/g, '_');
}

/**
 * The columns `-c` asks for, in the order asked (all of them when none). A name matches a column's header (as the
 * openstack CLI matches) or its JSON key, in any case, with spaces, `-` and `_` alike. An unknown name is refused
 * with the columns there are.
 */
export function selectRowColumns(list: RowList, requested: readonly string[]): readonly RowColumn[] {
  if (requested.length === 0) return list.columns;
  const found = requested.map((name) => list.columns.find((column) => columnName(column.key) === columnName(name)
    || columnName(column.header) === columnName(name)));
  const unknown = requested.filter((_, index) => found[index] === undefined);
  if (unknown.length > 0) {
    throw new FerryError('FERRY_INVALID_OPTION', `no column ${unknown.map((c) => `'${c}'`).join(', ')} in this list (from -c)`,
      `Columns: ${list.columns.map(describeColumn).join(', ')}. -c takes the header or the JSON key, in any case.`,
      { option: 'column', unknown, columns: list.columns.map((column) => column.key) });
  }
  return found.filter((column): column is RowColumn => column !== undefined);
}

function describeColumn(column: RowColumn): string {
  return columnName(column.header) === columnName(column.key) ? column.header : `${column.header} (${column.key})`;
}

/** A cell as plain text: null is empty, as `-f value` and `-f csv` print it. */
export function cellText(value: RowValue | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}
