import { z } from 'zod';
import type { TraitsCommandReport, TraitsStorage } from '../traits/traits-command-report.js';

// `ferry traits --json` (docs/cli.md), and the parts `ferry traits report --json` shares with it.

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

export function traitsDocument({ report, storage, skipped }: TraitsCommandReport): TraitsJson {
  return {
    traits: [...report.traits],
    reasons: { ...report.reasons },
    unmapped: report.unmapped.map((u) => ({ ...u })),
    absent: { ...report.absent },
    decided_families: [...report.decidedFamilies],
    catalogue_version: report.catalogueVersion,
    virt_type: report.virtType,
    host_arch: report.hostArch ?? null,
    domain_capabilities: [...report.domainCapabilities],
    storage: storageJson(storage),
    skipped_domcaps: skipped.map((s) => ({ ...s })),
  };
}
