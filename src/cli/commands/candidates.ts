import { findCandidates } from '../../prefilter/find-candidates.js';
import type { CommandSpec } from '../command-spec.js';
import { renderCandidates } from '../render/candidates.js';
import { limitFlag, microversionFlag, placementTraitRequest, PREFILTER_INPUT_OPTIONS, readPrefilterInput, requiredResourcesFlag } from '../inputs/prefilter-input.js';
import { candidatesDocument, candidatesJsonSchema } from '../../contract/candidates-document.js';
import type { CandidatesReport } from '../../prefilter/trait-request-report.js';

export const candidatesCommand: CommandSpec<CandidatesReport> = {
  name: 'candidates',
  description: 'Builds the prefilter request (as ferry prefilter) for the microversion negotiated with the target Placement, ' +
    'checks every name against Placement\'s own trait list, sends one GET /allocation_candidates and names each host ' +
    '(one GET per host for up to 10 hosts, else one provider listing). No candidate? ferry explain says why, host by host.',
  examples: [
    'ferry candidates --image 8554f597-4961-4557-9ad1-1fbfef5ebc46 --resources VCPU:2,MEMORY_MB:4096,DISK_GB:20',
    'ferry candidates --image image.json --resources VCPU:1,MEMORY_MB:512 --limit 10 --json',
    'ferry candidates --image cirros --resources VCPU:1,MEMORY_MB:512 --nova-conf /etc/nova/nova.conf --microversion 1.36',
  ],
  arguments: [],
  options: [
    ...PREFILTER_INPUT_OPTIONS,
    { name: 'resources', value: 'CLASS:N,…', description: 'the flavor\'s resources (required): VCPU:1,MEMORY_MB:512[,DISK_GB:1]' },
    { name: 'limit', value: 'N', description: 'at most N allocation requests (Placement truncates; nova sends 1000)' },
    { name: 'microversion', value: 'X.Y', description: 'the newest Placement microversion to speak (default: the newest both speak, 1.39 on Placement 8.0.0)' },
  ],
  jsonSchema: candidatesJsonSchema,
  async run(ctx) {
    const resources = requiredResourcesFlag(ctx.flags);
    const limit = limitFlag(ctx.flags);
    const wanted = microversionFlag(ctx.flags);
    const input = await readPrefilterInput(ctx);
    const { placement, catalogue, result } = await placementTraitRequest(ctx, input, wanted,
      { resources, ...(limit === undefined ? {} : { limit }) });
    const list = await findCandidates(placement, result, resources, {
      catalogue, signal: ctx.signal, ...(limit === undefined ? {} : { limit }),
    });
    return { image: { id: input.image.id, name: input.image.name }, result, list, catalogueVersion: catalogue.version, switches: input.switches };
  },
  toJson: candidatesDocument,
  render: renderCandidates,
};
