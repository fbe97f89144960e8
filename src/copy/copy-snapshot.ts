import type { GlanceImage } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';

/** One poll of a copy in progress: the image, plus what the waiter knows around it. */
export interface CopySnapshot {
  readonly image: GlanceImage;
  /** The import task whose end we wait for (the lock holder seen first after our request, or the one we joined). */
  readonly watchedTask: string | undefined;
  /** The lock holder's task, when it was read this poll (only during long waits, or after Glance came back). */
  readonly task: GlanceTask | undefined;
  /** The image's tasks were read this poll and none is the lock holder (Glance busts such a lock at once). */
  readonly lockTaskMissing?: boolean;
  /**
   * The lock holder's task exists (Glance refused to bust the lock) but is not among the tasks this caller may read:
   * another project's (Glance lists only the caller's project's tasks to a non-admin, such as ferry's own role).
   */
  readonly lockTaskUnseen?: boolean;
  /** How long this job has seen the current lock holder hold the lock. */
  readonly lockHeldMs?: number;
  /**
   * Wall time (epoch ms) at which Glance answered again after refusing connections during this job: glance-api was
   * restarted, and a task that has not moved since then will never move again.
   */
  readonly glanceBackAtWallMs?: number | undefined;
  /** Since the copy was requested or joined. */
  readonly elapsedMs: number;
  /** Wall clock (epoch ms), to compare with Glance's timestamps. */
  readonly wallNowMs: number;
}
