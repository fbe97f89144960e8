import { formatVersion, versionAtLeast } from './compare-versions.js';
import type { VersionParts } from './compare-versions.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, traitSuffix } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';
import type { VirtType } from './virt-type.js';

export const VIF_MODEL_PREFIX = 'COMPUTE_NET_VIF_MODEL_';

/** nova's SUPPORTED_VIF_MODELS (vif.py, master): libvirt's domain capabilities list no NIC models. */
export const SUPPORTED_VIF_MODELS: { readonly [V in VirtType]: readonly string[] } = {
  qemu: ['virtio', 'ne2k_pci', 'pcnet', 'rtl8139', 'e1000', 'e1000e', 'lan9118', 'spapr-vlan', 'vmxnet3', 'igb'],
  kvm: ['virtio', 'ne2k_pci', 'pcnet', 'rtl8139', 'e1000', 'e1000e', 'spapr-vlan', 'vmxnet3', 'igb'],
  lxc: [],
  parallels: ['virtio', 'rtl8139', 'e1000'],
};

/** igb needs both; nova drops it below them. */
export const IGB_MIN_LIBVIRT: VersionParts = [9, 3, 0];
export const IGB_MIN_QEMU: VersionParts = [8, 0, 0];

export interface HypervisorVersions {
  readonly libvirt: VersionParts | undefined;
  readonly qemu: VersionParts | undefined;
}

/**
 * COMPUTE_NET_VIF_MODEL_* from nova's per-virt-type table. igb only when libvirt ≥ 9.3.0 and QEMU ≥ 8.0.0 and the
 * catalogue has it (os-traits ≥ 3.2.0). With either version unknown ferry does not claim igb and does not decide it
 * either (a sync leaves an igb trait set by nova alone); every other name of the family is decided.
 */
export function vifModelTraits(virtType: VirtType, versions: HypervisorVersions, catalogue: TraitCatalogue): TraitFindings {
  const findings = new TraitFindingsBuilder(catalogue);
  const models = SUPPORTED_VIF_MODELS[virtType];
  const table = `[libvirt] virt_type=${virtType}: in nova's VIF model table for ${virtType} (libvirt lists no NIC models)`;
  const igbTrait = VIF_MODEL_PREFIX + 'IGB';
  const versionsKnown = versions.libvirt !== undefined && versions.qemu !== undefined;
  const igbOk = versionAtLeast(versions.libvirt, IGB_MIN_LIBVIRT) && versionAtLeast(versions.qemu, IGB_MIN_QEMU);
  const hypervisor = `libvirt ${describe(versions.libvirt)}, QEMU ${describe(versions.qemu)}`;

  if (versionsKnown) {
    findings.decide(VIF_MODEL_PREFIX);
  } else {
    findings.decide(...catalogue.withPrefix(VIF_MODEL_PREFIX).filter((trait) => trait !== igbTrait));
  }
  for (const model of models) {
    const trait = VIF_MODEL_PREFIX + traitSuffix(model);
    if (model !== 'igb') {
      findings.offer(trait, table, model, table);
    } else if (igbOk) {
      findings.offer(trait, `${table}; ${hypervisor} meet igb's libvirt ≥ 9.3.0 and QEMU ≥ 8.0.0`, model, table);
    } else {
      findings.absent(trait, `igb needs libvirt ≥ 9.3.0 and QEMU ≥ 8.0.0; this host: ${hypervisor}`);
    }
  }
  for (const trait of catalogue.withPrefix(VIF_MODEL_PREFIX)) {
    findings.absent(trait, `[libvirt] virt_type=${virtType}: not in nova's VIF model table for ${virtType}`);
  }
  return findings.build();
}

function describe(version: VersionParts | undefined): string {
  return version === undefined ? 'unknown' : formatVersion(version);
}
