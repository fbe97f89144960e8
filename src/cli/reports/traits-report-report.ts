import { z } from 'zod';
import type { TraitReportResult } from '../../placement/report-traits.js';
import type { HostTraitReport } from '../../traits/host-traits.js';
import type { TraitsStorage } from '../inputs/traits-input.js';
import { storageJsonSchema, unmappedJsonSchema } from './traits-command-report.js';

/** What `ferry traits report` did, and the host report it sent. */
export interface TraitsReportCommandReport {
  readonly result: TraitReportResult;
  readonly report: HostTraitReport;
  readonly storage: TraitsStorage;
}

export const traitsReportJsonSchema = z.object({
  provider: z.object({ uuid: z.string(), name: z.string() }),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  kept: z.array(z.string()),
  unchanged: z.boolean(),
  attempts: z.number().int().min(1),
  dry_run: z.boolean(),
  traits: z.array(z.string()),
  generation: z.number().int().nonnegative(),
  reasons: z.record(z.string(), z.string()),
  unmapped: z.array(unmappedJsonSchema),
  decided_families: z.array(z.string()),
  catalogue_version: z.string(),
  storage: storageJsonSchema,
});

export type TraitsReportJson = z.infer<typeof traitsReportJsonSchema>;
