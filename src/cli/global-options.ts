import { CONFIG_OPTIONS } from '../config/config-options.js';
import type { OptionSpec } from './command-spec.js';

/** Config flags that belong to particular commands (copy, Ceph) rather than to every command. */
const COMMAND_SCOPED = new Set(['store', 'poll-interval', 'timeout', 'stale-lock-after', 'take-over-expired', 'ceph-conf', 'rbd-user', 'rbd-pool', 'fsid',
  'transfer', 'source-ceph-conf', 'source-rbd-user', 'rbd-quiet-time',
  'images-type', 'images-type-mapping', 'use-cow-images', 'force-raw-images', 'image-type-exclude', 'virt-type', 'swtpm']);

/** Config flags that may be repeated, every value counting (`--nova-conf A --nova-conf B`). */
export const REPEATABLE_CONFIG_FLAGS: ReadonlySet<string> = new Set(Object.values(CONFIG_OPTIONS)
  .flatMap((spec) => (spec.flag !== undefined && spec.repeatable === true ? [spec.flag] : [])));

/** The direct RBD transfer's flags: for the commands that copy (ensure, prewarm, sync, agent). */
export const TRANSFER_FLAGS = ['transfer', 'source-ceph-conf', 'source-rbd-user', 'rbd-quiet-time'] as const;

/** The compute host's storage flags: for commands that decide per host (traits, backend, prefilter, ensure). */
export const HOST_STORAGE_FLAGS = ['images-type', 'images-type-mapping', 'use-cow-images', 'force-raw-images', 'image-type-exclude', 'virt-type'] as const;

/** A config option as a CLI flag, described from its single source (src/config/config-options.ts). */
export function configFlag(flag: string): OptionSpec {
  const spec = Object.values(CONFIG_OPTIONS).find((candidate) => candidate.flag === flag);
  if (spec === undefined) throw new Error(`no config option for --${flag}`);
  const env = spec.env && spec.env.length > 0 ? ` (env ${spec.env.join(', ')})` : '';
  // Seconds in the config layer; on the command line every time takes the duration syntax (90s, 10m, 1h).
  if (spec.valueName === 'SECONDS') return { name: flag, value: 'DURATION', duration: true, description: `${spec.summary}: 90s, 10m, 1h or seconds${env}` };
  return { name: flag, ...(spec.bareFlag ? {} : { value: spec.valueName ?? 'VALUE' }), ...(spec.repeatable ? { repeatable: true } : {}),
    description: `${spec.summary}${env}` };
}

/** Options every command takes: output, and every cloud/HTTP/logging option of the configuration. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'json', description: 'print one JSON document on stdout (the report, or {"error": …}); = -f json' },
  { name: 'format', value: 'FORMAT', description: '-f: json, yaml (one document, also for errors), value (bare values), table (field | value)' },
  { name: 'column', value: 'COLUMN', description: '-c: only this top-level field of the JSON output', repeatable: true },
  ...Object.values(CONFIG_OPTIONS)
    .flatMap((spec) => (spec.flag !== undefined && !COMMAND_SCOPED.has(spec.flag) ? [configFlag(spec.flag)] : [])),
];
