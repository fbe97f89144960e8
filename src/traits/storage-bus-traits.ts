import type { DomainCapabilities } from './parse-domain-capabilities.js';
import { DOMCAPS_PATHS } from './parse-domain-capabilities.js';
import { domcapsValues, sourcesOf } from './domcaps-values.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, traitSuffix, valueReason } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';
import type { VirtType } from './virt-type.js';

export const STORAGE_BUS_PREFIX = 'COMPUTE_STORAGE_BUS_';

/** nova's SUPPORTED_DEVICE_BUSES (blockinfo.py): used as-is for virt types whose buses libvirt does not list. */
export const SUPPORTED_DEVICE_BUSES: { readonly [V in VirtType]: readonly string[] } = {
  qemu: ['virtio', 'scsi', 'ide', 'usb', 'fdc', 'sata'],
  kvm: ['virtio', 'scsi', 'ide', 'usb', 'fdc', 'sata'],
  lxc: ['lxc'],
  parallels: ['ide', 'scsi'],
};

/**
 * COMPUTE_STORAGE_BUS_*: for qemu/kvm the union of `devices/disk/enum[@name='bus']` over the given domain
 * capabilities (undecided when none are given); for lxc and parallels nova's fixed table. Unlike nova (a
 * document-wide `//enum[@name='bus']`), only disk buses count: redirdev's USB redirection bus is not a disk bus.
 */
export function storageBusTraits(virtType: VirtType, domcaps: readonly DomainCapabilities[], catalogue: TraitCatalogue): TraitFindings {
  const findings = new TraitFindingsBuilder(catalogue);
  if (virtType === 'lxc' || virtType === 'parallels') {
    const buses = SUPPORTED_DEVICE_BUSES[virtType];
    const table = `nova's fixed bus list for ${virtType} (${buses.join(', ')})`;
    findings.decide(STORAGE_BUS_PREFIX);
    for (const bus of buses) {
      findings.offer(STORAGE_BUS_PREFIX + traitSuffix(bus), `[libvirt] virt_type=${virtType}: in ${table}`, bus, table);
    }
    for (const trait of catalogue.withPrefix(STORAGE_BUS_PREFIX)) {
      findings.absent(trait, `[libvirt] virt_type=${virtType}: not in ${table}`);
    }
    return findings.build();
  }
  if (domcaps.length === 0) return findings.build();
  findings.decide(STORAGE_BUS_PREFIX);
  for (const [bus, sources] of domcapsValues(domcaps, (caps) => caps.diskBuses)) {
    findings.offer(
      STORAGE_BUS_PREFIX + traitSuffix(bus),
      valueReason(DOMCAPS_PATHS.diskBus, bus, sources),
      bus,
      `${DOMCAPS_PATHS.diskBus} in ${sources.join(', ')}`,
    );
  }
  for (const trait of catalogue.withPrefix(STORAGE_BUS_PREFIX)) {
    findings.absent(trait, `not in ${DOMCAPS_PATHS.diskBus} of ${sourcesOf(domcaps)}`);
  }
  return findings.build();
}
