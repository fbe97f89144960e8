import { z } from 'zod';
import { prefilterResultSchema } from '../prefilter/prefilter-result.js';
import type { FilterSwitches, PrefilterReport, TraitRequestReport } from '../prefilter/trait-request-report.js';

// `ferry prefilter --json`, and the request part `ferry candidates` and `ferry explain` print too (docs/cli.md).

const filterSwitchSchema = z.strictObject({ on: z.boolean(), source: z.string() });

export const prefilterJsonSchema = prefilterResultSchema.extend({
  image: z.string(),
  image_name: z.string().nullable(),
  catalogue_version: z.string(),
  switches: z.strictObject({ image_type: filterSwitchSchema, image_metadata: filterSwitchSchema }),
});
export type PrefilterJson = z.infer<typeof prefilterJsonSchema>;

function switchesJson(switches: FilterSwitches): PrefilterJson['switches'] {
  return { image_type: { ...switches.imageType }, image_metadata: { ...switches.imageMetadata } };
}

/**
 * The request part every prefilter command prints (prefilter, candidates, explain): one shape, one place. `query` and
 * `microversion` are those of the request Placement was sent (candidates, explain negotiate them), `notes` the caveats.
 */
export function traitRequestDocument(report: TraitRequestReport, query: string, microversion: string,
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

export function prefilterDocument(report: PrefilterReport): PrefilterJson {
  return traitRequestDocument(report, report.result.query, report.result.microversion, report.notes);
}
