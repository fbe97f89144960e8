import { hasStore, type GlanceImage } from '../glance/image.js';
import type { PendingImport } from './copy-job.js';

// A job whose deadline passed (--timeout × the stores asked: job-deadline.ts) with stores still open: each is reported
// by what Glance last said of it, not all as timed out. Glance writes an import's stores one after another, so a
// 2-store job often ends with the first store done and the second still being written. Pure.

export interface DeadlineFacts {
  /** Glance's last answer: the waiter's last poll lands just before the deadline. */
  readonly image: GlanceImage;
  /** Our own import, when the job had one accepted (or sent). */
  readonly pending: PendingImport | undefined;
  /** Stores this job saw in os_glance_importing_to_stores: the flow of the import holding the lock started for them. */
  readonly importingSeen: ReadonlySet<string>;
  /** Tasks already named as bringing a store (a join's lock holder, a 409's newest successful task). */
  readonly broughtBy: ReadonlyMap<string, string>;
}

export type DeadlineVerdict =
  /** In the image's stores: our import brought it (`ours`), or another's. */
  | { readonly kind: 'present'; readonly ours: boolean; readonly taskId: string | undefined }
  /** In os_glance_failed_import, from this import (the lock is gone, or the job saw the store being written first). */
  | { readonly kind: 'failed'; readonly taskId: string | undefined }
  /** Neither: still being written (`running`, the lock held), or the failure Glance shows is an earlier attempt's. */
  | { readonly kind: 'timeout'; readonly running: boolean };

export function judgeStoreAtDeadline(store: string, facts: DeadlineFacts): DeadlineVerdict {
  const { image, pending } = facts;
  const lock = image.importTask;
  const oursAsked = pending !== undefined && pending.stores.includes(store);
  const ours = oursAsked && (pending.taskId === undefined || lock === undefined || pending.taskId === lock);
  const taskId = ours ? pending?.taskId ?? lock : facts.broughtBy.get(store) ?? lock;
  if (hasStore(image.stores, store)) return { kind: 'present', ours, taskId };
  // Until an import's flow starts, Glance still lists the previous attempt's failure (glance-multistore.md §6.5).
  if (hasStore(image.failedImport, store) && (lock === undefined || facts.importingSeen.has(store))) return { kind: 'failed', taskId };
  return { kind: 'timeout', running: lock !== undefined };
}
