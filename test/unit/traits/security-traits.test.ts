import { describe, expect, it } from 'vitest';
import type { DomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import { securityTraits } from '../../../src/traits/security-traits.js';
import { standardTraitCatalogue, traitCatalogueFromNames } from '../../../src/traits/trait-catalogue.js';
import { loadDomcaps } from './domcaps-fixtures.js';

const catalogue = standardTraitCatalogue();
const pc = loadDomcaps('domcaps-x86_64-kvm-pc.xml');
const q35 = loadDomcaps('domcaps-x86_64-kvm-q35.xml');
const noSwtpm: DomainCapabilities = { ...q35, source: 'no-swtpm.xml', tpm: { supported: true, models: ['tpm-tis', 'tpm-crb'], backendModels: ['passthrough'], backendVersions: undefined } };
const oldLibvirt: DomainCapabilities = { ...q35, source: 'old.xml', tpm: { supported: true, models: ['tpm-tis'], backendModels: ['emulator'], backendVersions: undefined } };
const only20: DomainCapabilities = { ...q35, source: 'v20.xml', tpm: { supported: true, models: ['tpm-crb'], backendModels: ['emulator'], backendVersions: ['2.0'] } };
const armQ35: DomainCapabilities = { ...q35, source: 'arm.xml', arch: 'aarch64' };

const cases = [
  { name: 'q35 (secure yes), swtpm on', domcaps: [q35], hostArch: 'x86_64', swtpm: true, expected: ['COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
  { name: 'pc (secure no), swtpm on', domcaps: [pc], hostArch: 'x86_64', swtpm: true, expected: ['COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0'] },
  { name: 'q35, swtpm off', domcaps: [q35], hostArch: 'x86_64', swtpm: false, expected: ['COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
  { name: 'no emulator backend, swtpm on', domcaps: [noSwtpm], hostArch: 'x86_64', swtpm: true, expected: ['COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
  { name: 'no backendVersion enum → both versions', domcaps: [oldLibvirt], hostArch: 'x86_64', swtpm: true, expected: ['COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
  { name: 'backendVersion 2.0 only', domcaps: [only20], hostArch: 'x86_64', swtpm: true, expected: ['COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
  // Secure boot and TPM count only the host arch's domain capabilities.
  { name: 'secure boot only in a foreign arch', domcaps: [pc, armQ35], hostArch: 'x86_64', swtpm: false, expected: [] },
  { name: 'host arch unknown: every file counts', domcaps: [pc, armQ35], hostArch: undefined, swtpm: false, expected: ['COMPUTE_SECURITY_UEFI_SECURE_BOOT'] },
];

describe('securityTraits', () => {
  it.each(cases)('securityTraits: $name', ({ domcaps, hostArch, swtpm, expected }) => {
    expect(securityTraits({ domcaps, hostArch, swtpmEnabled: swtpm }, catalogue).traits).toEqual(expected);
  });

  it('securityTraits: with a later catalogue the TPM interface models become traits', () => {
    const later = traitCatalogueFromNames([...catalogue.withPrefix(''), 'COMPUTE_SECURITY_TPM_TIS', 'COMPUTE_SECURITY_TPM_CRB']);
    expect(securityTraits({ domcaps: [q35], hostArch: 'x86_64', swtpmEnabled: true }, later).traits).toEqual([
      'COMPUTE_SECURITY_TPM_1_2', 'COMPUTE_SECURITY_TPM_2_0', 'COMPUTE_SECURITY_TPM_CRB', 'COMPUTE_SECURITY_TPM_TIS', 'COMPUTE_SECURITY_UEFI_SECURE_BOOT',
    ]);
  });

  it('securityTraits: swtpm on without an emulator backend explains the missing TPM traits', () => {
    expect(securityTraits({ domcaps: [noSwtpm], hostArch: 'x86_64', swtpmEnabled: true }, catalogue).absent['COMPUTE_SECURITY_TPM_2_0']).toBe(
      "[libvirt] swtpm_enabled=true, but no devices/tpm/enum[@name='backendModel'] value 'emulator' in no-swtpm.xml (nova-compute refuses to start so)",
    );
  });

  it('securityTraits: swtpm on without host-arch domain capabilities decides nothing', () => {
    expect(securityTraits({ domcaps: [], hostArch: 'x86_64', swtpmEnabled: true }, catalogue).decidedFamilies).toEqual([]);
  });

  it('securityTraits: pc alone decides secure boot as absent, with the file named', () => {
    const result = securityTraits({ domcaps: [pc], hostArch: 'x86_64', swtpmEnabled: false }, catalogue);
    expect(result.absent['COMPUTE_SECURITY_UEFI_SECURE_BOOT']).toBe("no os/loader/enum[@name='secure'] value 'yes' in domcaps-x86_64-kvm-pc.xml");
    expect(result.decidedFamilies).toContain('COMPUTE_SECURITY_UEFI_SECURE_BOOT');
  });
});
