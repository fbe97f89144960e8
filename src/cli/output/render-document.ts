import { FerryError } from '../../errors/ferry-error.js';
import type { RowList } from './row-list.js';
import { jsonText, yamlText } from './machine-text.js';

/**
 * A command's JSON document (its `toJson`) in the format asked for with `-f`: json and yaml as they are, `value` as
 * bare values one per line (objects and arrays as compact JSON). `-c` keeps only the named top-level fields, in the
 * order given (selectFields); `-f table` draws the fields as rows (documentFieldRows).
 */
export function renderDocument(document: unknown, format: 'json' | 'yaml' | 'value', columns: readonly string[]): string {
  const data = selectFields(document, columns);
  switch (format) {
    case 'json':
      return jsonText(data);
    case 'yaml':
      return yamlText(data);
    case 'value':
      return isRecord(data) ? Object.values(data).map(valueText).join('\n') : valueText(data);
  }
}

/** The named top-level fields of the document, in the order given; an unknown one is refused with the fields there are. */
export function selectFields(document: unknown, columns: readonly string[]): unknown {
  if (columns.length === 0) return document;
  if (!isRecord(document)) {
    throw new FerryError('FERRY_INVALID_OPTION', '-c selects fields of a JSON object, and this output is not one',
      'Leave out -c.', { option: 'column' });
  }
  const unknown = columns.filter((column) => !Object.hasOwn(document, column));
  if (unknown.length > 0) {
    throw new FerryError('FERRY_INVALID_OPTION', `no column ${unknown.map((c) => `'${c}'`).join(', ')} in this output`,
      `Columns: ${Object.keys(document).join(', ')}.`, { option: 'column', unknown });
  }
  return Object.fromEntries(columns.map((column) => [column, document[column]]));
}

/** A document's fields as `Field | Value` rows, as `openstack … show -f table` prints one object. */
export function documentFieldRows(data: unknown): RowList {
  const entries = isRecord(data) ? Object.entries(data) : [['value', data] as const];
  return {
    columns: [{ key: 'field', header: 'Field' }, { key: 'value', header: 'Value' }],
    rows: entries.map(([field, value]) => ({ field, value: valueText(value) })),
  };
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
