import { z } from 'zod';
import type { CandidatesReport } from '../prefilter/trait-request-report.js';
import { prefilterJsonSchema, traitRequestDocument } from './prefilter-document.js';

// `ferry candidates --json`: the request as sent to Placement, and the hosts it answered with (docs/cli.md).

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

export function candidatesDocument(report: CandidatesReport): CandidatesJson {
  const { list } = report;
  return {
    ...traitRequestDocument(report, list.query, list.microversion),
    resources: list.resources,
    limit: list.limit ?? null,
    candidates: list.candidates.map((c) => ({
      uuid: c.uuid, name: c.name ?? null, traits: [...c.traits],
      resources: Object.fromEntries(Object.entries(c.resources).map(([cls, r]) => [cls, { capacity: r.capacity, used: r.used }])),
      providers: [...c.providers], allocation_requests: c.allocationRequests,
    })),
    allocation_requests: list.allocationRequests,
  };
}
