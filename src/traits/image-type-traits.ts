import { FerryError } from '../errors/ferry-error.js';
import { IMAGES_TYPE_VALUES, isImagesTypeValue } from '../backend/storage-backend.js';
import type { ImagesTypeValue } from '../backend/storage-backend.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, traitSuffix } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';
import { assertVirtType } from './virt-type.js';
import type { VirtType } from './virt-type.js';

/** The host's storage configuration, as nova.conf names it. */
export interface HostStorageConfig {
  /** `[libvirt] images_type`; default `default`. */
  readonly imagesType?: ImagesTypeValue;
  /** `[DEFAULT] force_raw_images`; default true. */
  readonly forceRawImages?: boolean;
  /** `[compute] image_type_exclude_list`; default empty. Matched case-insensitively. */
  readonly imageTypeExcludeList?: readonly string[];
  /**
   * Formats this host keeps as-is, each with the backend that keeps it (`src/backend` keptFormats): a kept format is
   * supported even where nova's rule says no (`qcow2:qcow2` on an rbd host with force_raw_images=false, `ploop:ploop`).
   */
  readonly keptFormats?: ReadonlyMap<string, string>;
}

export interface ImageTypeInput extends HostStorageConfig {
  /** `[libvirt] virt_type`. */
  readonly virtType: VirtType;
}

export const IMAGE_TYPE_DEFAULTS = { imagesType: 'default', forceRawImages: true } as const;

/** nova's `supports_image_type_<t>` capabilities, in the order of the driver's table. */
export const NOVA_IMAGE_TYPES = ['aki', 'ami', 'ari', 'iso', 'qcow2', 'raw', 'vdi', 'vhd', 'vhdx', 'vmdk', 'ploop'] as const;

export const IMAGE_TYPE_PREFIX = 'COMPUTE_IMAGE_TYPE_';

const ALWAYS = new Set(['aki', 'ami', 'ari', 'iso', 'raw']);
const EXCLUDE_OPTION = '[compute] image_type_exclude_list';

/**
 * COMPUTE_IMAGE_TYPE_* for a libvirt host: nova's rule (placement-and-traits.md §9.2), then formats the per-image
 * backend mapping keeps as-is, then `[compute] image_type_exclude_list`, which always wins. Bad option values throw
 * FERRY_INVALID_OPTION.
 */
export function imageTypeTraits(input: ImageTypeInput, catalogue: TraitCatalogue): TraitFindings {
  const virtType = assertVirtType(input.virtType);
  const imagesType = input.imagesType ?? IMAGE_TYPE_DEFAULTS.imagesType;
  if (!isImagesTypeValue(imagesType)) {
    throw new FerryError(
      'FERRY_INVALID_OPTION',
      `[libvirt] images_type must be one of ${IMAGES_TYPE_VALUES.join(', ')}, got '${String(imagesType)}'`,
      'Use the value nova-compute runs with on this host (nova.conf [libvirt] images_type).',
      { option: '[libvirt] images_type', value: imagesType },
    );
  }
  const forceRaw = input.forceRawImages ?? IMAGE_TYPE_DEFAULTS.forceRawImages;
  const kept = new Map([...(input.keptFormats ?? new Map<string, string>())].map(([f, b]) => [f.trim().toLowerCase(), b]));
  const excluded = new Set((input.imageTypeExcludeList ?? []).map((t) => t.trim().toLowerCase()).filter((t) => t !== ''));
  const storage = `[libvirt] images_type=${imagesType}, [DEFAULT] force_raw_images=${String(forceRaw)}`;
  const findings = new TraitFindingsBuilder(catalogue).decide(IMAGE_TYPE_PREFIX);

  for (const type of NOVA_IMAGE_TYPES) {
    const trait = IMAGE_TYPE_PREFIX + traitSuffix(type);
    const nova = novaVerdict(type, virtType, imagesType, forceRaw, storage);
    const backend = kept.get(type);
    if (excluded.has(type)) {
      findings.absent(trait, `${EXCLUDE_OPTION} lists ${type}`);
    } else if (nova.supported) {
      findings.offer(trait, nova.reason, type, 'nova libvirt driver image types');
    } else if (backend !== undefined) {
      findings.offer(trait, `${keptReason(type, backend)}; nova alone would not: ${nova.reason}`, type, keptSource(type, backend));
    } else {
      findings.absent(trait, nova.reason);
    }
  }
  // Formats outside nova's table can only come from the backend mapping; they get a trait only if one exists.
  for (const [format, backend] of kept) {
    if ((NOVA_IMAGE_TYPES as readonly string[]).includes(format)) continue;
    const trait = IMAGE_TYPE_PREFIX + traitSuffix(format);
    if (excluded.has(format)) findings.absent(trait, `${EXCLUDE_OPTION} lists ${format}`);
    else findings.offer(trait, keptReason(format, backend), format, keptSource(format, backend));
  }
  for (const type of excluded) {
    if (!(NOVA_IMAGE_TYPES as readonly string[]).includes(type) && !kept.has(type)) {
      findings.unmappedValue({ value: type, source: EXCLUDE_OPTION, why: 'not an image type nova reports; ignored' });
    }
  }
  return findings.build();
}

interface NovaVerdict {
  readonly supported: boolean;
  readonly reason: string;
}

function novaVerdict(type: string, virtType: VirtType, imagesType: ImagesTypeValue, forceRaw: boolean, storage: string): NovaVerdict {
  if (ALWAYS.has(type)) return { supported: true, reason: `the libvirt driver always supports ${type} images` };
  if (type === 'qcow2') {
    const rawOnly = imagesType === 'rbd' || imagesType === 'lvm';
    if (rawOnly && !forceRaw) {
      return { supported: false, reason: `${storage}: the ${imagesType} backend would get qcow2 unconverted` };
    }
    return {
      supported: true,
      reason: rawOnly ? `${storage}: qcow2 is converted to raw` : `${storage}: only rbd or lvm without force_raw_images refuse qcow2`,
    };
  }
  if (type === 'ploop') {
    return virtType === 'parallels'
      ? { supported: true, reason: '[libvirt] virt_type=parallels' }
      : { supported: false, reason: `[libvirt] virt_type=${virtType}: ploop needs virt_type=parallels` };
  }
  return { supported: false, reason: `the libvirt driver never supports ${type} images` };
}

function keptReason(format: string, backend: string): string {
  return `the per-image backend mapping keeps ${format} as-is on the ${backend} backend (${format}:${backend})`;
}

function keptSource(format: string, backend: string): string {
  return `per-image backend mapping ${format}:${backend}`;
}
