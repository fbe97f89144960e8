import { z } from 'zod';
import { execFileRunner } from '../../rbd/command-runner.js';
import { hostTraits, type HostTraitReport } from '../../traits/host-traits.js';
import { standardTraitCatalogue } from '../../traits/trait-catalogue.js';
import type { CommandSpec, FlagValue } from '../command-spec.js';
import { renderTraits } from '../render/traits.js';
import { TRAITS_INPUT_OPTIONS, traitsInput, type TraitsInputDeps, type TraitsStorage } from './traits-input.js';
import type { SkippedDomcaps } from './traits-virsh-xml.js';

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

export function createTraitsCommand(deps: TraitsInputDeps): CommandSpec<TraitsCommandReport> {
  return {
    name: 'traits',
    summary: "Compute a compute host's standard Placement traits from its storage config and libvirt capabilities",
    description: 'Each trait is printed with the XML value or nova.conf option that produced it; values without a trait ' +
      'in the catalogue are listed as unmapped. Talks to no cloud. To send the traits to Placement: ferry traits report.',
    examples: [
      'ferry traits --domcaps domcaps-x86_64-kvm-pc.xml --domcaps domcaps-x86_64-kvm-q35.xml --capabilities capabilities.xml',
      'ferry traits --virsh --nova-conf /etc/nova/nova.conf --swtpm',
      'ferry traits --domcaps q35.xml --images-type rbd --force-raw-images false --images-type-mapping qcow2:qcow2 --json',
    ],
    arguments: [],
    options: TRAITS_INPUT_OPTIONS,
    jsonSchema: traitsJsonSchema,
    async run(ctx) {
      const input = await traitsInput(ctx, deps);
      const report = hostTraits(input.host, standardTraitCatalogue(osTraitsVersion(ctx.flags)));
      return { report, storage: input.storage, skipped: input.skipped };
    },
    toJson: ({ report, storage, skipped }): TraitsJson => ({
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
    }),
    render: renderTraits,
  };
}

export const traitsCommand = createTraitsCommand({ runner: execFileRunner });
