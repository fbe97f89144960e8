import { FerryError } from '../errors/ferry-error.js';
import { COMPUTE_ARCH_PREFIX, HW_ARCH_PREFIX } from './arch-traits.js';
import { GRAPHICS_MODEL_PREFIX } from './graphics-model-traits.js';
import { IMAGE_TYPE_PREFIX } from './image-type-traits.js';
import { SECURE_BOOT_TRAIT, TPM_TRAITS } from './security-traits.js';
import { STORAGE_BUS_PREFIX } from './storage-bus-traits.js';
import { VIF_MODEL_PREFIX } from './vif-model-traits.js';
import { VIOMMU_MODEL_PREFIX } from './viommu-model-traits.js';

/**
 * Every trait family ferry computes. An entry ending in `_` is a prefix (`COMPUTE_STORAGE_BUS_`); any other entry
 * is one exact name (`COMPUTE_SECURITY_UEFI_SECURE_BOOT`). TPM names are listed one by one so the later
 * `COMPUTE_SECURITY_TPM_SECRET_SECURITY_*` traits, which ferry does not compute, stay untouched.
 */
export const FERRY_TRAIT_FAMILIES: readonly string[] = [
  IMAGE_TYPE_PREFIX,
  STORAGE_BUS_PREFIX,
  GRAPHICS_MODEL_PREFIX,
  VIF_MODEL_PREFIX,
  COMPUTE_ARCH_PREFIX,
  HW_ARCH_PREFIX,
  VIOMMU_MODEL_PREFIX,
  SECURE_BOOT_TRAIT,
  ...TPM_TRAITS,
];

const FAMILY = /^[A-Z0-9_]+$/;

/** Whether `name` belongs to one of `families` (prefix entries end in `_`, other entries are exact names). */
export function inTraitFamilies(name: string, families: readonly string[]): boolean {
  return families.some((family) => (family.endsWith('_') ? name.startsWith(family) : name === family));
}

/**
 * Reject family lists that would match too much (an empty string, `_`), nothing real (lower case), or the
 * operator's own CUSTOM_ traits, which ferry never adds or removes.
 */
export function assertTraitFamilies(families: readonly string[]): void {
  const bad = families.filter((family) => !FAMILY.test(family) || family === '_' || family.startsWith('CUSTOM_'));
  if (bad.length > 0) {
    throw new FerryError(
      'FERRY_INVALID_OPTION',
      `trait families must be standard trait names or prefixes ending in '_' (not CUSTOM_), got ${bad.map((b) => `'${b}'`).join(', ')}`,
      `Use prefixes such as ${IMAGE_TYPE_PREFIX} or exact names such as ${SECURE_BOOT_TRAIT}.`,
      { option: 'ownedFamilies', value: bad },
    );
  }
}
