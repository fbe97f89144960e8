import { z } from 'zod';
import type { GlanceImage } from '../../glance/image.js';
import { prefilterResultSchema, type PrefilterResult } from '../../prefilter/prefilter-result.js';
import type { PrefilterInput } from '../inputs/prefilter-input.js';

/** What every prefilter-based command (prefilter, candidates, explain) computed, for which image, against which names. */
export interface TraitRequestReport {
  readonly image: Pick<GlanceImage, 'id' | 'name'>;
  readonly result: PrefilterResult;
  /** `2.9.0` (an os-traits release) or `placement` (the target Placement's own list). */
  readonly catalogueVersion: string;
  readonly switches: PrefilterInput['switches'];
}

/** What `ferry prefilter` computed. */
export interface PrefilterReport extends TraitRequestReport {
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
