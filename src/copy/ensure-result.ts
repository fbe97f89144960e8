import type { BackendChoice } from '../backend/backend-choice.js';
import type { CloneTarget } from '../rbd/location-verdict.js';

/** ensure()'s answer: where to clone from, and what it took to get there. */
export interface EnsureResult {
  readonly needed: true;
  readonly imageId: string;
  readonly store: string;
  /** True when this call (or the flight it shared) asked Glance to copy and the copy landed. */
  readonly copied: boolean;
  /** The transfer that brought the store, when this call copied it: Glance's copy-image or the direct RBD transfer. */
  readonly transfer: 'glance' | 'rbd' | undefined;
  /** True when it waited on an import someone else had started. */
  readonly joined: boolean;
  /** The import task that brought the store (ours or the one joined); undefined when it was there already. */
  readonly taskId: string | undefined;
  /** The task whose expired import lock this call made Glance bust (takeOverExpired). */
  readonly tookOver: string | undefined;
  readonly elapsedMs: number;
  readonly target: CloneTarget;
  /** Why this location: e.g. "tagged with store site-b, in cluster <fsid>". */
  readonly why: string;
  /** Image reads (GET /v2/images/{id}) made. */
  readonly imageReads: number;
  /** Import requests (POST /v2/images/{id}/import) made. */
  readonly importRequests: number;
  /** The image's size as Glance reports it (null when it has none): what a copy moved. */
  readonly sizeBytes: number | null;
}

/**
 * With a host backend configuration: the image's backend on this host is not rbd (images_type_mapping keeps it
 * elsewhere), so no Ceph copy is needed and none was made.
 */
export interface EnsureNotNeeded {
  readonly needed: false;
  readonly imageId: string;
  readonly store: string;
  readonly backend: BackendChoice;
  readonly elapsedMs: number;
  readonly imageReads: number;
}

export type EnsureOutcome = EnsureResult | EnsureNotNeeded;
