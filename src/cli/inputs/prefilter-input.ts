import { optionTypes } from '../../config/option-types.js';
import { FerryError } from '../../errors/ferry-error.js';
import type { GlanceImage } from '../../glance/image.js';
import { formatMicroversion } from '../../placement/negotiate-microversion.js';
import { createPlacementClient, type PlacementClient } from '../../placement/placement-client.js';
import { readTraitCatalogue } from '../../placement/read-trait-catalogue.js';
import { resolveTraitCatalogue } from '../../placement/resolve-trait-catalogue.js';
import { imageTraitRequest, PREFILTER_DEFAULTS, type ImageTraitOptions } from '../../prefilter/image-trait-request.js';
import { parseResources } from '../../prefilter/parse-resources.js';
import type { PrefilterResult } from '../../prefilter/prefilter-result.js';
import type { FilterSwitch, FilterSwitches } from '../../prefilter/trait-request-report.js';
import { standardTraitCatalogue, type TraitCatalogue } from '../../traits/trait-catalogue.js';
import type { CommandContext, FlagValue, OptionSpec } from '../command-spec.js';
import { isImageFile, readImageArgument } from '../image-argument.js';

/** The inputs `ferry prefilter`, `ferry candidates` and `ferry explain` share: the image, the flavor, the switches. */
export const PREFILTER_INPUT_OPTIONS: readonly OptionSpec[] = [
  { name: 'image', value: 'ID|NAME|FILE.json', description: 'the image: an ID or unique name (asks Glance), or an image document FILE.json (Glance\'s or `openstack image show -f json` output, or just the properties)' },
  { name: 'flavor-extra-spec', value: 'KEY=VALUE', repeatable: true, description: 'a flavor extra spec (trait:NAME=required|forbidden is used)' },
  { name: 'bfv', description: 'the server boots from a volume: the image-type prefilter does not apply' },
  { name: 'strict', description: 'fail when an image property gives no trait, instead of listing it as unmapped' },
  { name: 'image-type-filter', value: 'BOOL', description: 'image-type prefilter on/off (default: [scheduler] query_placement_for_image_type_support of --nova-conf, else on)' },
  { name: 'image-metadata-filter', value: 'BOOL', description: 'image-metadata prefilter on/off (default: [scheduler] image_metadata_prefilter of --nova-conf, else on)' },
  { name: 'os-traits-version', value: 'V', description: 'check names against this os-traits release instead of the target Placement\'s list' },
];

export interface PrefilterInput {
  readonly image: GlanceImage;
  /** imageTraitRequest's options from the flags and nova.conf (everything but catalogue, microversion, resources, limit). */
  readonly options: Pick<ImageTraitOptions, 'imageTypeFilter' | 'imageMetadataFilter' | 'bootFromVolume' | 'flavorExtraSpecs' | 'strict'>;
  readonly switches: FilterSwitches;
  /** From --os-traits-version; undefined: resolveTraitCatalogue picks (Placement's own list, or os-traits 2.9.0). */
  readonly fixedCatalogue: TraitCatalogue | undefined;
  /** --image named a file: no cloud was needed for it. */
  readonly fromFile: boolean;
}

/** Check every flag first (no request for a typo), then read the image (a file, or Glance). */
export async function readPrefilterInput(ctx: CommandContext): Promise<PrefilterInput> {
  const { flags, config } = ctx;
  const switches = {
    imageType: filterSwitch(flags, 'image-type-filter', config.scheduler.imageTypePrefilter,
      config.sources['scheduler.imageTypePrefilter'], PREFILTER_DEFAULTS.imageTypeFilter),
    imageMetadata: filterSwitch(flags, 'image-metadata-filter', config.scheduler.imageMetadataPrefilter,
      config.sources['scheduler.imageMetadataPrefilter'], PREFILTER_DEFAULTS.imageMetadataFilter),
  };
  const flavorExtraSpecs = extraSpecs(flags['flavor-extra-spec']);
  const version = text(flags, 'os-traits-version');
  const fixedCatalogue = version === undefined ? undefined : standardTraitCatalogue(version);
  const imageRef = text(flags, 'image');
  // The same test readImageArgument makes: a file needs no cloud.
  const fromFile = imageRef !== undefined && isImageFile(imageRef);
  const image = await readImageArgument(ctx, imageRef);
  return {
    image,
    options: {
      imageTypeFilter: switches.imageType.on, imageMetadataFilter: switches.imageMetadata.on,
      bootFromVolume: flags.bfv === true, flavorExtraSpecs, strict: flags.strict === true,
    },
    switches, fixedCatalogue, fromFile,
  };
}

/**
 * nova turns both prefilters off by default; a standalone `ferry prefilter` is asked precisely for the traits, so
 * ferry's default is on. nova.conf counts only when it sets the option (its source is not `default`).
 */
