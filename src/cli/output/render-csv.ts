/**
 * Rows as CSV (RFC 4180 quoting, cliff's `--quote minimal`): a field is quoted only when it holds a comma, a double
 * quote (doubled inside) or a line break. Lines end in `\n`, as cliff writes them on Linux.
 */
export function renderCsv(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return [headers, ...rows].map((fields) => fields.map(csvField).join(',')).join('\n');
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
