import { CONFIG_OPTIONS } from '../config/config-options.js';
import type { OptionSpec } from './command-spec.js';

/** Config flags that belong to particular commands (copy, Ceph) rather than to every command. */
const COMMAND_SCOPED = new Set(['store', 'poll-interval', 'timeout', 'stale-lock-after', 'take-over-expired', 'ceph-conf', 'rbd-user', 'rbd-pool', 'fsid',
  'images-type', 'images-type-mapping', 'use-cow-images', 'force-raw-images', 'image-type-exclude', 'virt-type']);

/** The compute host's storage flags: for commands that decide per host (traits, backend, prefilter, ensure). */
export const HOST_STORAGE_FLAGS = ['images-type', 'images-type-mapping', 'use-cow-images', 'force-raw-images', 'image-type-exclude', 'virt-type'] as const;

/** A config option as a CLI flag, described from its single source (src/config/config-options.ts). */
export function configFlag(flag: string): OptionSpec {
  const spec = Object.values(CONFIG_OPTIONS).find((candidate) => candidate.flag === flag);
  if (spec === undefined) throw new Error(`no config option for --${flag}`);
  const env = spec.env && spec.env.length > 0 ? ` (env ${spec.env.join(', ')})` : '';
  return { name: flag, ...(spec.bareFlag ? {} : { value: spec.valueName ?? 'VALUE' }), description: `${spec.summary}${env}` };
}

/** Options every command takes: output, and every cloud/HTTP/logging option of the configuration. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'json', description: 'print one JSON document on stdout (the report, or {"error": …})' },
  ...Object.values(CONFIG_OPTIONS)
    .flatMap((spec) => (spec.flag !== undefined && !COMMAND_SCOPED.has(spec.flag) ? [configFlag(spec.flag)] : [])),
];
