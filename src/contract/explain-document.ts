import { z } from 'zod';
import type { ExplainReport } from '../prefilter/trait-request-report.js';
import { prefilterJsonSchema, traitRequestDocument } from './prefilter-document.js';

// `ferry explain --json`: the request, and host by host whether Placement returns it and why not (docs/cli.md).

const fitSchema = z.strictObject({
  resource_class: z.string(),
  requested: z.number(),
  capacity: z.number(),
  used: z.number(),
  free: z.number(),
  fits: z.boolean(),
  why: z.string().optional(),
});

export const explainJsonSchema = prefilterJsonSchema.extend({
  resources: z.string().nullable(),
  candidates: z.number().int().nonnegative(),
  hosts: z.array(z.strictObject({
    uuid: z.string(),
    name: z.string(),
    parent: z.string().nullable(),
    candidate: z.boolean(),
    verdict: z.enum(['candidate', 'traits', 'resources', 'not-returned', 'traits-match']),
    lacks: z.array(z.string()),
    has_forbidden: z.array(z.string()),
    reason: z.string(),
    fit: z.array(fitSchema).nullable(),
  })),
  trait_lookup: z.enum(['per-host', 'per-trait', 'none']),
  capacity_not_read: z.number().int().nonnegative(),
});
export type ExplainJson = z.infer<typeof explainJsonSchema>;

export function explainDocument(report: ExplainReport): ExplainJson {
  const { explained } = report;
  return {
    ...traitRequestDocument(report, explained.query, explained.microversion),
    resources: explained.resources ?? null,
    candidates: explained.hosts.filter((h) => h.candidate).length,
    hosts: explained.hosts.map((h) => ({
      uuid: h.uuid, name: h.name, parent: h.parent ?? null, candidate: h.candidate, verdict: h.verdict,
      lacks: h.lacks.map((g) => g.trait), has_forbidden: h.hasForbidden.map((g) => g.trait), reason: h.reason,
      fit: h.fit === undefined ? null : h.fit.map((f) => ({
        resource_class: f.resourceClass, requested: f.requested, capacity: f.capacity, used: f.used, free: f.free, fits: f.fits,
        ...(f.why === undefined ? {} : { why: f.why }),
      })),
    })),
    trait_lookup: explained.traitLookup,
    capacity_not_read: explained.capacityNotRead,
  };
}
