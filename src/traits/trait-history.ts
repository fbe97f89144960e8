/**
 * What ferry knows about when standard trait names appeared, so it never emits a name the target Placement lacks.
 * Sources: shared reference placement-and-traits.md §7 (first releases per family, names missing from 2.9.0) and
 * upstream os_traits source files (names only). A `firstVersion` of `undefined` means "after 2.9.0, release not
 * known to ferry": such a name is never part of a catalogue built from a version number, only of one read from
 * Placement (`GET /traits`).
 */
export interface LaterTraitName {
  readonly name: string;
  readonly firstVersion: string | undefined;
}

/** Names that are not in os-traits 2.9.0 but exist in a later release. */
export const LATER_TRAIT_NAMES: readonly LaterTraitName[] = [
  { name: 'COMPUTE_NET_VIRTIO_PACKED', firstVersion: '3.0.0' },
  { name: 'COMPUTE_NET_VIF_MODEL_IGB', firstVersion: '3.2.0' },
  { name: 'COMPUTE_SECURITY_TPM_TIS', firstVersion: undefined },
  { name: 'COMPUTE_SECURITY_TPM_CRB', firstVersion: undefined },
  { name: 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER', firstVersion: undefined },
  { name: 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST', firstVersion: undefined },
  { name: 'COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT', firstVersion: undefined },
  { name: 'COMPUTE_SECURITY_STATELESS_FIRMWARE', firstVersion: undefined },
  { name: 'COMPUTE_ADDRESS_SPACE_PASSTHROUGH', firstVersion: undefined },
  { name: 'COMPUTE_ADDRESS_SPACE_EMULATED', firstVersion: undefined },
  { name: 'COMPUTE_SHARE_LOCAL_FS', firstVersion: undefined },
  { name: 'COMPUTE_USB_MODEL_QEMU_XHCI', firstVersion: undefined },
  { name: 'COMPUTE_USB_MODEL_NEC_XHCI', firstVersion: undefined },
  ...['SB16', 'ES1370', 'PCSPK', 'AC97', 'ICH6', 'ICH9', 'USB', 'VIRTIO'].map((model) => ({
    name: `COMPUTE_SOUND_MODEL_${model}`,
    firstVersion: undefined,
  })),
];

/** First release of names that are in 2.9.0, per family, with the exceptions the reference records. */
const FIRST_VERSION_BY_PREFIX: readonly { readonly prefix: string; readonly version: string }[] = [
  { prefix: 'COMPUTE_IMAGE_TYPE_PLOOP', version: '2.0.0' },
  { prefix: 'COMPUTE_IMAGE_TYPE_', version: '0.12.0' },
  { prefix: 'COMPUTE_GRAPHICS_MODEL_BOCHS', version: '2.6.0' },
  { prefix: 'COMPUTE_GRAPHICS_MODEL_', version: '0.15.0' },
  { prefix: 'COMPUTE_NET_VIF_MODEL_', version: '0.15.0' },
  { prefix: 'COMPUTE_STORAGE_BUS_', version: '0.15.0' },
  { prefix: 'COMPUTE_ARCH_', version: '2.7.0' },
  { prefix: 'HW_ARCH_', version: '2.7.0' },
  { prefix: 'COMPUTE_VIOMMU_MODEL_', version: '2.8.0' },
];

const LATER_BY_NAME = new Map(LATER_TRAIT_NAMES.map((entry) => [entry.name, entry]));

/**
 * The os-traits release that introduced `name`, when ferry knows it. `inBase` says whether the name is in the
 * base list (2.9.0); the family table only applies to names that exist there, so an invented name in a known
 * family (`COMPUTE_ARCH_I686`) gets `undefined`, not the family's version.
 */
export function traitFirstVersion(name: string, inBase: boolean): string | undefined {
  const later = LATER_BY_NAME.get(name);
  if (later !== undefined) return later.firstVersion;
  if (!inBase) return undefined;
  return FIRST_VERSION_BY_PREFIX.find((entry) => name.startsWith(entry.prefix))?.version;
}

/** True when ferry knows the name exists in some os-traits release after the base list. */
export function isLaterTraitName(name: string): boolean {
  return LATER_BY_NAME.has(name);
}