function filterSwitch(flags: Readonly<Record<string, FlagValue>>, flag: string, configured: boolean, source: string | undefined,
  fallback: boolean): FilterSwitch {
  const raw = flags[flag];
  if (raw !== undefined) {
    const parsed = optionTypes.bool.parse(raw);
    if (!parsed.ok) {
      throw new FerryError('FERRY_INVALID_OPTION', `--${flag} must be ${optionTypes.bool.expected}, got '${String(raw)}'`,
        `Pass --${flag} true or --${flag} false.`, { option: flag, value: raw });
    }
    return { on: parsed.value, source: `--${flag}` };
  }
  if (source !== undefined && source !== 'default') return { on: configured, source };
  return { on: fallback, source: 'ferry default' };
}

function extraSpecs(value: FlagValue): Readonly<Record<string, string>> {
  const entries = value === undefined || typeof value === 'boolean' ? [] : typeof value === 'string' ? [value] : value;
  const specs: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf('=');
    const key = at < 0 ? '' : entry.slice(0, at).trim();
    if (key === '') {
      throw new FerryError('FERRY_INVALID_OPTION', `--flavor-extra-spec must be KEY=VALUE, got '${entry}'`,
        'Give one extra spec per flag, as `openstack flavor show` lists them: --flavor-extra-spec trait:STORAGE_DISK_SSD=required.',
        { option: 'flavor-extra-spec', value: entry });
    }
    specs[key] = entry.slice(at + 1).trim();
  }
  return specs;
}

/** `--resources`, checked before any request; undefined when not given. */
export function resourcesFlag(flags: Readonly<Record<string, FlagValue>>): string | undefined {
  const value = text(flags, 'resources');
  if (value !== undefined) parseResources(value, '--resources');
  return value;
}

/** `--resources` for a command that cannot do without it. */
export function requiredResourcesFlag(flags: Readonly<Record<string, FlagValue>>): string {
  const value = resourcesFlag(flags);
  if (value !== undefined) return value;
  throw new FerryError('FERRY_INVALID_OPTION', '--resources is required: Placement only answers for an amount of resources',
    'Pass the flavor\'s resources: --resources VCPU:2,MEMORY_MB:4096,DISK_GB:20.', { option: 'resources' });
}

/** `--limit N`, an integer ≥ 1; undefined when not given. */
export function limitFlag(flags: Readonly<Record<string, FlagValue>>): number | undefined {
  const value = text(flags, 'limit');
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new FerryError('FERRY_INVALID_OPTION', `--limit must be an integer ≥ 1, got '${value}'`,
      'Leave --limit out to get every candidate (nova sends [scheduler] max_placement_results, 1000).', { option: 'limit', value });
  }
  return Number(value);
}

/** `--microversion 1.N`; undefined when not given. */
export function microversionFlag(flags: Readonly<Record<string, FlagValue>>): string | undefined {
  const value = text(flags, 'microversion');
  if (value === undefined) return undefined;
  if (!/^1\.(0|[1-9]\d*)$/.test(value)) {
    throw new FerryError('FERRY_INVALID_OPTION', `--microversion must be like 1.36, got '${value}'`,
      'Give a Placement microversion MAJOR.MINOR (nova\'s scheduler sends 1.36; Placement 8.0.0 speaks up to 1.39).',
      { option: 'microversion', value });
  }
  return value;
}

/** What `ferry candidates` and `ferry explain` build before they ask Placement about hosts. */
export interface PlacementTraitRequest {
  readonly placement: PlacementClient;
  readonly catalogue: TraitCatalogue;
  readonly result: PrefilterResult;
}

/**
 * The image's trait request as the target Placement will take it: at the microversion negotiated with it (at most
 * `wanted`), with names checked against --os-traits-version if given, else Placement's own list (one GET /traits, which
 * also holds its CUSTOM_ traits).
 */
export async function placementTraitRequest(ctx: CommandContext, input: PrefilterInput, wanted: string | undefined,
  request: Pick<ImageTraitOptions, 'resources' | 'limit'>): Promise<PlacementTraitRequest> {
  const cloud = await ctx.connect();
  const placement = createPlacementClient(cloud.placementHttp, wanted === undefined ? {} : { microversion: wanted });
  const microversion = formatMicroversion(await placement.microversion({ signal: ctx.signal }));
  const { catalogue } = await resolveTraitCatalogue({ given: input.fixedCatalogue, cloud: true, sentToPlacement: true },
    () => readTraitCatalogue(placement, { signal: ctx.signal }));
  const result = imageTraitRequest(input.image.raw, { ...input.options, catalogue, microversion, ...request });
  return { placement, catalogue, result };
}

function text(flags: Readonly<Record<string, FlagValue>>, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
