import { formatVersion, versionAtLeast } from './compare-versions.js';
import type { VersionParts } from './compare-versions.js';
import { canonicalArch } from './arch-traits.js';
import type { DomainCapabilities } from './parse-domain-capabilities.js';
import { DOMCAPS_PATHS } from './parse-domain-capabilities.js';
import { domcapsValues, sourcesOf } from './domcaps-values.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, valueReason } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';

export const VIOMMU_MODEL_PREFIX = 'COMPUTE_VIOMMU_MODEL_';
export const VIOMMU_VIRTIO_MIN_LIBVIRT: VersionParts = [8, 3, 0];

const AUTO = `${VIOMMU_MODEL_PREFIX}AUTO`;
const VIRTIO = `${VIOMMU_MODEL_PREFIX}VIRTIO`;
// libvirt 9.0 domain capabilities have no <iommu> element: the model follows from the emulated arch (nova's rule).
const BY_ARCH: readonly { readonly arch: string; readonly trait: string }[] = [
  { arch: 'x86_64', trait: `${VIOMMU_MODEL_PREFIX}INTEL` },
  { arch: 'aarch64', trait: `${VIOMMU_MODEL_PREFIX}SMMUV3` },
];

/**
 * COMPUTE_VIOMMU_MODEL_*, nova's rule: auto always; intel when x86_64 is among the domain capabilities' arches,
 * smmuv3 when aarch64 is; virtio when libvirt ≥ 8.3.0. Each name is decided only when its input was given: intel
 * and smmuv3 need domain capabilities, virtio needs the libvirt version (unknown → not claimed, not removed).
 */
export function viommuModelTraits(
  domcaps: readonly DomainCapabilities[],
  libvirtVersion: VersionParts | undefined,
  catalogue: TraitCatalogue,
): TraitFindings {
  const findings = new TraitFindingsBuilder(catalogue).decide(AUTO);
  findings.offer(AUTO, 'always: libvirt picks the model for the machine type', 'auto', 'nova vIOMMU rule');

  if (domcaps.length > 0) {
    const arches = domcapsValues(domcaps, (caps) => [canonicalArch(caps.arch)]);
    for (const { arch, trait } of BY_ARCH) {
      findings.decide(trait);
      const sources = arches.get(arch);
      if (sources === undefined) findings.absent(trait, `no ${arch} domain capabilities among ${sourcesOf(domcaps)}`);
      else findings.offer(trait, valueReason(DOMCAPS_PATHS.arch, arch, sources), arch, DOMCAPS_PATHS.arch);
    }
  }

  if (libvirtVersion === undefined) {
    findings.absent(VIRTIO, 'libvirt version unknown (virtio needs libvirt ≥ 8.3.0): give libvirtVersion to decide it');
  } else {
    findings.decide(VIRTIO);
    const libvirt = `libvirt ${formatVersion(libvirtVersion)}`;
    if (versionAtLeast(libvirtVersion, VIOMMU_VIRTIO_MIN_LIBVIRT)) findings.offer(VIRTIO, `${libvirt} ≥ 8.3.0`, 'virtio', libvirt);
    else findings.absent(VIRTIO, `${libvirt} < 8.3.0`);
  }
  return findings.build();
}
