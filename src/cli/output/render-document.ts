import { stringify } from 'yaml';
import { FerryError } from '../../errors/ferry-error.js';
import type { OutputFormat } from './output-format.js';

/**
 * A command's JSON document (its `toJson`) in the format asked for with `-f`: json and yaml as they are, `value` as
 * bare values one per line (objects and arrays as compact JSON), `table` as field | value rows. `-c` keeps only the
 * named top-level fields, in the order given; an unknown one is refused with the list of fields there are.
 */
export function renderDocument(document: unknown, format: Exclude<OutputFormat, 'text'>, columns: readonly string[]): string {
  const data = selectColumns(document, columns);
  switch (format) {
    case 'json':
      return JSON.stringify(data, null, 2);
    case 'yaml':
      return stringify(data).trimEnd();
    case 'value':
      return isRecord(data) ? Object.values(data).map(valueText).join('\n') : valueText(data);
    case 'table':
      return isRecord(data) ? fieldTable(data) : valueText(data);
  }
}

function selectColumns(document: unknown, columns: readonly string[]): unknown {
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

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function fieldTable(data: Readonly<Record<string, unknown>>): string {
  const rows = Object.entries(data).map(([field, value]) => [field, valueText(value)] as const);
  const fieldWidth = Math.max('Field'.length, ...rows.map(([field]) => field.length));
  const valueWidth = Math.max('Value'.length, ...rows.map(([, value]) => value.length));
  const rule = `+-${'-'.repeat(fieldWidth)}-+-${'-'.repeat(valueWidth)}-+`;
  const line = (field: string, value: string): string => `| ${field.padEnd(fieldWidth)} | ${value.padEnd(valueWidth)} |`;
  return [rule, line('Field', 'Value'), rule, ...rows.map(([field, value]) => line(field, value)), rule].join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
