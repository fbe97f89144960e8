// ferry's public library API: what a caller imports from 'ferry'. Everything else is internal.

// Errors
export { FerryError, isFerryError } from './errors/ferry-error.js';
export { ERROR_TABLE, FERRY_ERROR_CODES, exitCodeFor } from './errors/error-table.js';
export type { FerryErrorCode } from './errors/error-table.js';

// Configuration and connecting to a cloud
export { resolveConfig } from './config/resolve-config.js';
export { requireAuth } from './config/require-auth.js';
export type { FerryConfig, AuthConfig } from './config/ferry-config.js';
export { connectCloud } from './cloud/connect-cloud.js';
export type { Cloud } from './cloud/cloud.js';
export { createLogger } from './logging/logger.js';
export type { Clock } from './clock/clock.js';
export { systemClock } from './clock/clock.js';

// Copy: make an image clonable in the local Ceph cluster
export { ensure } from './copy/ensure.js';
export { ENSURE_DEFAULTS } from './copy/ensure-options.js';
export type { EnsureOptions } from './copy/ensure-options.js';
export type { EnsureResult } from './copy/ensure-result.js';
export type { CopyProgressEvent, CopyPhase } from './copy/copy-progress.js';
export { copyStatus } from './copy/copy-status.js';
export type { CopyStatus } from './copy/copy-status.js';
export { copyState } from './copy/copy-state.js';
export type { CopyState } from './copy/copy-state.js';

// Glance
export type { GlanceClient, CopyRequest, CopyRequestResult } from './glance/glance-client.js';
export { parseImage, hasStore } from './glance/image.js';
export { parseImageDocument, type ImageDocumentResult, type ImageDocumentShape } from './glance/image-document.js';
export type { GlanceImage, ImageLocation } from './glance/image.js';

// RBD locations
export { parseRbdLocation } from './rbd/parse-rbd-location.js';
export { formatRbdLocation } from './rbd/format-rbd-location.js';
export { classifyLocations } from './rbd/classify-locations.js';
export type { CloneTarget, LocationClassification, LocalCluster } from './rbd/location-verdict.js';
export { resolveLocalCluster } from './rbd/resolve-local-cluster.js';

// Waiting
export { waitFor } from './wait/wait-for.js';
export type { WaitOptions, WaitOutcome } from './wait/wait-for.js';
export type { Acceptor, Verdict } from './wait/verdict.js';

// Traits
export {
  standardTraitCatalogue, traitCatalogueFromNames, parseDomainCapabilities, parseHostCapabilities, hostTraits,
  imageTypeTraits, planTraitSync, planDomcapsQueries,
} from './traits/index.js';
export type { TraitCatalogue, HostCapabilitiesInput, HostTraitReport, DomainCapabilities } from './traits/index.js';

// Placement
export { createPlacementClient, reportTraits, resolveProvider, readTraitCatalogue } from './placement/index.js';
export type { ResourceProvider, AllocationCandidates, TraitReportResult, ReportTraitsOptions } from './placement/index.js';

// Backends (images_type + images_type_mapping)
export { parseImagesTypeMapping } from './backend/parse-images-type-mapping.js';
export { resolveBackendConfig } from './backend/resolve-backend-config.js';
export type { BackendConfig } from './backend/resolve-backend-config.js';
export { selectBackend, needsRbdCopy } from './backend/select-backend.js';
export type { BackendChoice } from './backend/backend-choice.js';
export { keptFormats } from './backend/kept-formats.js';
export { ensureOnHost } from './copy/ensure.js';
export type { EnsureOutcome, EnsureNotNeeded } from './copy/ensure-result.js';
export type { HostEnsureOptions } from './copy/ensure-options.js';

// Prefilters
export { imageTraitRequest } from './prefilter/image-trait-request.js';
export { buildAllocationCandidatesQuery } from './prefilter/build-allocation-candidates-query.js';
export { explainCandidate } from './prefilter/explain-candidate.js';
export type { CandidateExplanation } from './prefilter/explain-candidate.js';
export { PREFILTER_DEFAULTS } from './prefilter/image-trait-request.js';
export type { ImageTraitOptions } from './prefilter/image-trait-request.js';
export type { PrefilterResult, TraitRequest } from './prefilter/prefilter-result.js';
export { findCandidates } from './prefilter/find-candidates.js';
export type { FindCandidatesOptions, Candidate, CandidateList } from './prefilter/find-candidates.js';
export { explainHosts, EXPLAIN_HOSTS_DEFAULTS } from './prefilter/explain-hosts.js';
export type { ExplainHostsOptions, HostExplanation, HostExplanations } from './prefilter/explain-hosts.js';
export type { HostVerdictKind } from './prefilter/judge-host.js';
export { candidateHosts } from './prefilter/candidate-hosts.js';
export type { CandidateHost } from './prefilter/candidate-hosts.js';
export { checkResourceFit } from './prefilter/check-resource-fit.js';
export type { ResourceFit } from './prefilter/check-resource-fit.js';
export { parseResources } from './prefilter/parse-resources.js';
export type { ResourceAmount } from './prefilter/parse-resources.js';
export { PROVIDER_LOOKUP_DEFAULTS } from './prefilter/read-provider-names.js';
export type { TraitGap } from './prefilter/explain-candidate.js';

