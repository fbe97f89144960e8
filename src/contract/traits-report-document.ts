import { z } from 'zod';
import type { TraitsReportCommandReport } from '../placement/traits-report-command-report.js';
import { storageJson, storageJsonSchema, unmappedJsonSchema } from './traits-document.js';

// `ferry traits report --json`: what changed on the provider, and the host report it came from (docs/cli.md).

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

export function traitsReportDocument({ result, report, storage }: TraitsReportCommandReport): TraitsReportJson {
  return {
    provider: { ...result.provider },
    added: [...result.added],
    removed: [...result.removed],
    kept: [...result.kept],
    unchanged: result.unchanged,
    attempts: result.attempts,
    dry_run: result.dryRun,
    traits: [...result.traits],
    generation: result.generation,
    reasons: { ...report.reasons },
    unmapped: report.unmapped.map((u) => ({ ...u })),
    decided_families: [...report.decidedFamilies],
    catalogue_version: report.catalogueVersion,
    storage: storageJson(storage),
  };
}
