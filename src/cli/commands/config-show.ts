import { z } from 'zod';
import type { CommandSpec } from '../command-spec.js';
import { HOST_STORAGE_FLAGS, configFlag } from '../global-options.js';
import { renderConfigShow } from '../render/config-show.js';
import { configShowReport, type ConfigShowReport } from '../reports/config-show-report.js';

export const configShowJsonSchema = z.object({
  values: z.array(z.object({ key: z.string(), value: z.unknown(), source: z.string().nullable() }).strict()),
  origin: z.object({ cloud: z.string().nullable(), clouds_file: z.string().nullable(), secure_file: z.string().nullable(),
    nova_conf_files: z.array(z.string()) }).strict(),
  missing_auth: z.array(z.string()),
}).strict();

export type ConfigShowJson = z.infer<typeof configShowJsonSchema>;

export const configShowCommand: CommandSpec<ConfigShowReport> = {
  name: 'config show',
  description: 'Reads flags, OS_*/FERRY_* variables, clouds.yaml (+ secure.yaml) and nova.conf exactly as every other command '
    + 'does, and prints the result without talking to any service. Passwords, application-credential secrets and tokens '
    + 'are shown as <hidden>.',
  examples: ['ferry config show', 'ferry config show --os-cloud site-b --nova-conf /etc/nova/nova.conf', 'ferry config show -f value -c values'],
  arguments: [],
  options: ['store', 'fsid', 'ceph-conf', 'rbd-user', 'rbd-pool', 'timeout', 'poll-interval', 'stale-lock-after', 'take-over-expired', 'transfer', 'source-ceph-conf', 'source-rbd-user',
    'rbd-quiet-time', ...HOST_STORAGE_FLAGS].map(configFlag),
  jsonSchema: configShowJsonSchema,
  run: (ctx) => Promise.resolve(configShowReport(ctx.config)),
  toJson: (report): ConfigShowJson => ({
    values: report.entries.map((e) => ({ key: e.key, value: e.value, source: e.source ?? null })),
    origin: { cloud: report.origin.cloud ?? null, clouds_file: report.origin.cloudsFile ?? null, secure_file: report.origin.secureFile ?? null,
      nova_conf_files: [...(report.origin.novaConfFiles ?? [])] },
    missing_auth: [...report.missingAuth],
  }),
  render: renderConfigShow,
};
