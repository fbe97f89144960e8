import type { GlanceImage } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';

/** One poll of a copy in progress: the image, plus what the waiter knows around it. */
export interface CopySnapshot {
  readonly image: GlanceImage;
  /** The import task whose end we wait for (the lock holder seen first after our request, or the one we joined). */
  readonly watchedTask: string | undefined;
  /** The lock holder's task, when it was read this poll (only during long waits: it costs a request). */
  readonly task: GlanceTask | undefined;
  /** Since the copy was requested or joined. */
  readonly elapsedMs: number;
  /** Wall clock (epoch ms), to compare with Glance's timestamps. */
  readonly wallNowMs: number;
}
