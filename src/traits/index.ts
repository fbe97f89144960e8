// The traits module's public surface: the trait catalogue, libvirt XML parsing, host capabilities → traits, and the
// pure decision for a Placement trait sync.
export { standardTraitCatalogue, traitCatalogueFromNames, describeMissingTrait, KNOWN_OS_TRAITS_VERSIONS, DEFAULT_OS_TRAITS_VERSION } from './trait-catalogue.js';
export type { TraitCatalogue } from './trait-catalogue.js';
export { LATER_TRAIT_NAMES } from './trait-history.js';
export type { LaterTraitName } from './trait-history.js';
export { parseDomainCapabilities, DOMCAPS_PATHS } from './parse-domain-capabilities.js';
export type { DomainCapabilities, DomainCapabilitiesTpm } from './parse-domain-capabilities.js';
export { parseHostCapabilities } from './parse-host-capabilities.js';
export type { HostCapabilities, GuestArch, GuestMachine } from './parse-host-capabilities.js';
export { hostTraits, HOST_TRAIT_DEFAULTS } from './host-traits.js';
export type { HostCapabilitiesInput, HostTraitReport } from './host-traits.js';
export { imageTypeTraits, IMAGE_TYPE_DEFAULTS, NOVA_IMAGE_TYPES } from './image-type-traits.js';
export type { HostStorageConfig, ImageTypeInput } from './image-type-traits.js';
export type { TraitFindings, UnmappedValue } from './trait-findings.js';
export { planTraitSync, unknownTraitsError } from './plan-trait-sync.js';
export type { TraitSyncPlan } from './plan-trait-sync.js';
export { FERRY_TRAIT_FAMILIES, inTraitFamilies } from './trait-families.js';
export { VIRT_TYPES, DEFAULT_VIRT_TYPE } from './virt-type.js';
export type { VirtType } from './virt-type.js';
export { canonicalArch, hwArchTrait } from './arch-traits.js';
export { planDomcapsQueries, DEFAULT_MACHINE_TYPES } from './plan-domcaps-queries.js';
export type { DomcapsQuery } from './plan-domcaps-queries.js';
