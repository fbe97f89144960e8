import { csvOnObjectError, type OutputChoice } from './output-format.js';
import { documentFieldRows, renderDocument, selectFields } from './render-document.js';
import type { RowList } from './row-list.js';
import { renderRows } from './render-rows.js';
import { terminalSafe } from './terminal-text.js';

export interface OutputRequest {
  /** The command's name, for messages. */
  readonly command: string;
  /** The command's JSON document (its `toJson`). */
  readonly document: unknown;
  /** The report as rows, for a list command (undefined for one object, such as `status IMAGE`). */
  readonly rows: RowList | undefined;
  readonly choice: Pick<OutputChoice, 'format' | 'columns' | 'wholeDocument'>;
  /** Terminal cells a table may take (resolveTableWidth). */
  readonly width: number;
  /** stdout is a terminal: `-f value` and `-f csv` then show the services' controls escaped, as a table always does. */
  readonly terminal: boolean;
}

/**
 * A report in a machine format. A list prints its rows (`-f value|csv|table|json|yaml`, `-c` picks columns), as the
 * openstack CLI's list commands do; `--json` keeps the command's whole document, where `-c` picks top-level fields,
 * so scripts written against it see no change. One object prints its document.
 */
export async function renderOutput(request: OutputRequest): Promise<string> {
  const { format, columns } = request.choice;
  if (format === 'text') throw new Error('renderOutput: text is the command\'s own render');
  // A table is for people; value and csv feed programs, exact, unless a person is looking. JSON and YAML escape
  // controls losslessly in any case (renderDocument, renderRows).
  const forPeople = format === 'table' || (request.terminal && (format === 'value' || format === 'csv'));
  const { command, choice, width } = request;
  const [document, rows] = forPeople ? [terminalSafe(request.document), terminalSafe(request.rows)] : [request.document, request.rows];
  if (rows !== undefined && !choice.wholeDocument) return renderRows(rows, format, columns, width);
  // A list command that printed one object (`status IMAGE`) finds out only now.
  if (format === 'csv') throw csvOnObjectError(command);
  if (format === 'table') return renderRows(documentFieldRows(selectFields(document, columns)), 'table', [], width);
  return renderDocument(document, format, columns);
}
