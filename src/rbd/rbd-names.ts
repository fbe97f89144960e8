import type { RbdLocation } from './parse-rbd-location.js';

// The names ferry gives the rbd CLI (pool, image, snapshot), checked once where they enter: a Glance location's parts
// (percent-decoded, so anything a writer of locations chose), the pool Glance names for a store, the image id. Every
// rbd command also puts `--` before its specs (rbd-image-commands.ts, rbd-streams.ts); this check keeps out what `--`
// cannot: a name rbd would split differently from what ferry meant.

export type RbdNameKind = 'pool' | 'image' | 'snapshot';

/**
 * Why `name` is not a name ferry passes to rbd, or undefined. What rbd 16 accepts in its specs, less what could be read
 * as something else: not empty; no `/` or `@` (the spec's separators: `pool/image@snapshot`, which `rbd create` and
 * `rbd rename` refuse in names too); no control character (a newline splits a log line or a message); no leading `-`
 * (an option to rbd, such as `--keyring=` or `--log_file=`, wherever `--` is missing).
 */
export function rbdNameProblem(kind: RbdNameKind, name: string): string | undefined {
  const shown = `${kind} ${showName(name)}`;
  if (name === '') return `${kind} name is empty`;
  if (name.startsWith('-')) return `${shown} starts with '-' (rbd would read it as an option)`;
  if (/[/@]/.test(name)) return `${shown} contains '/' or '@' (rbd reads them as pool/image@snapshot separators)`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return `${shown} contains a control character`;
  return undefined;
}

/** The first problem of a location's pool, image and snapshot names, or undefined. */
export function rbdLocationNameProblem(location: Pick<RbdLocation, 'pool' | 'image' | 'snapshot'>): string | undefined {
  return rbdNameProblem('pool', location.pool) ?? rbdNameProblem('image', location.image) ?? rbdNameProblem('snapshot', location.snapshot);
}

/** A name quoted for a message, its control characters escaped (a message shows them, never carries them). */
function showName(name: string): string {
  // eslint-disable-next-line no-control-regex -- escaped for display
  return `'${name.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}
