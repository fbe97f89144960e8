import { z } from 'zod';
import type { CandidateList } from '../../prefilter/find-candidates.js';
import { prefilterJsonSchema, type TraitRequestReport } from './prefilter-report.js';

/** What `ferry candidates` asked Placement, and the hosts it answered with. */
export interface CandidatesReport extends TraitRequestReport {
  readonly list: CandidateList;
}

const resourceSummary = z.record(z.string(), z.strictObject({ capacity: z.number(), used: z.number() }));

export const candidatesJsonSchema = prefilterJsonSchema.extend({
  resources: z.string(),
  limit: z.number().int().positive().nullable(),
  candidates: z.array(z.strictObject({
    uuid: z.string(),
    name: z.string().nullable(),
    traits: z.array(z.string()),
    resources: resourceSummary,
    providers: z.array(z.string()),
    allocation_requests: z.number().int().positive(),
  })),
  allocation_requests: z.number().int().nonnegative(),
});
export type CandidatesJson = z.infer<typeof candidatesJsonSchema>;
