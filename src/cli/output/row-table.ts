import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { fitColumnWidths } from './fit-column-widths.js';

/**
 * A row table as the openstack CLI draws one (`+---+` rules, `| a | b |` lines) that fits `width` terminal cells:
 * the widest columns are narrowed (fitColumnWidths, which keeps words of up to 16 cells whole where the room allows)
 * and their cells wrapped, at spaces where it can, inside words where it must. Widths are terminal cells, not string length: a CJK character or an emoji takes two (string-width).
 * Loaded only when a table is printed.
 */
export function rowTable(headers: readonly string[], rows: readonly (readonly string[])[], width: number): string {
  const columns = headers.map((header, column) => [header, ...rows.map((row) => row[column] ?? '')]);
  const widths = fitColumnWidths(columns.map((cells) => Math.max(...cells.map(cellWidth))), width,
    columns.map((cells) => Math.max(...cells.map(longestWordWidth))));
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const body = rows.flatMap((row) => tableLines(row, widths));
  return [rule, ...tableLines(headers, widths), rule, ...body, ...(rows.length > 0 ? [rule] : [])].join('\n');
}

function longestWordWidth(text: string): number {
  return Math.max(0, ...text.split(/\s+/).map((word) => stringWidth(word)));
}

function cellWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map((line) => stringWidth(line)));
}

/** One row as the lines it takes once each cell is wrapped to its column. */
function tableLines(cells: readonly string[], widths: readonly number[]): string[] {
  const wrapped = widths.map((width, column) => wrapAnsi(cells[column] ?? '', width, { hard: true }).split('\n'));
  const height = Math.max(1, ...wrapped.map((lines) => lines.length));
  return Array.from({ length: height }, (_, line) => `| ${widths.map((width, column) => pad(wrapped[column]?.[line] ?? '', width)).join(' | ')} |`);
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}
