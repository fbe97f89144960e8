import { FerryError } from '../../errors/ferry-error.js';

/** How the report goes to stdout: the command's own text (default), or the openstack CLI's `-f` formatters. */
export type OutputFormat = 'text' | 'json' | 'yaml' | 'value' | 'table';
export const OUTPUT_FORMATS = ['json', 'yaml', 'value', 'table'] as const;

export interface OutputChoice {
  readonly format: OutputFormat;
  /** `-c COLUMN` (repeatable): only these top-level fields, in this order. Empty = all. */
  readonly columns: readonly string[];
  /** The arguments without the output flags, for the command's own parser. */
  readonly rest: readonly string[];
}

/**
 * Takes `--json`, `-f/--format FORMAT` and `-c/--column COLUMN` out of the arguments, as the openstack CLI spells
 * them (`-f json`, `--format=yaml`, `-c id -c name`). `--json` is `-f json`. Read before anything else, so even a
 * failure to parse the rest of the command line is reported in the format asked for.
 */
export function parseOutputFormat(argv: readonly string[]): OutputChoice {
  let format: OutputFormat = 'text';
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
    } else if (name === '-f' || name === '--format' || name === '-c' || name === '--column') {
      const value = inline ?? argv[i + 1];
      if (inline === undefined) i += 1;
      if (value === undefined || value === '') {
        throw new FerryError('FERRY_INVALID_OPTION', `${name} needs a value`,
          name.startsWith('-f') || name === '--format' ? `Pass ${name} ${OUTPUT_FORMATS.join('|')}.` : `Pass ${name} COLUMN (a field of the JSON output).`,
          { option: name.replace(/^-+/, '') });
      }
      if (name === '-c' || name === '--column') {
        columns.push(value);
      } else if ((OUTPUT_FORMATS as readonly string[]).includes(value)) {
        format = value as OutputFormat;
      } else {
        throw new FerryError('FERRY_INVALID_OPTION', `unknown output format '${value}' (from ${name})`,
          `Pass ${name} ${OUTPUT_FORMATS.join('|')}, or leave it out for the command's own text.`, { option: 'format', value });
      }
    } else {
      rest.push(arg);
    }
  }
  // `-c` alone picks columns of the JSON document's fields: it implies a machine format, as in the openstack CLI
  // (whose default there is a table).
  if (columns.length > 0 && format === 'text') format = 'table';
  return { format, columns, rest };
}

/** Formats whose stdout is one machine-readable document, also for errors. */
export function isDocumentFormat(format: OutputFormat): format is 'json' | 'yaml' {
  return format === 'json' || format === 'yaml';
}
