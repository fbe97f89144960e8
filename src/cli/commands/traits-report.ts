import { FerryError } from '../../errors/ferry-error.js';
import { createPlacementClient } from '../../placement/placement-client.js';
import { readTraitCatalogue } from '../../placement/read-trait-catalogue.js';
import { resolveTraitCatalogue } from '../../placement/resolve-trait-catalogue.js';
import { reportTraits } from '../../placement/report-traits.js';
import { execFileRunner } from '../../rbd/command-runner.js';
import { hostTraits } from '../../traits/host-traits.js';
import { standardTraitCatalogue } from '../../traits/trait-catalogue.js';
import type { CommandSpec } from '../command-spec.js';
import { renderTraitsReport } from '../render/traits-report.js';
import { traitsReportDocument, traitsReportJsonSchema } from '../../contract/traits-report-document.js';
import type { TraitsReportCommandReport } from '../../placement/traits-report-command-report.js';
import { osTraitsVersion, TRAITS_INPUT_OPTIONS, traitsInput, type TraitsInputDeps } from '../inputs/traits-input.js';

export function createTraitsReportCommand(deps: TraitsInputDeps): CommandSpec<TraitsReportCommandReport> {
  return {
    name: 'traits report',
    description: 'Adds and removes only traits of the families ferry decided for this host; CUSTOM_ traits, ' +
      'COMPUTE_STATUS_DISABLED and every other trait stay. Names are checked against the target Placement\'s own trait ' +
      'list (or --os-traits-version) before anything is written; a generation conflict re-reads and retries. Nothing is ' +
      'written when nothing changes. Needs an admin account (Placement policy).',
    examples: [
      'ferry traits report --provider compute-7.site-b --virsh --nova-conf /etc/nova/nova.conf',
      'ferry traits report --provider 25db01ca-dd34-4756-8c28-470a7caf4920 --domcaps q35.xml --capabilities caps.xml --dry-run',
      'ferry traits report --provider edge-3 --domcaps pc.xml --domcaps q35.xml --images-type rbd --force-raw-images false --json',
    ],
    arguments: [],
    options: [
      { name: 'provider', value: 'UUID|NAME', description: 'the resource provider (nova names it after the hypervisor hostname)' },
      { name: 'dry-run', description: 'show what would change; write nothing' },
      ...TRAITS_INPUT_OPTIONS,
    ],
    jsonSchema: traitsReportJsonSchema,
    async run(ctx) {
      const provider = typeof ctx.flags.provider === 'string' ? ctx.flags.provider.trim() : '';
      if (provider === '') {
        throw new FerryError('FERRY_INVALID_OPTION', 'no provider given: ferry does not know which resource provider to update',
          'Pass --provider with the compute node\'s provider UUID or name (openstack resource provider list).', { option: 'provider' });
      }
      // Everything local is read and checked before the first request.
      const input = await traitsInput(ctx, deps);
      const version = osTraitsVersion(ctx.flags);
      const given = version === undefined ? undefined : standardTraitCatalogue(version);
      const cloud = await ctx.connect();
      const placement = createPlacementClient(cloud.placementHttp);
      const { catalogue, choice } = await resolveTraitCatalogue({ given, cloud: true, sentToPlacement: true },
        () => readTraitCatalogue(placement, { signal: ctx.signal }));
      const report = hostTraits(input.host, catalogue);
      // Names from another release are checked again against what this Placement knows before anything is written.
      const result = await reportTraits(placement, provider, report, {
        ...(choice.from === 'placement' ? { catalogue } : {}), dryRun: ctx.flags['dry-run'] === true, signal: ctx.signal,
      });
      return { result, report, storage: input.storage };
    },
    toJson: traitsReportDocument,
    render: renderTraitsReport,
  };
}

export const traitsReportCommand = createTraitsReportCommand({ runner: execFileRunner });
