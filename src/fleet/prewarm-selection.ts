import { FerryError } from '../errors/ferry-error.js';

/** Glance's `visibility` list filter values. */
export const VISIBILITIES = ['public', 'private', 'shared', 'community', 'all'] as const;

/**
 * Which images a prewarm (or a status matrix) covers: named images, or Glance list filters, or every image. The
 * modes do not mix: a list of names with a tag would leave it open whether the tag narrows or widens the list.
 */
export interface PrewarmSelection {
  /** Image IDs or unique names, in the order to copy them. */
  readonly images?: readonly string[];
  /** Images carrying this tag (Glance's `tag` filter). */
  readonly tag?: string;
  /** Images whose properties all have these values (Glance's `key=value` list filters). With `tag`: both must match. */
  readonly properties?: Readonly<Record<string, string>>;
  /** Every image the caller can see (paged through). */
  readonly all?: boolean;
  /** With `tag`, `properties` or `all`: Glance's visibility filter. Default: Glance's (public, own, shared-accepted). */
  readonly visibility?: string;
}

/** Reject empty or mixed selections before any request, naming the flags as the CLI spells them. */
export function assertSelection(selection: PrewarmSelection): void {
  const named = (selection.images ?? []).length > 0;
  const filtered = selection.tag !== undefined || Object.keys(selection.properties ?? {}).length > 0;
  const all = selection.all === true;
  const modes = [named, filtered, all].filter(Boolean).length;
  if (modes === 0) {
    throw new FerryError('FERRY_INVALID_OPTION', 'no images selected',
      'Name images (IMAGE...), or select them with --tag T / --property key=value, or take every image with --all.');
  }
  if (modes > 1) {
    throw new FerryError('FERRY_INVALID_OPTION',
      `images are selected in more than one way (${[named && 'IMAGE arguments', filtered && '--tag/--property', all && '--all'].filter(Boolean).join(', ')})`,
      'Use one of: IMAGE arguments, --tag/--property (which combine: all must match), or --all.');
  }
  if (selection.visibility !== undefined) {
    if (named) {
      throw new FerryError('FERRY_INVALID_OPTION', '--visibility filters a listing, but images were named',
        'Drop --visibility, or select with --tag/--property/--all.', { option: 'visibility' });
    }
    if (!(VISIBILITIES as readonly string[]).includes(selection.visibility)) {
      throw new FerryError('FERRY_INVALID_OPTION', `--visibility must be one of ${VISIBILITIES.join(', ')}, got '${selection.visibility}'`,
        'Pick one of the listed values.', { option: 'visibility' });
    }
  }
  for (const [key, value] of Object.entries(selection.properties ?? {})) {
    if (key === '' || value === '') {
      throw new FerryError('FERRY_INVALID_OPTION', `a property filter needs a key and a value, got '${key}=${value}'`,
        'Write --property key=value, e.g. --property os_distro=ubuntu.', { option: 'property' });
    }
  }
}

/** `--property k=v` values → a filter object; each value is split at its first '='. */
export function parsePropertyFilters(values: readonly string[]): Readonly<Record<string, string>> {
  const filters: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0 || at === value.length - 1) {
      throw new FerryError('FERRY_INVALID_OPTION', `--property must be key=value, got '${value}'`,
        'Write --property key=value, e.g. --property os_distro=ubuntu (repeat it: all must match).', { option: 'property' });
    }
    filters[value.slice(0, at)] = value.slice(at + 1);
  }
  return Object.freeze(filters);
}

/** A short phrase for logs and reports: "3 named images", "tag golden, os_distro=ubuntu", "every image". */
export function describeSelection(selection: PrewarmSelection): string {
  if ((selection.images ?? []).length > 0) return `${selection.images?.length} named image${selection.images?.length === 1 ? '' : 's'}`;
  const visibility = selection.visibility === undefined ? '' : ` (visibility ${selection.visibility})`;
  if (selection.all === true) return `every image${visibility}`;
  const parts = [
    ...(selection.tag === undefined ? [] : [`tag ${selection.tag}`]),
    ...Object.entries(selection.properties ?? {}).map(([key, value]) => `${key}=${value}`),
  ];
  return `${parts.join(', ')}${visibility}`;
}
