import { basename } from 'node:path';
import { keptFormats } from '../../backend/kept-formats.js';
import { resolveBackendConfig } from '../../backend/resolve-backend-config.js';
import { FerryError } from '../../errors/ferry-error.js';
import type { CommandRunner } from '../../rbd/command-runner.js';
import type { HostCapabilitiesInput } from '../../traits/host-traits.js';
import { parseDomainCapabilities } from '../../traits/parse-domain-capabilities.js';
import { parseHostCapabilities } from '../../traits/parse-host-capabilities.js';
import type { CommandContext, FlagValue, OptionSpec } from '../command-spec.js';
import { configFlag, HOST_STORAGE_FLAGS } from '../global-options.js';
import type { SkippedDomcaps, TraitsStorage } from '../../traits/traits-command-report.js';
import { traitsVirshXml } from './traits-virsh-xml.js';

/** The inputs `ferry traits` and `ferry traits report` share: where the host's capabilities and storage come from. */
export const TRAITS_INPUT_OPTIONS: readonly OptionSpec[] = [
  { name: 'domcaps', value: 'FILE', repeatable: true, description: 'a `virsh domcapabilities` answer (one per arch and machine type)' },
  { name: 'capabilities', value: 'FILE', description: 'the `virsh capabilities` answer (host CPU arch)' },
  { name: 'virsh', description: 'ask the local libvirt instead: virsh capabilities + the domcapabilities calls nova makes' },
  { name: 'libvirt-uri', value: 'URI', description: 'libvirt URI for --virsh (default: [libvirt] connection_uri of --nova-conf, else nova\'s for the virt type, qemu:///system for kvm/qemu)' },
  { name: 'host-arch', value: 'ARCH', description: 'host CPU arch when no capabilities XML is given (x86_64, aarch64, …)' },
  { name: 'libvirt-version', value: 'V', description: 'libvirt version (gates COMPUTE_VIOMMU_MODEL_VIRTIO, igb); --virsh reads it' },
  { name: 'qemu-version', value: 'V', description: 'QEMU version (gates igb); --virsh reads it' },
  configFlag('swtpm'),
  { name: 'os-traits-version', value: 'V', description: 'check names against this os-traits release instead of the default' },
  // Storage and virt type: config options (flags > FERRY_* variables > --nova-conf > nova's defaults).
  ...HOST_STORAGE_FLAGS.map(configFlag),
];

export interface TraitsInput {
  readonly host: HostCapabilitiesInput;
  readonly storage: TraitsStorage;
  /** Domain capabilities virsh refused (their arch is left out, as nova does). */
  readonly skipped: readonly SkippedDomcaps[];
}

export interface TraitsInputDeps {
  /** Runs virsh for --virsh; tests inject one that never spawns. */
  readonly runner: CommandRunner;
}