// Prewarm and sync: many images into many stores ahead of boots; a declared placement kept converged
export { planPrewarm } from './prewarm/plan-prewarm.js';
export type { PlanInput, PlanItem, PlanAction, PlannedJob, PrewarmPlan } from './prewarm/plan-prewarm.js';
export { classifyPlacement } from './fleet/classify-placement.js';
export type { PlanState, NotCopyableReason, PlacementVerdict } from './fleet/classify-placement.js';
export { prewarm } from './prewarm/prewarm.js';
export { PREWARM_DEFAULTS, REQUEST_MODES } from './prewarm/prewarm-options.js';
export type { PrewarmOptions, RequestMode } from './prewarm/prewarm-options.js';
export type { PrewarmSelection } from './fleet/prewarm-selection.js';
export type { PrewarmEvent, JobPhase } from './fleet/prewarm-events.js';
export type { PrewarmReport, PrewarmItemReport, ItemOutcome, FailureKind, RunningCopy } from './fleet/prewarm-report.js';
export { selectImages } from './fleet/select-images.js';
export { readStoreCatalogue } from './fleet/store-catalogue.js';
export type { StoreCatalogue, StoreFacts } from './fleet/store-catalogue.js';
export { readStoreMatrix, buildStoreMatrix } from './prewarm/store-matrix.js';
export type { StoreMatrix, MatrixCell } from './prewarm/store-matrix.js';
export { parseSyncPolicy } from './fleet/parse-sync-policy.js';
export type { SyncPolicy, SyncPlacement } from './fleet/sync-policy.js';
export { syncOnce } from './sync/sync-once.js';
// A sync pass is handed the verbs it is made of: syncOnce(cloud, { prewarm: prewarmVerb, evict: evictVerb }, policy, options).
export { prewarmVerb } from './prewarm/prewarm-verb.js';
export { evictVerb } from './evict/evict-verb.js';
export type { FleetVerbs, PrewarmVerb, EvictVerb, EvictRun } from './fleet/fleet-verb.js';
export type { SyncOptions, SyncReport, PlacementDrift } from './sync/sync-once.js';
export { watchSync } from './sync/watch-sync.js';
export type { WatchOptions, WatchPass, WatchSummary } from './sync/watch-sync.js';

// Eviction: free space in a store without breaking a boot (docs/evict.md)
export { evictStore } from './evict/evict-store.js';
export { EVICT_DEFAULTS } from './evict/evict-options.js';
export type { EvictOptions } from './evict/evict-options.js';
export type { StoreCluster } from './fleet/store-cluster.js';
export type { CephCluster } from './config/ceph-cluster.js';
export type { EvictReport, EvictItem, EvictOutcome, EvictEvent, BudgetReport } from './fleet/evict-report.js';
export { planEviction, keepReason, KEEP_REASONS } from './evict/plan-eviction.js';
export type { EvictionPlan, EvictionInput, PlannedCopy, KeepReason, BudgetVerdict } from './evict/plan-eviction.js';
export { copyFactsOf } from './fleet/copy-facts.js';
export type { CopyFacts } from './fleet/copy-facts.js';
export { parseBudget, budgetBytes } from './fleet/store-budget.js';
export { readUsage, isStoreUsageError } from './evict/read-usage.js';
export type { UsageOptions, UsageReport, UsageStore, StoreUsageError } from './evict/read-usage.js';
export { summarizeStoreUsage } from './evict/usage-report.js';
export type { StoreUsageSummary, UsageVerdict } from './evict/usage-report.js';
export { createEvictMetrics } from './evict/evict-metrics.js';
export type { EvictMetrics } from './evict/evict-metrics.js';
export type { Budget, BudgetBase, CapacityFacts } from './fleet/store-budget.js';
export { judgeFencedCopy, fenceOf, FENCE_KEY } from './fleet/copy-fence.js';
export type { EvictFence } from './fleet/copy-fence.js';
export { PIN_TAG, PIN_PROPERTY } from './fleet/copy-pins.js';
export type { PinSet } from './fleet/copy-pins.js';
