import { z } from 'zod';
import type { ConfigShowReport } from '../config/config-show-report.js';

// `ferry config show --json`: every resolved setting with its source, secrets hidden (docs/cli.md).

export const configShowJsonSchema = z.object({
  values: z.array(z.object({ key: z.string(), value: z.unknown(), source: z.string().nullable() }).strict()),
  origin: z.object({ cloud: z.string().nullable(), clouds_file: z.string().nullable(), secure_file: z.string().nullable(),
    nova_conf_files: z.array(z.string()) }).strict(),
  missing_auth: z.array(z.string()),
}).strict();

export type ConfigShowJson = z.infer<typeof configShowJsonSchema>;

export function configShowDocument(report: ConfigShowReport): ConfigShowJson {
  return {
    values: report.entries.map((e) => ({ key: e.key, value: e.value, source: e.source ?? null })),
    origin: { cloud: report.origin.cloud ?? null, clouds_file: report.origin.cloudsFile ?? null, secure_file: report.origin.secureFile ?? null,
      nova_conf_files: [...(report.origin.novaConfFiles ?? [])] },
    missing_auth: [...report.missingAuth],
  };
}
