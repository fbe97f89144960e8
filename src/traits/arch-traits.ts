import type { DomainCapabilities } from './parse-domain-capabilities.js';
import { DOMCAPS_PATHS } from './parse-domain-capabilities.js';
import { domcapsValues, sourcesOf } from './domcaps-values.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, traitSuffix, valueReason } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';

export const COMPUTE_ARCH_PREFIX = 'COMPUTE_ARCH_';
export const HW_ARCH_PREFIX = 'HW_ARCH_';

/** The host CPU arch and where ferry learnt it, as a reason (`host/cpu/arch value 'x86_64' in capabilities.xml`). */
export interface HostArch {
  readonly arch: string;
  readonly reason: string;
}

const ALIASES: Readonly<Record<string, string>> = {
  i386: 'i686', i486: 'i686', i586: 'i686', x86_32: 'i686', x86_32p: 'i686', amd64: 'x86_64',
};

// libvirt and nova say armv7l/armv6l; os-traits names those arches HW_ARCH_ARMV7/HW_ARCH_ARMV6.
const HW_ARCH_NAMES: Readonly<Record<string, string>> = { armv7l: 'ARMV7', armv6l: 'ARMV6' };

/** nova's Architecture.canonicalize: lower case, the i386 family to i686, amd64 to x86_64. */
export function canonicalArch(arch: string): string {
  const lower = arch.trim().toLowerCase();
  return ALIASES[lower] ?? lower;
}

/** The HW_ARCH_ name for an arch; unlike nova, armv7l maps to os-traits' HW_ARCH_ARMV7 (nova's HW_ARCH_ARMV7L does not exist). */
export function hwArchTrait(arch: string): string {
  const canonical = canonicalArch(arch);
  return HW_ARCH_PREFIX + (HW_ARCH_NAMES[canonical] ?? traitSuffix(canonical));
}

/**
 * COMPUTE_ARCH_<arch> for every arch the given domain capabilities describe (the arches this host can emulate),
 * and HW_ARCH_<arch> for the host CPU. Each family is decided only when its input was given.
 */
export function archTraits(domcaps: readonly DomainCapabilities[], hostArch: HostArch | undefined, catalogue: TraitCatalogue): TraitFindings {
  const findings = new TraitFindingsBuilder(catalogue);
  if (domcaps.length > 0) {
    findings.decide(COMPUTE_ARCH_PREFIX);
    for (const [arch, sources] of domcapsValues(domcaps, (caps) => [canonicalArch(caps.arch)])) {
      findings.offer(
        COMPUTE_ARCH_PREFIX + traitSuffix(arch),
        valueReason(DOMCAPS_PATHS.arch, arch, sources),
        arch,
        `${DOMCAPS_PATHS.arch} in ${sources.join(', ')}`,
      );
    }
    for (const trait of catalogue.withPrefix(COMPUTE_ARCH_PREFIX)) {
      findings.absent(trait, `no domain capabilities for that arch among ${sourcesOf(domcaps)}`);
    }
  }
  if (hostArch !== undefined) {
    const canonical = canonicalArch(hostArch.arch);
    findings.decide(HW_ARCH_PREFIX);
    // The other 33 HW_ARCH_ names are absent by definition: listing each would only repeat the host arch.
    findings.offer(hwArchTrait(canonical), hostArch.reason, hostArch.arch, hostArch.reason);
  }
  return findings.build();
}
