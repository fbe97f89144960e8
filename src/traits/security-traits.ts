import { canonicalArch } from './arch-traits.js';
import type { DomainCapabilities } from './parse-domain-capabilities.js';
import { DOMCAPS_PATHS } from './parse-domain-capabilities.js';
import { domcapsValues, sourcesOf } from './domcaps-values.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, traitSuffix, valueReason } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';

export const SECURE_BOOT_TRAIT = 'COMPUTE_SECURITY_UEFI_SECURE_BOOT';
const TPM = 'COMPUTE_SECURITY_TPM_';
/** The TPM names ferry decides: versions (in 2.9.0) and interface models (later os-traits). */
export const TPM_TRAITS = [`${TPM}1_2`, `${TPM}2_0`, `${TPM}TIS`, `${TPM}CRB`] as const;

export interface SecurityInput {
  readonly domcaps: readonly DomainCapabilities[];
  /** Host CPU arch; `undefined` → every given domain capabilities counts as the host arch's. */
  readonly hostArch: string | undefined;
  /** `[libvirt] swtpm_enabled`. */
  readonly swtpmEnabled: boolean;
}

/**
 * UEFI secure boot and vTPM traits, from the domain capabilities of the host arch (nova's rule, §9.4):
 * secure boot when any of them lists `yes` in `os/loader/enum[@name='secure']`; TPM traits only with
 * `[libvirt] swtpm_enabled` and an emulated TPM (`backendModel` emulator), versions from `backendVersion` (both
 * when libvirt reports none), interface models from `devices/tpm/enum[@name='model']` (tpm-tis → TPM_TIS).
 */
export function securityTraits(input: SecurityInput, catalogue: TraitCatalogue): TraitFindings {
  const findings = new TraitFindingsBuilder(catalogue);
  const host = input.hostArch === undefined ? undefined : canonicalArch(input.hostArch);
  const domcaps = host === undefined ? input.domcaps : input.domcaps.filter((caps) => canonicalArch(caps.arch) === host);
  const swtpm = `[libvirt] swtpm_enabled=${String(input.swtpmEnabled)}`;

  if (domcaps.length > 0) {
    findings.decide(SECURE_BOOT_TRAIT);
    const secure = domcapsValues(domcaps, (caps) => caps.loaderSecure).get('yes');
    if (secure !== undefined) findings.offer(SECURE_BOOT_TRAIT, valueReason(DOMCAPS_PATHS.loaderSecure, 'yes', secure), 'yes', DOMCAPS_PATHS.loaderSecure);
    else findings.absent(SECURE_BOOT_TRAIT, `no ${DOMCAPS_PATHS.loaderSecure} value 'yes' in ${sourcesOf(domcaps)}`);
  }

  if (!input.swtpmEnabled) {
    findings.decide(...TPM_TRAITS);
    for (const trait of TPM_TRAITS) findings.absent(trait, swtpm);
    return findings.build();
  }
  if (domcaps.length === 0) return findings.build();
  findings.decide(...TPM_TRAITS);
  const emulated = domcaps.filter((caps) => caps.tpm.supported && caps.tpm.backendModels.includes('emulator'));
  if (emulated.length === 0) {
    const why = `${swtpm}, but no ${DOMCAPS_PATHS.tpmBackendModel} value 'emulator' in ${sourcesOf(domcaps)} (nova-compute refuses to start so)`;
    for (const trait of TPM_TRAITS) findings.absent(trait, why);
    return findings.build();
  }

  const versions = domcapsValues(emulated, (caps) => caps.tpm.backendVersions ?? []);
  if (emulated.every((caps) => caps.tpm.backendVersions === undefined)) {
    const why = `${swtpm}; no ${DOMCAPS_PATHS.tpmBackendVersion} in ${sourcesOf(emulated)}, so both versions (nova's rule)`;
    for (const version of ['1.2', '2.0']) findings.offer(tpmVersionTrait(version), why, version, why);
  }
  for (const [version, sources] of versions) {
    const where = `${DOMCAPS_PATHS.tpmBackendVersion} in ${sources.join(', ')}`;
    findings.offer(tpmVersionTrait(version), `${swtpm}, ${valueReason(DOMCAPS_PATHS.tpmBackendVersion, version, sources)}`, version, where);
  }
  for (const [model, sources] of domcapsValues(emulated, (caps) => caps.tpm.models)) {
    const where = `${DOMCAPS_PATHS.tpmModel} in ${sources.join(', ')}`;
    findings.offer(TPM + traitSuffix(model.replace(/^tpm-/, '')), `${swtpm}, ${valueReason(DOMCAPS_PATHS.tpmModel, model, sources)}`, model, where);
  }
  for (const trait of TPM_TRAITS) findings.absent(trait, `${swtpm}, but not offered by ${sourcesOf(emulated)}`);
  return findings.build();
}

function tpmVersionTrait(version: string): string {
  return TPM + version.replace(/\./g, '_');
}
