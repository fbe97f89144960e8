import type { Clock } from '../../clock/clock.js';
import type { FerryError } from '../../errors/ferry-error.js';
import type { GlanceImage } from '../../glance/image.js';
import type { Logger } from '../../logging/logger.js';
import { cephCliFor, type CephCliOptions } from '../../rbd/ceph-cli.js';
import type { CephCluster } from '../../config/ceph-cluster.js';
import type { RbdImageInfo, RbdImageRef } from '../../rbd/rbd-image-commands.js';
import type { CopyJobPhase } from '../copy-job.js';
import type { ExpectedHash, RbdSourceCandidate } from './rbd-direct-plan.js';

// What the direct transfer's per-store steps (claim, write, prove, commit) share: one store's plan, how a store ends,
// and the narrow view of the job they work in. The job itself stays with rbd-direct.ts, which builds this view once.

/** One store's direct copy, from the source chosen for the batch. */
export interface StoreCopyPlan {
  readonly store: string;
  readonly target: CephCluster;
  /** The target store's pool (Glance's rbd store `pool`), not the source location's: site-c writes images-c. */
  readonly targetPool: string;
  /** Awaited only to register: asked while the copy runs. */
  readonly targetFsid: Promise<string>;
  readonly source: RbdSourceCandidate;
  readonly shape: RbdImageInfo;
  readonly expected: ExpectedHash;
  /** An expired Glance lock the round decided to ignore: it writes nothing. */
  readonly ignoredLock: string | undefined;
  readonly quietMs: number;
  readonly pollMs: number;
  /**
   * Runs one location PATCH of this image at a time. Glance's PATCH reads the image, appends and saves: two at once
   * (one image's stores copied in parallel) lose one of the locations (seen on Glance 25: both answered 200, `stores`
   * kept one).
   */
  readonly oneLocationWrite: <T>(work: () => Promise<T>) => Promise<T>;
  readonly runner?: CephCliOptions['runner'];
  /** --rate-limit: the copy's bytes move no faster than this a second (absent: as fast as they come). */
  readonly bytesPerSecond?: number | undefined;
}

export type StoreCopyEnd =
  | { readonly kind: 'copied'; readonly image: GlanceImage; readonly bytes: number; readonly verifyMs: number }
  /** Glance (or another ferry) is bringing the store, or it is there now: the engine looks again and joins. */
  | { readonly kind: 'busy' | 'present'; readonly image: GlanceImage }
  | { readonly kind: 'refused'; readonly error: FerryError };

/** A step that found the names changed under it (a rename that lost, a copy swapped): the store is claimed again. */
export type StepEnd = StoreCopyEnd | { readonly kind: 'look-again' };

/** A store whose temporary image this run created (the "who writes" decision): its bytes are ours to write. */
export interface Claimed {
  readonly kind: 'claimed';
  readonly plan: StoreCopyPlan;
  readonly cli: CephCliOptions;
  readonly temp: RbdImageRef;
  readonly final: RbdImageRef;
}

/** What the per-store steps need of the job: its image, deadline, clock, logger, one read, one location write. */
export interface StoreCopyEnvironment {
  readonly imageId: string;
  /** Glance's size of the image (null: Glance does not say). */
  readonly imageSize: number | null;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly logger: Logger;
  /** One read of the image within the deadline. */
  read(): Promise<GlanceImage>;
  /** `PATCH /v2/images/{id}` add /locations/-. */
  addLocation(location: { readonly url: string; readonly store: string }): Promise<GlanceImage>;
  progress(phase: Extract<CopyJobPhase, 'copying' | 'joining'>, stores: readonly string[], note: string): void;
}

/** The snapshot a direct copy makes and registers (as Glance's rbd store does). */
export const SNAPSHOT = 'snap';

/** image-meta naming the writer (`host:pid`): a run on the same host can tell a dead writer's image. */
export const WRITER_META_KEY = 'ferry.writer';

/** The target cluster's rbd commands for one store (without a signal: a removal after an interruption still runs). */
export function targetCli(plan: StoreCopyPlan, signal?: AbortSignal): CephCliOptions {
  return cephCliFor(plan.target, { signal, runner: plan.runner });
}
