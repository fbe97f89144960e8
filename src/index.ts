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
