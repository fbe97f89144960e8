import type { GlanceImage } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';
import { classifyLocations } from '../rbd/classify-locations.js';
import type { LocationClassification } from '../rbd/location-verdict.js';
import type { CopyContext } from './copy-context.js';
import { findImageOrThrow } from './find-image-or-throw.js';

/** Where an image lives and what is happening to it: the answer to "why is my copy not there?". */
export interface CopyStatus {
  readonly image: GlanceImage;
  /** The task holding the import lock, when one does (read from the image's task list). */
  readonly lock: { readonly taskId: string; readonly task: GlanceTask | undefined; readonly ageMs: number | undefined;
    readonly sinceUpdateMs: number | undefined } | undefined;
  /** Whether it is clonable in the local cluster, when the local cluster is known (fsid given or readable). */
  readonly local: LocationClassification | undefined;
}

export interface CopyStatusOptions {
  readonly signal?: AbortSignal;
  /** Judge locality against the local cluster too (needs --fsid or a ceph.conf). */
  readonly withLocality?: boolean;
  readonly store?: string;
}

/** Read an image (and its lock holder's task) once; no writes. */
export async function copyStatus(ctx: CopyContext, imageRef: string, options: CopyStatusOptions = {}): Promise<CopyStatus> {
  const image = await findImageOrThrow(ctx.glance, imageRef, options.signal);
  let lock: CopyStatus['lock'];
  if (image.importTask !== undefined) {
    const tasks = await ctx.glance.listImageTasks(image.id, { signal: options.signal });
    const task = tasks.find((candidate) => candidate.id === image.importTask);
    const now = ctx.clock.wallNow();
    lock = {
      taskId: image.importTask,
      task,
      ageMs: task ? now - Date.parse(task.createdAt) : undefined,
      sinceUpdateMs: task ? now - Date.parse(task.updatedAt) : undefined,
    };
  }
  let local: LocationClassification | undefined;
  if (options.withLocality === true) {
    const fsid = await ctx.localFsid(options.signal);
    local = classifyLocations(image, { fsid, ...(options.store ? { store: options.store } : {}) });
  }
  return { image, lock, local };
}
