import { FerryError } from '../errors/ferry-error.js';
import { IMAGE_FORMATS, isImageFormat, payloadEncodingOf } from './image-formats.js';
import type { BackendChoice } from './backend-choice.js';
import type { BackendConfig } from './resolve-backend-config.js';
import { storedFormatOf } from './storage-backend.js';

export type { BackendChoice } from './backend-choice.js';

/**
 * Choose the backend for an image of `diskFormat`: the mapped backend when the format is mapped (kept as-is by
 * construction, see parseImagesTypeMapping), otherwise images_type, converting when that backend stores another
 * encoding. An unknown disk_format throws FERRY_INVALID_OPTION: no backend can be chosen for it.
 */
export function selectBackend(diskFormat: string, config: BackendConfig): BackendChoice {
  if (!isImageFormat(diskFormat)) {
    throw new FerryError('FERRY_INVALID_OPTION',
      `disk_format '${diskFormat}' is not a Glance disk format, so no storage backend can be chosen for it`,
      `Check the image's disk_format; Glance formats are ${IMAGE_FORMATS.join(', ')}.`, { diskFormat });
  }
  const mapped = config.mapping.get(diskFormat);
  if (mapped !== undefined) {
    const entry = config.entries.find((e) => e.source === diskFormat);
    const written = entry !== undefined && entry.backend !== mapped ? ` ('${entry.text}'${entry.backend === 'default' ? `, use_cow_images=${String(config.useCowImages)}` : ''})` : '';
    return Object.freeze({
      backend: mapped, converted: false, decidedBy: 'images_type_mapping', diskFormat, storedFormat: storedFormatOf(mapped),
      reason: `images_type_mapping maps ${diskFormat} to ${mapped}${written}`,
    });
  }
  const backend = config.imagesType;
  const stores = storedFormatOf(backend);
  const converted = payloadEncodingOf(diskFormat) !== stores;
  return Object.freeze({
    backend, converted, decidedBy: 'images_type', diskFormat, storedFormat: stores,
    reason: `${diskFormat} not in images_type_mapping; ${describeImagesType(config)} stores ${stores}, so it is ${converted ? 'converted' : 'kept as-is'}`,
  });
}

/** The copy path (Glance copy-image into the local rbd store) only matters when the image lands on rbd. */
export function needsRbdCopy(choice: Pick<BackendChoice, 'backend'>): boolean {
  return choice.backend === 'rbd';
}

function describeImagesType(config: BackendConfig): string {
  const declared = config.imagesTypeDeclared;
  if (declared === config.imagesType) return `images_type=${declared}`;
  if (declared === 'default') return `images_type=default (use_cow_images=${String(config.useCowImages)}: ${config.imagesType})`;
  return `images_type=${declared} (${config.imagesType})`;
}
