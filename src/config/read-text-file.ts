import { readFileSync } from 'node:fs';
import { FerryError } from '../errors/ferry-error.js';

/** Errors that mean "this candidate is not there for us": the search moves on, as openstacksdk's does. */
const ABSENT_CODES = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM']);

/** resolveConfig's default file reader: the text, or undefined when the file is missing or unreadable. */
export function readTextFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && ABSENT_CODES.has(code)) return undefined;
    throw new FerryError('FERRY_INVALID_CONFIG', `cannot read ${path}: ${code ?? String(error)}`,
      'Check the file and its permissions.', { path, code }, { cause: error });
  }
}
