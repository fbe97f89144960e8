import { z } from 'zod';
import type { GlanceImage } from '../../glance/image.js';
import { createPlacementClient } from '../../placement/placement-client.js';
import { readTraitCatalogue } from '../../placement/read-trait-catalogue.js';
import { imageTraitRequest, PREFILTER_DEFAULTS } from '../../prefilter/image-trait-request.js';
import { prefilterResultSchema, type PrefilterResult } from '../../prefilter/prefilter-result.js';
import { standardTraitCatalogue, type TraitCatalogue } from '../../traits/trait-catalogue.js';
import type { CommandSpec } from '../command-spec.js';
import { renderPrefilter } from '../render/prefilter.js';
import {
  bestEffortCatalogue, limitFlag, microversionFlag, PREFILTER_INPUT_OPTIONS, readPrefilterInput, resourcesFlag,
  type PrefilterInput,
} from './prefilter-input.js';

/** What `ferry prefilter` computed, for which image, against which names. */
export interface PrefilterReport {
  readonly image: Pick<GlanceImage, 'id' | 'name'>;
  readonly result: PrefilterResult;
  /** `2.9.0` (an os-traits release) or `placement` (the target Placement's own list). */
  readonly catalogueVersion: string;
  readonly switches: PrefilterInput['switches'];
  /** The result's notes, plus ferry's own (why Placement's trait list was not used). */
  readonly notes: readonly string[];
}

const filterSwitchSchema = z.strictObject({ on: z.boolean(), source: z.string() });

/** What every prefilter-based command reports about the image and its switches. */
export const imageFieldsSchema = {
  image: z.string(),
  image_name: z.string().nullable(),
  catalogue_version: z.string(),
  switches: z.strictObject({ image_type: filterSwitchSchema, image_metadata: filterSwitchSchema }),
};

export const prefilterJsonSchema = prefilterResultSchema.extend(imageFieldsSchema);
export type PrefilterJson = z.infer<typeof prefilterJsonSchema>;

export function switchesJson(switches: PrefilterInput['switches']): PrefilterJson['switches'] {
  return { image_type: { ...switches.imageType }, image_metadata: { ...switches.imageMetadata } };
}

/** The request part every prefilter command prints (prefilter, candidates, explain): one shape, one place. */
export function traitRequestJson(report: { image: { id: string; name: string | null }; result: PrefilterResult;
  catalogueVersion: string; switches: PrefilterInput['switches'] }, query: string, microversion: string,
notes: readonly string[] = report.result.notes): PrefilterJson {
  const { image, result } = report;
  return {
    root_required: [...result.root_required],
    root_forbidden: [...result.root_forbidden],
    required: [...result.required],
    forbidden: [...result.forbidden],
    query,
    microversion,
    reasons: Object.fromEntries(Object.entries(result.reasons).map(([trait, why]) => [trait, [...why]])),
    unmapped: result.unmapped.map((u) => ({ ...u })),
    filters: { ...result.filters },
    notes: [...notes],
    image: image.id,
    image_name: image.name,
    catalogue_version: report.catalogueVersion,
    switches: switchesJson(report.switches),
  };
}

export const prefilterCommand: CommandSpec<PrefilterReport> = {
  name: 'prefilter',
  summary: 'The traits a host must have to take an image (nova\'s image prefilters, fixed), and the Placement query',
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
    const notes: string[] = [];
    let catalogue: TraitCatalogue;
    if (input.fixedCatalogue !== undefined) {
      catalogue = input.fixedCatalogue;
    } else if (input.fromFile) {
      catalogue = standardTraitCatalogue();
    } else {
      // The image came from Glance, so the cloud is connected anyway: check against what this Placement accepts.
      const cloud = await ctx.connect();
      const best = await bestEffortCatalogue(() => readTraitCatalogue(createPlacementClient(cloud.placementHttp), { signal: ctx.signal }));
      catalogue = best.catalogue;
      if (best.note !== undefined) notes.push(best.note);
    }
    const result = imageTraitRequest(input.image.raw, {
      ...input.options, catalogue, microversion,
      ...(resources === undefined ? {} : { resources }),
      ...(limit === undefined ? {} : { limit }),
    });
    return {
      image: { id: input.image.id, name: input.image.name }, result, catalogueVersion: catalogue.version,
      switches: input.switches, notes: [...result.notes, ...notes],
    };
  },
  toJson: (report): PrefilterJson => traitRequestJson(report, report.result.query, report.result.microversion, report.notes),
  render: renderPrefilter,
};
