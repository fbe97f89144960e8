import { describe, expect, it } from 'vitest';
import { archTraits, canonicalArch, hwArchTrait } from '../../../src/traits/arch-traits.js';
import type { DomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { loadDomcaps } from './domcaps-fixtures.js';

const catalogue = standardTraitCatalogue();
const x86 = loadDomcaps('domcaps-x86_64-qemu-q35.xml');
const withArch = (arch: string): DomainCapabilities => ({ ...x86, source: `domcaps-${arch}.xml`, arch });

describe('canonicalArch and hwArchTrait', () => {
  const cases = [
    { arch: 'x86_64', canonical: 'x86_64', trait: 'HW_ARCH_X86_64' },
    { arch: 'AMD64', canonical: 'x86_64', trait: 'HW_ARCH_X86_64' },
    { arch: 'i386', canonical: 'i686', trait: 'HW_ARCH_I686' },
    { arch: 'x86_32p', canonical: 'i686', trait: 'HW_ARCH_I686' },
    { arch: 'aarch64', canonical: 'aarch64', trait: 'HW_ARCH_AARCH64' },
    { arch: 'armv7l', canonical: 'armv7l', trait: 'HW_ARCH_ARMV7' },
    { arch: 'armv6l', canonical: 'armv6l', trait: 'HW_ARCH_ARMV6' },
    { arch: 'ppc64le', canonical: 'ppc64le', trait: 'HW_ARCH_PPC64LE' },
    { arch: 's390x', canonical: 's390x', trait: 'HW_ARCH_S390X' },
  ];
  it.each(cases)('canonicalArch($arch) = $canonical, hwArchTrait = $trait', ({ arch, canonical, trait }) => {
    expect(canonicalArch(arch)).toBe(canonical);
    expect(hwArchTrait(arch)).toBe(trait);
  });
});

describe('archTraits', () => {
  it('archTraits: COMPUTE_ARCH_ per domcaps arch, HW_ARCH_ from the host arch', () => {
    const result = archTraits([x86, withArch('aarch64')], { arch: 'x86_64', reason: "host/cpu/arch value 'x86_64' in capabilities.xml" }, catalogue);
    expect(result.traits).toEqual(['COMPUTE_ARCH_AARCH64', 'COMPUTE_ARCH_X86_64', 'HW_ARCH_X86_64']);
    expect(result.decidedFamilies).toEqual(['COMPUTE_ARCH_', 'HW_ARCH_']);
  });

  it('archTraits: i686 and armv7l have no COMPUTE_ARCH_ trait and are unmapped', () => {
    const result = archTraits([withArch('i686'), withArch('armv7l')], undefined, catalogue);
    expect(result.traits).toEqual([]);
    expect(result.unmapped).toEqual([
      { value: 'armv7l', source: 'arch in domcaps-armv7l.xml', trait: 'COMPUTE_ARCH_ARMV7L', why: 'COMPUTE_ARCH_ARMV7L is not a trait in os-traits 2.9.0' },
      { value: 'i686', source: 'arch in domcaps-i686.xml', trait: 'COMPUTE_ARCH_I686', why: 'COMPUTE_ARCH_I686 is not a trait in os-traits 2.9.0' },
    ]);
  });

  it('archTraits: an armv7l host gets os-traits HW_ARCH_ARMV7 (nova would drop HW_ARCH_ARMV7L)', () => {
    expect(archTraits([], { arch: 'armv7l', reason: "hostArch option 'armv7l'" }, catalogue).traits).toEqual(['HW_ARCH_ARMV7']);
  });

  it('archTraits: nothing given decides nothing', () => {
    expect(archTraits([], undefined, catalogue)).toMatchObject({ traits: [], decidedFamilies: [] });
  });
});
