import { execFileRunner } from '../../rbd/command-runner.js';
import { hostTraits } from '../../traits/host-traits.js';
import { standardTraitCatalogue } from '../../traits/trait-catalogue.js';
import type { CommandSpec } from '../command-spec.js';
import { renderTraits } from '../render/traits.js';
import { TRAITS_INPUT_OPTIONS, traitsInput, type TraitsInputDeps } from '../inputs/traits-input.js';
import { osTraitsVersion, storageJson, TRAIT_COLUMNS, traitsJsonSchema, traitsToRows, type TraitsCommandReport, type TraitsJson } from '../reports/traits-command-report.js';

export function createTraitsCommand(deps: TraitsInputDeps): CommandSpec<TraitsCommandReport> {
  return {
    name: 'traits',
    description: 'Each trait is printed with the XML value or nova.conf option that produced it; values without a trait ' +
      'in the catalogue are listed as unmapped. Talks to no cloud. To send the traits to Placement: ferry traits report.',
    examples: [
      'ferry traits --domcaps domcaps-x86_64-kvm-pc.xml --domcaps domcaps-x86_64-kvm-q35.xml --capabilities capabilities.xml',
      'ferry traits --virsh --nova-conf /etc/nova/nova.conf --swtpm',
      'ferry traits --domcaps q35.xml --images-type rbd --force-raw-images false --images-type-mapping qcow2:qcow2 --json',
    ],
    arguments: [],
    options: TRAITS_INPUT_OPTIONS,
    offline: true,
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
    rows: traitsToRows,
    rowColumns: TRAIT_COLUMNS,
    render: renderTraits,
  };
}

export const traitsCommand = createTraitsCommand({ runner: execFileRunner });
