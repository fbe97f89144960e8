import { FerryError } from '../errors/ferry-error.js';
import { parseVersion } from './compare-versions.js';
import { archTraits, canonicalArch } from './arch-traits.js';
import type { HostArch } from './arch-traits.js';
import { graphicsModelTraits } from './graphics-model-traits.js';
import { imageTypeTraits } from './image-type-traits.js';
import type { HostStorageConfig } from './image-type-traits.js';
import type { DomainCapabilities } from './parse-domain-capabilities.js';
import { HOST_CPU_ARCH_PATH } from './parse-host-capabilities.js';
import type { HostCapabilities } from './parse-host-capabilities.js';
import { securityTraits } from './security-traits.js';
import { storageBusTraits } from './storage-bus-traits.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, valueReason } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';
import { vifModelTraits } from './vif-model-traits.js';
import { viommuModelTraits } from './viommu-model-traits.js';
import { assertVirtType, domcapsDomainsFor } from './virt-type.js';
import type { VirtType } from './virt-type.js';

/** Everything ferry knows about a compute host, as plain data (parsed XML, nova.conf values, versions). */
export interface HostCapabilitiesInput {
  /** `[libvirt] virt_type`. */
  readonly virtType: VirtType;
  /** Storage options; defaults as nova's (images_type=default, force_raw_images=true, nothing excluded). */
  readonly storage?: HostStorageConfig;
  /** One per (arch, machine type) nova queries (pc + q35 for x86_64); combined as a union. */
  readonly domainCapabilities?: readonly DomainCapabilities[];
  /** Parsed `virsh capabilities`: source of the host CPU arch. */
  readonly hostCapabilities?: HostCapabilities;
  /** Host CPU arch when no capabilities XML is given; must agree with it when both are. */
  readonly hostArch?: string;
  /** libvirt version (`9.0.0`); unknown → virtio vIOMMU and igb are neither claimed nor removed. */
  readonly libvirtVersion?: string;
  /** QEMU version (`7.2.22`). */
  readonly qemuVersion?: string;
  /** `[libvirt] swtpm_enabled`; default false, as nova's. */
  readonly swtpmEnabled?: boolean;
}

/** The `ferry traits report --json` document: `traits`, `reasons`, `unmapped`, plus what explains them. */
export interface HostTraitReport extends TraitFindings {
  /** The catalogue every emitted name was checked against (`2.9.0`, or `placement`). */
  readonly catalogueVersion: string;
  readonly virtType: VirtType;
  /** Canonical host CPU arch, when known. */
  readonly hostArch: string | undefined;
  /** The domain capabilities sources read, in input order. */
  readonly domainCapabilities: readonly string[];
}

export const HOST_TRAIT_DEFAULTS = { swtpmEnabled: false } as const;

/**
 * All traits ferry computes for a host: image types (storage config), storage buses, video models, VIF models,
 * arches, vIOMMU models, secure boot and TPM. Each trait carries its reason; values without a trait in `catalogue`
 * are listed as unmapped, never emitted. Inconsistent input (domain capabilities for another virt type, two host
 * arches) throws FERRY_INVALID_OPTION.
 */
export function hostTraits(input: HostCapabilitiesInput, catalogue: TraitCatalogue): HostTraitReport {
  const virtType = assertVirtType(input.virtType);
  const domcaps = input.domainCapabilities ?? [];
  assertDomainsMatch(domcaps, virtType);
  const hostArch = resolveHostArch(input);
  const versions = {
    libvirt: input.libvirtVersion === undefined ? undefined : parseVersion(input.libvirtVersion, 'libvirtVersion'),
    qemu: input.qemuVersion === undefined ? undefined : parseVersion(input.qemuVersion, 'qemuVersion'),
  };
  const parts: readonly TraitFindings[] = [
    imageTypeTraits({ ...input.storage, virtType }, catalogue),
    storageBusTraits(virtType, domcaps, catalogue),
    graphicsModelTraits(domcaps, catalogue),
    vifModelTraits(virtType, versions, catalogue),
    archTraits(domcaps, hostArch, catalogue),
    viommuModelTraits(domcaps, versions.libvirt, catalogue),
    securityTraits(
      { domcaps, hostArch: hostArch?.arch, swtpmEnabled: input.swtpmEnabled ?? HOST_TRAIT_DEFAULTS.swtpmEnabled },
      catalogue,
    ),
  ];
  const findings = parts.reduce((builder, part) => builder.merge(part), new TraitFindingsBuilder(catalogue)).build();
  return Object.freeze({
    ...findings,
    catalogueVersion: catalogue.version,
    virtType,
    hostArch: hostArch === undefined ? undefined : canonicalArch(hostArch.arch),
    domainCapabilities: Object.freeze(domcaps.map((caps) => caps.source)),
  });
}

function assertDomainsMatch(domcaps: readonly DomainCapabilities[], virtType: VirtType): void {
  const accepted = domcapsDomainsFor(virtType);
  const wrong = domcaps.find((caps) => !accepted.includes(caps.domain));
  if (wrong !== undefined) {
    throw new FerryError(
      'FERRY_INVALID_OPTION',
      `${wrong.source} describes virt type ${wrong.domain}, but [libvirt] virt_type is ${virtType}: ` +
        `its devices need not be what ${virtType} guests get`,
      `Collect domain capabilities with \`virsh domcapabilities --virttype ${virtType} --arch ${wrong.arch} --machine …\`, ` +
        'or correct virt_type.',
      { option: 'domainCapabilities', source: wrong.source, domain: wrong.domain, virtType },
    );
  }
}

function resolveHostArch(input: HostCapabilitiesInput): HostArch | undefined {
  const fromXml = input.hostCapabilities;
  const given = input.hostArch?.trim();
  if (fromXml !== undefined && given !== undefined && given !== '' && canonicalArch(given) !== canonicalArch(fromXml.hostArch)) {
    throw new FerryError(
      'FERRY_INVALID_OPTION',
      `hostArch '${given}' contradicts ${HOST_CPU_ARCH_PATH} '${fromXml.hostArch}' in ${fromXml.source}`,
      'Give one of the two, or make them agree.',
      { option: 'hostArch', value: given, capabilities: fromXml.hostArch },
    );
  }
  if (fromXml !== undefined) {
    return { arch: fromXml.hostArch, reason: valueReason(HOST_CPU_ARCH_PATH, fromXml.hostArch, [fromXml.source]) };
  }
  if (given !== undefined && given !== '') return { arch: given, reason: `hostArch option '${given}'` };
  return undefined;
}
