import { explainHosts } from '../../prefilter/explain-hosts.js';
import type { CommandSpec, FlagValue } from '../command-spec.js';
import { renderExplain } from '../render/explain.js';
import { microversionFlag, placementTraitRequest, PREFILTER_INPUT_OPTIONS, readPrefilterInput, resourcesFlag } from '../inputs/prefilter-input.js';
import { explainDocument, explainJsonSchema } from '../../contract/explain-document.js';
import type { ExplainReport } from '../../prefilter/trait-request-report.js';

export const explainCommand: CommandSpec<ExplainReport> = {
  name: 'explain',
  description: 'What "No valid host" never says. For each --provider (or every compute node): whether Placement ' +
    'returns it for the image (and --resources), and if not, each required trait it lacks and forbidden trait it has, with ' +
    'the image property or rule behind it, or the resource that is short. Without --resources only the traits are judged.',
  examples: [
    'ferry explain --image 8554f597-4961-4557-9ad1-1fbfef5ebc46 --resources VCPU:2,MEMORY_MB:4096,DISK_GB:20',
    'ferry explain --image image.json --provider compute-7.site-b --provider compute-8.site-b --resources VCPU:1,MEMORY_MB:512',
    'ferry explain --image cirros --nova-conf /etc/nova/nova.conf --json',
  ],
  arguments: [],
  options: [
    ...PREFILTER_INPUT_OPTIONS,
    { name: 'provider', value: 'UUID|NAME', repeatable: true, description: 'a host to explain (default: every root provider)' },
    { name: 'resources', value: 'CLASS:N,…', description: 'the flavor\'s resources (VCPU:1,MEMORY_MB:512): also ask Placement for candidates' },
    { name: 'microversion', value: 'X.Y', description: 'the newest Placement microversion to speak (default: the newest both speak)' },
  ],
  jsonSchema: explainJsonSchema,
  async run(ctx) {
    const resources = resourcesFlag(ctx.flags);
    const wanted = microversionFlag(ctx.flags);
    const providers = listFlag(ctx.flags.provider);
    const input = await readPrefilterInput(ctx);
    const { placement, catalogue, result } = await placementTraitRequest(ctx, input, wanted,
      resources === undefined ? {} : { resources });
    const explained = await explainHosts(placement, result, {
      providers, catalogue, signal: ctx.signal, ...(resources === undefined ? {} : { resources }),
    });
    return { image: { id: input.image.id, name: input.image.name }, result, explained, catalogueVersion: catalogue.version, switches: input.switches };
  },
  toJson: explainDocument,
  render: renderExplain,
};

function listFlag(value: FlagValue): readonly string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  return (typeof value === 'string' ? [value] : value).map((v) => v.trim()).filter((v) => v !== '');
}
