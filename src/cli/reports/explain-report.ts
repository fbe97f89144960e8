import { z } from 'zod';
import type { HostExplanations } from '../../prefilter/explain-hosts.js';
import { prefilterJsonSchema, type TraitRequestReport } from './prefilter-report.js';

/** What `ferry explain` found, host by host. */
export interface ExplainReport extends TraitRequestReport {
  readonly explained: HostExplanations;
}

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
