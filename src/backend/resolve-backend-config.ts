import { FerryError } from '../errors/ferry-error.js';
import type { ImageFormat } from './image-formats.js';
import { assertKeepsAsIs, parseImagesTypeMapping } from './parse-images-type-mapping.js';
import type { ImagesTypeMappingEntry } from './parse-images-type-mapping.js';
import { IMAGES_TYPE_VALUES, backendFor, isImagesTypeValue } from './storage-backend.js';
import type { ImagesTypeValue, StorageBackend } from './storage-backend.js';

export interface BackendConfigInput {
  /** `[libvirt] images_type`; default BACKEND_DEFAULTS.imagesType. */
  readonly imagesType?: string;
  /** `[libvirt] images_type_mapping`; default empty. */
  readonly imagesTypeMapping?: string;
  /** `[DEFAULT] use_cow_images`; decides what `default` means. */
  readonly useCowImages?: boolean;
  /** Where the values came from (`nova.conf`, `--images-type-mapping`), quoted in error messages. */
  readonly source?: string;
}

/** nova's own defaults: `images_type = default`, `use_cow_images = True`, and no mapping. */
export const BACKEND_DEFAULTS = { imagesType: 'default', imagesTypeMapping: '', useCowImages: true } as const;

/** A host's storage-backend configuration, validated and resolved: nothing below it sees `default` again. */
export interface BackendConfig {
  /** The backend images_type names, resolved (`raw` → flat, `default` → qcow2 or flat). */
  readonly imagesType: StorageBackend;
  /** images_type as configured, for messages. */
  readonly imagesTypeDeclared: ImagesTypeValue;
  readonly useCowImages: boolean;
  /** Source format → resolved backend, for the formats the mapping names. */
  readonly mapping: ReadonlyMap<ImageFormat, StorageBackend>;
  /** The mapping's rules as written, in order. */
  readonly entries: readonly ImagesTypeMappingEntry[];
  /** Exact repeats that were dropped. */
  readonly duplicates: readonly string[];
}

/** Validate images_type, images_type_mapping and use_cow_images together; FERRY_INVALID_MAPPING on any fault. */
export function resolveBackendConfig(input: BackendConfigInput): BackendConfig {
  const useCowImages = input.useCowImages ?? BACKEND_DEFAULTS.useCowImages;
  const declared = input.imagesType?.trim() ?? BACKEND_DEFAULTS.imagesType;
  if (!isImagesTypeValue(declared)) {
    const where = input.source === undefined ? '' : ` (from ${input.source})`;
    throw new FerryError('FERRY_INVALID_MAPPING', `images_type '${declared}' is not a libvirt image backend${where}`,
      `Set [libvirt] images_type to one of ${IMAGES_TYPE_VALUES.join(', ')}.`,
      { option: 'images_type', value: declared, ...(input.source === undefined ? {} : { source: input.source }) });
  }
  const parsed = parseImagesTypeMapping(input.imagesTypeMapping ?? BACKEND_DEFAULTS.imagesTypeMapping, input.source);
  const mapping = new Map<ImageFormat, StorageBackend>();
  for (const entry of parsed.entries) {
    const backend = backendFor(entry.backend, useCowImages);
    if (entry.backend === 'default') {
      assertKeepsAsIs(entry, backend, input.source, `default with use_cow_images=${String(useCowImages)}`);
    }
    mapping.set(entry.source, backend);
  }
  return Object.freeze({
    imagesType: backendFor(declared, useCowImages),
    imagesTypeDeclared: declared,
    useCowImages,
    mapping,
    entries: parsed.entries,
    duplicates: parsed.duplicates,
  });
}