/** Read the XML files (or ask virsh) and take the storage settings from the config, into the input of hostTraits. */
export async function traitsInput(ctx: CommandContext, deps: TraitsInputDeps): Promise<TraitsInput> {
  const flags = ctx.flags;
  const files = list(flags.domcaps);
  const capabilitiesFile = text(flags, 'capabilities');
  if (flags.virsh === true && (files.length > 0 || capabilitiesFile !== undefined)) {
    throw new FerryError('FERRY_INVALID_OPTION', '--virsh cannot be combined with --domcaps or --capabilities',
      'Either let ferry ask libvirt (--virsh), or give the XML files.', { option: 'virsh' });
  }
  if (flags['libvirt-uri'] !== undefined && flags.virsh !== true) {
    throw new FerryError('FERRY_INVALID_OPTION', '--libvirt-uri is only used with --virsh', 'Add --virsh, or leave --libvirt-uri out.',
      { option: 'libvirt-uri' });
  }
  const storage = hostStorage(ctx);
  const versions = { libvirt: text(flags, 'libvirt-version'), qemu: text(flags, 'qemu-version') };
  const hostArch = text(flags, 'host-arch');
  const common = {
    virtType: storage.virtType,
    storage: {
      imagesType: storage.imagesType, forceRawImages: storage.forceRawImages,
      imageTypeExcludeList: storage.imageTypeExcludeList, keptFormats: new Map(Object.entries(storage.keptFormats)),
    },
    swtpmEnabled: ctx.config.host.swtpmEnabled,
    ...(hostArch === undefined ? {} : { hostArch }),
  };

  if (flags.virsh === true) {
    const uri = text(flags, 'libvirt-uri') ?? ctx.config.host.libvirtUri;
    const xml = await traitsVirshXml({
      virtType: storage.virtType, runner: deps.runner, signal: ctx.signal, ...(uri === undefined ? {} : { uri }),
      machineTypes: ctx.config.host.machineTypes,
      readVersions: versions.libvirt === undefined || versions.qemu === undefined,
    });
    const libvirtVersion = versions.libvirt ?? xml.libvirtVersion;
    const qemuVersion = versions.qemu ?? xml.qemuVersion;
    return Object.freeze({
      host: { ...common, hostCapabilities: xml.hostCapabilities, domainCapabilities: xml.domainCapabilities,
        ...(libvirtVersion === undefined ? {} : { libvirtVersion }), ...(qemuVersion === undefined ? {} : { qemuVersion }) },
      storage, skipped: xml.skipped,
    });
  }
  const labels = sourceLabels(files);
  return Object.freeze({
    host: {
      ...common,
      domainCapabilities: files.map((file, i) => parseDomainCapabilities(read(ctx, file, 'domcaps'), labels[i])),
      ...(capabilitiesFile === undefined ? {} : {
        hostCapabilities: parseHostCapabilities(read(ctx, capabilitiesFile, 'capabilities'), basename(capabilitiesFile)),
      }),
      ...(versions.libvirt === undefined ? {} : { libvirtVersion: versions.libvirt }),
      ...(versions.qemu === undefined ? {} : { qemuVersion: versions.qemu }),
    },
    storage, skipped: [],
  });
}

/** The host's storage settings as the config resolved them, with the formats its backend mapping keeps as-is. */
function hostStorage(ctx: CommandContext): TraitsStorage {
  const host = ctx.config.host;
  const source = ctx.config.sources['host.imagesTypeMapping'];
  const backend = resolveBackendConfig({
    imagesType: host.imagesType, useCowImages: host.useCowImages,
    ...(host.imagesTypeMapping === undefined ? {} : { imagesTypeMapping: host.imagesTypeMapping }),
    ...(source === undefined ? {} : { source }),
  });
  return Object.freeze({
    imagesType: host.imagesType,
    imagesTypeMapping: host.imagesTypeMapping,
    forceRawImages: host.forceRawImages,
    useCowImages: host.useCowImages,
    imageTypeExcludeList: host.imageTypeExcludeList,
    virtType: host.virtType,
    keptFormats: Object.freeze(Object.fromEntries(keptFormats(backend))),
  });
}

function text(flags: Readonly<Record<string, FlagValue>>, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function list(value: FlagValue): readonly string[] {
  if (value === undefined || typeof value === 'boolean') return [];
  return typeof value === 'string' ? [value] : value;
}

/** File names in reasons: the base name, unless two files share it. */
function sourceLabels(files: readonly string[]): readonly string[] {
  const names = files.map((file) => basename(file));
  return files.map((file, i) => (names.filter((n) => n === names[i]).length > 1 ? file : (names[i] ?? file)));
}

function read(ctx: CommandContext, path: string, option: string): string {
  try {
    return ctx.readFile(path);
  } catch (error) {
    throw new FerryError('FERRY_INVALID_OPTION', `cannot read --${option} ${path}: ${(error as Error).message}`,
      'Check the path; collect the XML with virsh as docs/traits.md shows.', { option, path }, { cause: error });
  }
}

/** The catalogue names are checked against without a cloud: an os-traits release (default 2.9.0). */
export function osTraitsVersion(flags: Readonly<Record<string, FlagValue>>): string | undefined {
  const value = flags['os-traits-version'];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
