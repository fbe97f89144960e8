import type { CephCluster } from '../config/ceph-cluster.js';
import type { CopyPolicy } from '../config/copy-policy.js';
import type { TimeWindow } from '../clock/time-window.js';
import type { PrewarmEvent } from './prewarm-events.js';
import type { RequestMode } from './request-mode.js';

// What a prewarm (and a sync pass, which copies as prewarm does) is asked: the shape only. Its defaults and checks are
// the prewarm verb's (prewarm/prewarm-options.ts resolvePrewarmOptions).

export interface PrewarmOptions extends Partial<CopyPolicy> {
  /** Target stores, in the order Glance should write them. Required. */
  readonly stores: readonly string[];
  /**
   * Images being copied at once, overall: fixed. Not given: adaptive (adaptive-concurrency.ts), from
   * PREWARM_DEFAULTS.concurrency up to ADAPTIVE_DEFAULTS.ceiling, as far as Glance's throughput grows.
   */
  readonly concurrency?: number;
  /** Images being copied into any one store at once. Default: `concurrency` (no limit of its own; adaptive: its ceiling). */
  readonly perStoreConcurrency?: number;
  readonly requestMode?: RequestMode;
  /** Copy non-raw images into rbd stores too. */
  readonly anyFormat?: boolean;
  /** Plan only: no import request is sent. */
  readonly dryRun?: boolean;
  // The CopyPolicy's timeoutMs is the deadline of one image's job (its requests, waits and joins).
  /** Stops new work; copies already running inside Glance go on (the report lists them). */
  readonly signal?: AbortSignal;
  /** The library reports; it never prints. Events are frozen. */
  readonly onProgress?: (event: PrewarmEvent) => void;
  /** For tests: the jitter source. */
  readonly random?: () => number;
  /** The local store's cluster (--store with --ceph-conf, --rbd-user): a target of the direct transfer too. */
  readonly localCluster?: CephCluster | undefined;
  readonly localStore?: string | undefined;
  /** Direct transfers at once per source cluster and per target store. Default RBD_DIRECT_DEFAULTS.perClusterLimit. */
  readonly perClusterTransfers?: number;
  /** Send each image to its stores as a tree (copy/transfer/plan-fan-out.ts): hops each holder serves at once. Default: off. */
  readonly fanOut?: number;
  /** --rate-limit: each direct copy's bytes a second (config/byte-rate.ts). Refused with --transfer glance. */
  readonly bytesPerSecond?: number;
  /** --window: new image jobs start only inside it (clock/time-window.ts). */
  readonly window?: TimeWindow;
}
