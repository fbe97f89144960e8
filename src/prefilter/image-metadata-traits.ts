import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import {
  canonicalArchitecture, canonicalDiskBus, canonicalVideoModel, canonicalVifModel, canonicalViommuModel,
  ARCHITECTURES, DISK_BUSES, VIDEO_MODELS, VIF_MODELS, VIOMMU_MODELS,
} from './image-property-enums.js';
import type { EnumCanonicalizer } from './image-property-enums.js';
import { stringProperty } from './prefilter-image.js';
import type { ImageProperties } from './prefilter-image.js';
import type { UnmappedProperty } from './prefilter-result.js';
import { catalogueLabel, missingTraitReason } from './missing-trait-reason.js';

export interface TraitWithReason {
  readonly name: string;
  readonly reason: string;
}

export interface DerivedTraits {
  readonly traits: readonly TraitWithReason[];
  readonly unmapped: readonly UnmappedProperty[];
}

interface PropertyRule {
  readonly property: string;
  /** nova's legacy property name, copied into `property` when `property` itself is not set. */
  readonly legacy?: string;
  readonly prefix: string;
  readonly enumName: string;
  readonly allowed: string;
  readonly canonical: EnumCanonicalizer;
  /** Every canonical value → its trait name, and nova's wrong name where nova's prefix differs (P16); built once. */
  readonly names: ReadonlyMap<string, TraitName>;
}

interface TraitName {
  readonly name: string;
  readonly novaNote?: string;
}

/**
 * The name for each value, made once: `-` → `_`, upper case, prefix; armv7l → HW_ARCH_ARMV7. Built at load so that
 * every call reuses the same string objects, whose hashes V8 keeps (a fresh string per call made the catalogue
 * look-ups and the `reasons` keys the most expensive part of a prefilter computation).
 */
function traitNames(prefix: string, values: readonly string[], novaPrefix?: string): ReadonlyMap<string, TraitName> {
  return new Map(values.map((value) => {
    const suffix = value.replace(/-/g, '_').toUpperCase();
    if (prefix === 'HW_ARCH' && value === 'armv7l') {
      return [value, { name: 'HW_ARCH_ARMV7', novaNote: 'nova asks for HW_ARCH_ARMV7L, which does not exist' }];
    }
    const novaNote = novaPrefix === undefined ? undefined : `nova asks for ${novaPrefix}_${suffix}, which does not exist`;
    return [value, { name: `${prefix}_${suffix}`, ...(novaNote === undefined ? {} : { novaNote }) }];
  }));
}

const ARCH_ALLOWED = 'x86_64, aarch64, ppc64le, s390x, … (34 values; i386-i586, x86_32 and amd64 are aliases)';

// transform_image_metadata's prefix map (placement-and-traits.md §10.2), with the real os-traits prefixes.
const RULES: readonly PropertyRule[] = [
  { property: 'hw_cdrom_bus', prefix: 'COMPUTE_STORAGE_BUS', enumName: 'DiskBus', allowed: DISK_BUSES.join(', '), canonical: canonicalDiskBus,
    names: traitNames('COMPUTE_STORAGE_BUS', DISK_BUSES) },
  { property: 'hw_disk_bus', legacy: 'vmware_adaptertype', prefix: 'COMPUTE_STORAGE_BUS', enumName: 'DiskBus', allowed: DISK_BUSES.join(', '),
    canonical: canonicalDiskBus, names: traitNames('COMPUTE_STORAGE_BUS', DISK_BUSES) },
  { property: 'hw_video_model', prefix: 'COMPUTE_GRAPHICS_MODEL', enumName: 'VideoModel', allowed: VIDEO_MODELS.join(', '),
    canonical: canonicalVideoModel, names: traitNames('COMPUTE_GRAPHICS_MODEL', VIDEO_MODELS) },
  { property: 'hw_vif_model', prefix: 'COMPUTE_NET_VIF_MODEL', enumName: 'VIFModel', allowed: `${VIF_MODELS.join(', ')}, or a legacy VMware name`,
    canonical: canonicalVifModel, names: traitNames('COMPUTE_NET_VIF_MODEL', VIF_MODELS) },
  { property: 'hw_architecture', legacy: 'architecture', prefix: 'HW_ARCH', enumName: 'Architecture', allowed: ARCH_ALLOWED,
    canonical: canonicalArchitecture, names: traitNames('HW_ARCH', ARCHITECTURES) },
  { property: 'hw_emulation_architecture', prefix: 'COMPUTE_ARCH', enumName: 'Architecture', allowed: ARCH_ALLOWED,
    canonical: canonicalArchitecture, names: traitNames('COMPUTE_ARCH', ARCHITECTURES) },
  { property: 'hw_viommu_model', prefix: 'COMPUTE_VIOMMU_MODEL', enumName: 'VIOMMUModel', allowed: VIOMMU_MODELS.join(', '),
    canonical: canonicalViommuModel, names: traitNames('COMPUTE_VIOMMU_MODEL', VIOMMU_MODELS, 'COMPUTE_VIOMMU') },
];

