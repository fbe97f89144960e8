import { FerryError } from '../../errors/ferry-error.js';

/** How the report goes to stdout: the command's own text (default), or the openstack CLI's `-f` formatters. */
export type OutputFormat = 'text' | 'json' | 'yaml' | 'value' | 'csv' | 'table';
export const OUTPUT_FORMATS = ['json', 'yaml', 'value', 'csv', 'table'] as const;

export interface OutputChoice {
  readonly format: OutputFormat;
  /** `-c COLUMN` (repeatable): only these columns of a list (or top-level fields of a document), in this order. Empty = all. */
  readonly columns: readonly string[];
  /** The format came from `--json`: the command's whole document, also for a list (whose `-f json` prints rows). */
  readonly wholeDocument: boolean;
  /** The arguments without the output flags, for the command's own parser. */
  readonly rest: readonly string[];
}

/**
 * Takes `--json`, `-f/--format FORMAT` and `-c/--column COLUMN` out of the arguments, as the openstack CLI spells
 * them (`-f json`, `--format=yaml`, `-c id -c name`). `--json` is the document as JSON (on a list `-f json` is its rows);
 * the last of `--json` and `-f` wins. Read before anything else, so even a
 * failure to parse the rest of the command line is reported in the format asked for.
 */
export function parseOutputFormat(argv: readonly string[]): OutputChoice {
  let format: OutputFormat = 'text';
  let wholeDocument = false;
  const columns: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name === '--json') {
      format = 'json';
      wholeDocument = true;
    } else if (name === '-f' || name === '--format' || name === '-c' || name === '--column') {
      const value = inline ?? argv[i + 1];
      if (inline === undefined) i += 1;
      if (value === undefined || value === '') {
        throw new FerryError('FERRY_INVALID_OPTION', `${name} needs a value`,
          name.startsWith('-f') || name === '--format' ? `Pass ${name} ${OUTPUT_FORMATS.join('|')}.` : `Pass ${name} COLUMN (a column of the list, or a field of the JSON output).`,
          { option: name.replace(/^-+/, '') });
      }
      if (name === '-c' || name === '--column') {
        columns.push(value);
      } else if ((OUTPUT_FORMATS as readonly string[]).includes(value)) {
        format = value as OutputFormat;
        wholeDocument = false;
      } else {
        throw new FerryError('FERRY_INVALID_OPTION', `unknown output format '${value}' (from ${name})`,
          `Pass ${name} ${OUTPUT_FORMATS.join('|')}, or leave it out for the command's own text.`, { option: 'format', value });
      }
    } else {
      rest.push(arg);
    }
  }
  // `-c` alone picks columns: it implies a machine format, as in the openstack CLI (whose default there is a table).
  if (columns.length > 0 && format === 'text') format = 'table';
  return { format, columns, wholeDocument, rest };
}

/** Formats whose stdout is one machine-readable document, also for errors. */
export function isDocumentFormat(format: OutputFormat): format is 'json' | 'yaml' {
  return format === 'json' || format === 'yaml';
}

/** `-f csv` on a command that prints one object: refused before it runs (an `ensure` would copy first). */
export function assertListFormat(format: OutputFormat, command: string, printsLists: boolean): void {
  if (format === 'csv' && !printsLists) throw csvOnObjectError(command);
}

export function csvOnObjectError(command: string): FerryError {
  return new FerryError('FERRY_INVALID_OPTION', `-f csv prints lists, and ferry ${command} prints one object`,
    'Use -f json, yaml, value or table here; csv works on ferry stores, status --matrix, traits, prewarm and sync.',
    { option: 'format', value: 'csv' });
}
