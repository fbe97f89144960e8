import { CONFIG_DEFAULTS } from '../config/config-defaults.js';
import { CONFIG_OPTIONS, type ConfigOptionSpec } from '../config/config-options.js';
import type { CommandSpec, OptionSpec } from './command-spec.js';

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

/** A time as the duration flags take it, in its largest whole unit: 600000 → 10m, 15000 → 15s. */
export function formatDurationMs(ms: number): string {
  const units: readonly [number, string][] = [[3_600_000, 'h'], [60_000, 'm'], [1000, 's']];
  const [size, unit] = units.find(([each]) => ms % each === 0) ?? [1, 'ms'];
  return `${ms / size}${unit}`;
}

/** The option's default from CONFIG_DEFAULTS (the same path as its key), as help shows it; undefined when it has none to show. */
function shownDefault(spec: ConfigOptionSpec<unknown>): string | undefined {
  if (spec.bareFlag === true) return undefined;
  let value: unknown = CONFIG_DEFAULTS;
  for (const part of spec.key.split('.')) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value === 'number') return spec.valueName === 'SECONDS' ? formatDurationMs(value) : String(value);
  return typeof value === 'string' || typeof value === 'boolean' ? String(value) : undefined;
}

/** A config option as a CLI flag, described from its single source (src/config/config-options.ts), with its default. */
export function configFlag(flag: string): OptionSpec {
  const spec = Object.values(CONFIG_OPTIONS).find((candidate) => candidate.flag === flag) as ConfigOptionSpec<unknown> | undefined;
  if (spec === undefined) throw new Error(`no config option for --${flag}`);
  const fallback = shownDefault(spec);
  const notes = [...(fallback === undefined ? [] : [`default ${fallback}`]), ...(spec.env && spec.env.length > 0 ? [`env ${spec.env.join(', ')}`] : [])];
  const suffix = notes.length > 0 ? ` (${notes.join('; ')})` : '';
  // Seconds in the config layer; on the command line every time takes the duration syntax (90s, 10m, 1h).
  if (spec.valueName === 'SECONDS') return { name: flag, value: 'DURATION', duration: true, description: `${spec.summary}: 90s, 10m, 1h or seconds${suffix}` };
  return { name: flag, ...(spec.bareFlag ? {} : { value: spec.valueName ?? 'VALUE' }), ...(spec.repeatable ? { repeatable: true } : {}),
    description: `${spec.summary}${suffix}` };
}

/** Which cloud, its credentials, endpoints, TLS and HTTP: the configuration's keys under these. */
const CLOUD_KEYS = /^(origin\.cloud|auth|endpoints|tls|http)(\.|$)/;
const sharedConfigFlags = (cloud: boolean): OptionSpec[] => Object.values(CONFIG_OPTIONS).flatMap((spec) =>
  (spec.flag !== undefined && !COMMAND_SCOPED.has(spec.flag) && CLOUD_KEYS.test(spec.key) === cloud ? [configFlag(spec.flag)] : []));

/** The options of every command that talks to a cloud (Keystone, Glance, Placement): the openstack CLI's, and ferry's HTTP ones. */
export const CLOUD_OPTIONS: readonly OptionSpec[] = sharedConfigFlags(true);

/** The options of every command: output, --nova-conf (also the host's storage settings) and logging. */
export const GENERAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'json', description: 'print one JSON document on stdout (the report, or {"error": …}); = -f json' },
  { name: 'format', value: 'FORMAT',
    description: '-f: json, yaml (one document, also for errors), value (bare values), csv (a list\'s rows), table (a list\'s rows, or field | value)' },
  { name: 'column', value: 'COLUMN', description: '-c: only this column, or this top-level field of the JSON output', repeatable: true },
  ...sharedConfigFlags(false),
];

export const CLOUD_HEADING = 'Cloud options (each also an environment variable or a clouds.yaml key: docs/configuration.md):';

/** A command's options as its help shows them: its own, the cloud's (unless it talks to no cloud), output and logging. */
export function commandOptionGroups(spec: Pick<CommandSpec<unknown>, 'options' | 'offline'>): readonly { heading: string; options: readonly OptionSpec[] }[] {
  return [
    { heading: 'Options:', options: spec.options },
    ...(spec.offline === true ? [] : [{ heading: CLOUD_HEADING, options: CLOUD_OPTIONS }]),
    { heading: 'Output, logging and nova.conf options:', options: GENERAL_OPTIONS },
  ];
}

/** Every option a command takes (what the parser, the duration flags and completion read). */
export function commandOptions(spec: Pick<CommandSpec<unknown>, 'options' | 'offline'>): readonly OptionSpec[] {
  return commandOptionGroups(spec).flatMap((group) => group.options);
}

/** Is --NAME one of the cloud options (for the message when a command that talks to no cloud is given one)? */
export function isCloudOption(name: string): boolean {
  return CLOUD_OPTIONS.some((option) => option.name === name);
}
