import { execFileRunner } from '../../rbd/command-runner.js';
import { hostTraits } from '../../traits/host-traits.js';
import { standardTraitCatalogue } from '../../traits/trait-catalogue.js';
import type { CommandSpec } from '../command-spec.js';
import { renderTraits } from '../render/traits.js';
import { traitsDocument, traitsJsonSchema } from '../../contract/traits-document.js';
import type { TraitsCommandReport } from '../../traits/traits-command-report.js';
import { osTraitsVersion, TRAITS_INPUT_OPTIONS, traitsInput, type TraitsInputDeps } from '../inputs/traits-input.js';
import { TRAIT_COLUMNS, traitsToRows } from '../reports/traits-rows.js';

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
    toJson: traitsDocument,
    rows: traitsToRows,
    rowColumns: TRAIT_COLUMNS,
    render: renderTraits,
  };
}

export const traitsCommand = createTraitsCommand({ runner: execFileRunner });
