import type { PrewarmPlan } from './prewarm-plan.js';
import type { PrewarmItemReport } from './prewarm-report.js';

/** What one image's job is doing. */
export type JobPhase = 'checking' | 'requesting' | 'copying' | 'joining';

/**
 * Progress of a prewarm, for a live display or logs. The library reports; it never prints. In order:
 * `planned` once; per image `job-progress` (many) then `item-done` per store and `job-done`; `aborting` on a signal.
 */
export type PrewarmEvent =
  | { readonly type: 'planned'; readonly plan: PrewarmPlan }
  | {
      readonly type: 'job-progress';
      readonly imageId: string;
      readonly imageName: string | null;
      /** The stores this step is about (one request, or the stores a joined import writes). */
      readonly stores: readonly string[];
      readonly phase: JobPhase;
      /** Since the job started (it may wait for a slot before that). */
      readonly elapsedMs: number;
      /** Glance's task message ("Copied 512 MiB"), refreshed by Glance at most every 60 s. */
      readonly taskMessage?: string | undefined;
      /** The waiter's note, e.g. "copying to site-b". */
      readonly note?: string | undefined;
    }
  /** One (image, store) is decided. Items that need no work are reported before any job starts. */
  | { readonly type: 'item-done'; readonly item: PrewarmItemReport }
  | { readonly type: 'job-done'; readonly imageId: string }
  /** The signal fired: no new job starts; `running` jobs stop waiting (their copies go on inside Glance). */
  | { readonly type: 'aborting'; readonly running: number; readonly queued: number };
