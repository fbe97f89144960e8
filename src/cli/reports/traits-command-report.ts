import { z } from 'zod';
import type { HostTraitReport } from '../../traits/host-traits.js';
import type { FlagValue } from '../command-spec.js';
import type { RowColumn, RowList } from '../output/row-list.js';
import type { TraitsStorage } from '../inputs/traits-input.js';
import type { SkippedDomcaps } from '../inputs/traits-virsh-xml.js';

/** What `ferry traits` computed, and from what. */
export interface TraitsCommandReport {
  readonly report: HostTraitReport;
  readonly storage: TraitsStorage;
  readonly skipped: readonly SkippedDomcaps[];
}

export const unmappedJsonSchema = z.object({
  value: z.string(), source: z.string(), trait: z.string().optional(), why: z.string(),
});

export const storageJsonSchema = z.object({
  images_type: z.string(),
  images_type_mapping: z.string().nullable(),
  force_raw_images: z.boolean(),
  use_cow_images: z.boolean(),
  image_type_exclude_list: z.array(z.string()),
  virt_type: z.string(),
  kept_formats: z.record(z.string(), z.string()),
});

export const traitsJsonSchema = z.object({
  traits: z.array(z.string()),
  reasons: z.record(z.string(), z.string()),
  unmapped: z.array(unmappedJsonSchema),
  absent: z.record(z.string(), z.string()),
  decided_families: z.array(z.string()),
  catalogue_version: z.string(),
  virt_type: z.string(),
  host_arch: z.string().nullable(),
  domain_capabilities: z.array(z.string()),
  storage: storageJsonSchema,
  skipped_domcaps: z.array(z.object({ arch: z.string(), command: z.string(), error: z.string() })),
});

export type TraitsJson = z.infer<typeof traitsJsonSchema>;

/** The catalogue names are checked against without a cloud: an os-traits release (default 2.9.0). */
export function osTraitsVersion(flags: Readonly<Record<string, FlagValue>>): string | undefined {
  const value = flags['os-traits-version'];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export function storageJson(storage: TraitsStorage): TraitsJson['storage'] {
  return {
    images_type: storage.imagesType,
    images_type_mapping: storage.imagesTypeMapping ?? null,
    force_raw_images: storage.forceRawImages,
    use_cow_images: storage.useCowImages,
    image_type_exclude_list: [...storage.imageTypeExcludeList],
    virt_type: storage.virtType,
    kept_formats: { ...storage.keptFormats },
  };
}

export const TRAIT_COLUMNS: readonly RowColumn[] = [{ key: 'trait', header: 'Trait' }, { key: 'reason', header: 'Reason' }];

/** `ferry traits` as rows: one per trait the host has, with what produced it (unmapped values are only in `--json`). */
export function traitsToRows({ report }: TraitsCommandReport): RowList {
  return {
    columns: TRAIT_COLUMNS,
    rows: report.traits.map((trait) => ({ trait, reason: report.reasons[trait] ?? null })),
  };
}
