/**
 * The values nova accepts for the image properties the metadata prefilter reads (`nova/objects/fields.py`), and
 * nova's own normalisation of them. A value outside these is rejected by nova's image-property types, so ferry
 * reports it instead of inventing a trait for it.
 */
export const DISK_BUSES = ['fdc', 'ide', 'sata', 'scsi', 'usb', 'virtio', 'xen', 'lxc', 'uml'] as const;

export const VIDEO_MODELS = ['cirrus', 'qxl', 'vga', 'vmvga', 'xen', 'virtio', 'gop', 'none', 'bochs'] as const;

export const VIF_MODELS = [
  'virtio', 'ne2k_pci', 'pcnet', 'rtl8139', 'e1000', 'e1000e', 'netfront', 'spapr-vlan', 'lan9118', 'sriov', 'vmxnet',
  'vmxnet3', 'igb',
] as const;

/** VMware adapter names nova maps to VIF models before checking them (VIFModel.LEGACY_VALUES). */
export const LEGACY_VIF_MODELS: Readonly<Record<string, string>> = {
  virtuale1000: 'e1000',
  virtuale1000e: 'e1000e',
  virtualpcnet32: 'pcnet',
  virtualsriovethernetcard: 'sriov',
  virtualvmxnet: 'vmxnet',
  virtualvmxnet3: 'vmxnet3',
};

export const VIOMMU_MODELS = ['intel', 'smmuv3', 'virtio', 'auto'] as const;

export const ARCHITECTURES = [
  'alpha', 'armv6', 'armv7l', 'armv7b', 'aarch64', 'cris', 'i686', 'ia64', 'lm32', 'm68k', 'microblaze', 'microblazeel',
  'mips', 'mipsel', 'mips64', 'mips64el', 'openrisc', 'parisc', 'parisc64', 'ppc', 'ppcle', 'ppc64', 'ppc64le', 'ppcemb',
  's390', 's390x', 'sh4', 'sh4eb', 'sparc', 'sparc64', 'unicore32', 'x86_64', 'xtensa', 'xtensaeb',
] as const;

/** Architecture.canonicalize: the old 32-bit x86 spellings and amd64. */
export const ARCHITECTURE_ALIASES: Readonly<Record<string, string>> = {
  i386: 'i686', i486: 'i686', i586: 'i686', x86_32: 'i686', x86_32p: 'i686', amd64: 'x86_64',
};

const diskBuses = new Set<string>(DISK_BUSES);
const videoModels = new Set<string>(VIDEO_MODELS);
const vifModels = new Set<string>(VIF_MODELS);
const viommuModels = new Set<string>(VIOMMU_MODELS);
const architectures = new Set<string>(ARCHITECTURES);

/** An enum value nova would store for the property, or undefined when nova rejects the value. */
export type EnumCanonicalizer = (value: string) => string | undefined;

// DiskBus, VideoModel and VIOMMUModel are plain oslo enums: exact, case-sensitive membership.
export const canonicalDiskBus: EnumCanonicalizer = (v) => (diskBuses.has(v) ? v : undefined);
export const canonicalVideoModel: EnumCanonicalizer = (v) => (videoModels.has(v) ? v : undefined);
export const canonicalViommuModel: EnumCanonicalizer = (v) => (viommuModels.has(v) ? v : undefined);

/** VIFModel.coerce: lower-case, legacy VMware names first, then membership. */
export const canonicalVifModel: EnumCanonicalizer = (v) => {
  const lower = v.toLowerCase();
  const mapped = LEGACY_VIF_MODELS[lower] ?? lower;
  return vifModels.has(mapped) ? mapped : undefined;
};

/** Architecture.canonicalize: lower-case, aliases, then membership. */
export const canonicalArchitecture: EnumCanonicalizer = (v) => {
  const lower = v.toLowerCase();
  const mapped = ARCHITECTURE_ALIASES[lower] ?? lower;
  return architectures.has(mapped) ? mapped : undefined;
};
