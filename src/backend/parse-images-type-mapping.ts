import { FerryError } from '../errors/ferry-error.js';
import { IMAGE_FORMATS, isImageFormat, payloadEncodingOf } from './image-formats.js';
import type { ImageFormat } from './image-formats.js';
import { IMAGES_TYPE_VALUES, STORAGE_BACKENDS, backendFor, isImagesTypeValue, sameDeclaredBackend, storedFormatOf } from './storage-backend.js';
import type { ImagesTypeValue, StorageBackend } from './storage-backend.js';

/** One `<source format>:<backend>` rule, as written (backend not yet resolved: `default` needs use_cow_images). */
export interface ImagesTypeMappingEntry {
  readonly source: ImageFormat;
  readonly backend: ImagesTypeValue;
  /** The entry as the operator wrote it, trimmed: quoted back in every message about it. */
  readonly text: string;
}

export interface ImagesTypeMapping {
  /** One entry per source format, in the order written. */
  readonly entries: readonly ImagesTypeMappingEntry[];
  /** Entries that repeated an earlier rule for the same source and backend; harmless, dropped, listed for a lint. */
  readonly duplicates: readonly string[];
}

const OPTION = 'images_type_mapping';
// Names that are only backends: a source must be something Glance can store as a disk_format.
const BACKEND_ONLY = new Set<string>(['flat', 'lvm', 'rbd', 'default']);

/**
 * Parse `[libvirt] images_type_mapping` (spec runtime-image-type: `<source image format>:<backend type>, …`).
 * Whitespace around entries and around the colon is ignored, an empty value is an empty mapping, and a trailing
 * comma is tolerated as oslo.config's ListOpt does; everything else that is not a clear rule throws
 * FERRY_INVALID_MAPPING naming the entry. `source` says where the value came from, for the message.
 */
export function parseImagesTypeMapping(value: string, source?: string): ImagesTypeMapping {
  const entries: ImagesTypeMappingEntry[] = [];
  const duplicates: string[] = [];
  const list = value.trim().replace(/,\s*$/, '');
  if (list === '') return { entries, duplicates };

  const parsed = list.split(',').map((raw, index) => {
    const text = raw.trim();
    if (text === '') {
      fail(`${OPTION} has an empty entry at position ${index + 1} in '${list}'`,
        'Remove the extra comma: entries are <source format>:<backend> separated by single commas.', source, { position: index + 1 });
    }
    return parseEntry(text, source);
  });
  // Ambiguity first, so 'qcow2:raw, qcow2:qcow2' is reported as the conflict it is, not as a conversion.
  for (const entry of parsed) {
    const earlier = entries.find((e) => e.source === entry.source);
    if (earlier === undefined) {
      entries.push(entry);
    } else if (sameDeclaredBackend(earlier.backend, entry.backend)) {
      duplicates.push(entry.text);
    } else {
      fail(`${OPTION} entry '${earlier.text}' conflicts with '${entry.text}': one backend per source format`,
        `Keep one rule for ${entry.source}: either '${earlier.text}' or '${entry.text}'.`, source,
        { entry: entry.text, conflictsWith: earlier.text });
    }
  }
  // `default` depends on use_cow_images; resolveBackendConfig checks it once that is known.
  for (const entry of entries) {
    if (entry.backend !== 'default') assertKeepsAsIs(entry, backendFor(entry.backend, false), source);
  }
  return { entries, duplicates };
}

function parseEntry(text: string, source: string | undefined): ImagesTypeMappingEntry {
  const parts = text.split(':').map((p) => p.trim());
  const [from, to] = parts;
  if (parts.length !== 2 || from === undefined || to === undefined || from === '' || to === '') {
    fail(`${OPTION} entry '${text}' is not of the form <source format>:<backend>`,
      "Write each rule as a Glance disk_format, a colon and a backend, e.g. 'raw:rbd, qcow2:qcow2'.", source, { entry: text });
  }
  if (!isImageFormat(from)) {
    const why = BACKEND_ONLY.has(from)
      ? `'${from}' is a storage backend, not an image format`
      : `'${from}' is not a Glance disk format${isImageFormat(from.toLowerCase()) ? ` (did you mean '${from.toLowerCase()}'?)` : ''}`;
    fail(`${OPTION} entry '${text}': ${why}`,
      `The left side is the image's disk_format, one of ${IMAGE_FORMATS.join(', ')}; the backend goes on the right.`,
      source, { entry: text });
  }
  if (!isImagesTypeValue(to)) {
    const suggestion = isImagesTypeValue(to.toLowerCase()) ? ` (did you mean '${to.toLowerCase()}'?)` : '';
    fail(`${OPTION} entry '${text}': '${to}' is not a libvirt image backend${suggestion}`,
      `The right side is one of ${IMAGES_TYPE_VALUES.join(', ')} (the values of [libvirt] images_type).`, source, { entry: text });
  }
  return { source: from, backend: to, text };
}

/**
 * A mapped format is used as-is (spec: only unmapped formats are converted), so the backend must store the
 * format's own encoding: raw-like images on flat/lvm/rbd, qcow2 on qcow2, ploop on ploop.
 */
export function assertKeepsAsIs(entry: ImagesTypeMappingEntry, backend: StorageBackend, source: string | undefined, resolvedFrom?: string): void {
  const encoding = payloadEncodingOf(entry.source);
  const stores = storedFormatOf(backend);
  if (encoding === stores) return;
  const able = STORAGE_BACKENDS.filter((b) => storedFormatOf(b) === encoding);
  const via = resolvedFrom === undefined ? '' : ` (${resolvedFrom})`;
  const hint = able.length > 0
    ? `Map ${entry.source} to a backend that stores ${encoding} (${able.join(', ')}), or leave ${entry.source} out so images_type converts it.`
    : `No libvirt backend stores ${encoding}; leave ${entry.source} out of the mapping so images_type converts it.`;
  fail(`${OPTION} entry '${entry.text}' would convert the image: the ${backend} backend${via} stores ${stores}, ${entry.source} images are ${encoding}; a mapping keeps the format as-is`,
    hint, source, { entry: entry.text, backend, stores, encoding });
}

function fail(message: string, hint: string, source: string | undefined, details: Readonly<Record<string, unknown>>): never {
  const where = source === undefined ? '' : ` (from ${source})`;
  throw new FerryError('FERRY_INVALID_MAPPING', `${message}${where}`, hint, { option: OPTION, ...details, ...(source === undefined ? {} : { source }) });
}