// Properties ImagePropertiesFilter reads that have no trait family in os-traits: reported, never guessed.
const NOT_EXPRESSIBLE: readonly { readonly property: string; readonly legacy: string; readonly what: string }[] = [
  { property: 'img_hv_type', legacy: 'hypervisor_type', what: 'the hypervisor type' },
  { property: 'hw_vm_mode', legacy: 'vm_mode', what: 'the VM mode' },
];

interface Setting {
  readonly key: string;
  /** The value as the image has it. */
  readonly shown: string;
  /** The value nova reads for the property (differs after a legacy rewrite). */
  readonly value: string;
  /** How the value reached the property: a legacy name, a rewrite. */
  readonly via?: string;
}

/**
 * nova's image-metadata prefilter (`transform_image_metadata`), name by name, with the two nova name defects
 * fixed: hw_viommu_model → COMPUTE_VIOMMU_MODEL_<X>, hw_architecture=armv7l → HW_ARCH_ARMV7. Unlike nova, one
 * unmappable property does not drop the others: it is listed in `unmapped` with the reason.
 */
export function imageMetadataTraits(properties: ImageProperties, catalogue: TraitCatalogue): DerivedTraits {
  const traits: TraitWithReason[] = [];
  const unmapped: UnmappedProperty[] = [];
  for (const rule of RULES) {
    const setting = settingFor(rule, properties);
    if (setting === undefined) continue;
    const canonical = rule.canonical(setting.value);
    if (canonical === undefined) {
      unmapped.push({ property: setting.key, value: setting.shown, kind: 'invalid-value',
        reason: `'${setting.value}' is not one of nova's ${rule.enumName} values (${rule.allowed})${setting.via === undefined ? '' : `; ${setting.via}`}` });
      continue;
    }
    // Canonical values come from the same lists as the names, so the fallback only guards the types.
    const { name, novaNote } = rule.names.get(canonical) ?? { name: `${rule.prefix}_${canonical.toUpperCase()}` };
    if (!catalogue.has(name)) {
      unmapped.push({ property: setting.key, value: setting.shown, kind: 'unknown-trait', trait: name,
        reason: missingTraitReason(name, catalogue) });
      continue;
    }
    let reason = `image ${setting.key}=${setting.shown} (image-metadata prefilter`;
    if (setting.via !== undefined) reason += `; ${setting.via}`;
    if (canonical !== setting.value) reason += `; nova reads it as ${canonical}`;
    if (novaNote !== undefined) reason += `; ${novaNote}`;
    traits.push({ name, reason: `${reason})` });
  }
  for (const item of NOT_EXPRESSIBLE) {
    const current = stringProperty(properties, item.property);
    const legacy = current === undefined ? stringProperty(properties, item.legacy) : undefined;
    const value = current ?? legacy;
    if (value === undefined) continue;
    unmapped.push({ property: current === undefined ? item.legacy : item.property, value, kind: 'not-expressible',
      reason: `no standard trait expresses ${item.what} (${catalogueLabel(catalogue)}); nova's ImagePropertiesFilter checks it on each host after Placement` });
  }
  return { traits, unmapped };
}

// nova copies legacy names first and current names after, so the current name wins when both are set.
function settingFor(rule: PropertyRule, properties: ImageProperties): Setting | undefined {
  const current = stringProperty(properties, rule.property);
  if (current !== undefined) return { key: rule.property, shown: current, value: current };
  if (rule.legacy === undefined) return undefined;
  const legacy = stringProperty(properties, rule.legacy);
  if (legacy === undefined) return undefined;
  if (rule.legacy === 'vmware_adaptertype') {
    const bus = legacy === 'ide' ? 'ide' : 'scsi';
    return { key: rule.legacy, shown: legacy, value: bus, via: `nova turns vmware_adaptertype into hw_disk_bus=${bus}` };
  }
  return { key: rule.legacy, shown: legacy, value: legacy, via: `${rule.legacy} is the legacy name of ${rule.property}` };
}
