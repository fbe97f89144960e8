// The placement module's public surface: the Placement client (microversions, providers, traits, allocation
// candidates) and the trait report built on it.
export { createPlacementClient } from './placement-client.js';
export type {
  PlacementClient, PlacementClientOptions, CallOptions as PlacementCallOptions, TraitListQuery, SetTraitsResult,
  ProviderListQuery,
} from './placement-client.js';
export type { Inventory, ProviderInventories, ProviderUsages } from './provider-inventory.js';
export { PLACEMENT_VERB_MICROVERSIONS, negotiateMicroversion } from './negotiate-microversion.js';
export type { Microversion, PlacementRoot } from './negotiate-microversion.js';
export type { ResourceProvider, ProviderTraits } from './resource-provider.js';
export type { AllocationCandidates, AllocationRequest, ProviderSummary } from './allocation-candidates.js';
export { resolveProvider } from './resolve-provider.js';
export { readTraitCatalogue, knownTraits } from './read-trait-catalogue.js';
export { reportTraits, REPORT_TRAITS_DEFAULTS } from './report-traits.js';
export type { DesiredTraits, ReportTraitsOptions, TraitReportResult } from './report-traits.js';
