import { createPlacementClient } from '../../placement/placement-client.js';
import { readTraitCatalogue } from '../../placement/read-trait-catalogue.js';
import { resolveTraitCatalogue } from '../../placement/resolve-trait-catalogue.js';
import { imageTraitRequest, PREFILTER_DEFAULTS } from '../../prefilter/image-trait-request.js';
import type { CommandSpec } from '../command-spec.js';
import { renderPrefilter } from '../render/prefilter.js';
import { limitFlag, microversionFlag, PREFILTER_INPUT_OPTIONS, readPrefilterInput, resourcesFlag } from '../inputs/prefilter-input.js';
import { prefilterDocument, prefilterJsonSchema } from '../../contract/prefilter-document.js';
import type { PrefilterReport } from '../../prefilter/trait-request-report.js';

export const prefilterCommand: CommandSpec<PrefilterReport> = {
  name: 'prefilter',
  description: 'Each trait is printed with the image property, flavor extra spec or rule that put it there; properties ' +
    'that give no trait are listed with the reason. A FILE needs no cloud (names are checked against os-traits 2.9.0, or ' +
    '--os-traits-version); an image ID is read from Glance and the names checked against the target Placement\'s own list ' +
    'when this account may read it. Both prefilters are on unless --nova-conf or a flag turns them off.',
  examples: [
    'ferry prefilter --image image.json',
    'ferry prefilter --image 8554f597-4961-4557-9ad1-1fbfef5ebc46 --flavor-extra-spec trait:STORAGE_DISK_SSD=required --json',
    'ferry prefilter --image image.json --nova-conf /etc/nova/nova.conf --resources VCPU:2,MEMORY_MB:4096 --limit 1000',
  ],
  arguments: [],
  options: [
    ...PREFILTER_INPUT_OPTIONS,
    { name: 'microversion', value: 'X.Y', description: `the Placement microversion the query is for (default ${PREFILTER_DEFAULTS.microversion}, what nova sends)` },
    { name: 'resources', value: 'CLASS:N,…', description: 'the flavor\'s resources (VCPU:1,MEMORY_MB:512,DISK_GB:1): the query becomes complete' },
    { name: 'limit', value: 'N', description: 'add limit=N to the query (nova: [scheduler] max_placement_results, 1000)' },
  ],
  jsonSchema: prefilterJsonSchema,
  async run(ctx) {
    const resources = resourcesFlag(ctx.flags);
    const limit = limitFlag(ctx.flags);
    const microversion = microversionFlag(ctx.flags) ?? PREFILTER_DEFAULTS.microversion;
    const input = await readPrefilterInput(ctx);
    // An image from Glance: the cloud is connected already (connect() hands back that session).
    const { catalogue, note } = await resolveTraitCatalogue({ given: input.fixedCatalogue, cloud: !input.fromFile, sentToPlacement: false },
      async () => readTraitCatalogue(createPlacementClient((await ctx.connect()).placementHttp), { signal: ctx.signal }));
    const result = imageTraitRequest(input.image.raw, {
      ...input.options, catalogue, microversion,
      ...(resources === undefined ? {} : { resources }),
      ...(limit === undefined ? {} : { limit }),
    });
    return {
      image: { id: input.image.id, name: input.image.name }, result, catalogueVersion: catalogue.version,
      switches: input.switches, notes: [...result.notes, ...(note === undefined ? [] : [note])],
    };
  },
  toJson: prefilterDocument,
  render: renderPrefilter,
};
