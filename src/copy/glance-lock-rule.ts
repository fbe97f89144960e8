import type { GlanceTask } from '../glance/image-task.js';

/**
 * Glance's own rule for an import lock held by a task that stopped (reference/glance-multistore.md §7): the next
 * import busts the lock once `now − task.updated_at` reaches 60 min (120 min while the task is `pending`), or at once
 * when the named task does not exist. Hard-coded in Glance; nothing busts a lock without an import request.
 */
export const GLANCE_LOCK_EXPIRY = {
  activeMs: 60 * 60_000,
  pendingMs: 120 * 60_000,
  /** Our clock and Glance's may differ a little: ask to bust only this long after the release time. */
  marginMs: 5_000,
} as const;

/** Epoch ms from which Glance busts the lock `task` holds. Pure. */
export function lockReleaseAtMs(task: Pick<GlanceTask, 'status' | 'updatedAt'>): number {
  const expiry = task.status === 'pending' ? GLANCE_LOCK_EXPIRY.pendingMs : GLANCE_LOCK_EXPIRY.activeMs;
  return Date.parse(task.updatedAt) + expiry;
}

/** Would an import sent now make Glance bust the lock? Pure. */
export function lockExpired(task: Pick<GlanceTask, 'status' | 'updatedAt'>, wallNowMs: number): boolean {
  return wallNowMs >= lockReleaseAtMs(task) + GLANCE_LOCK_EXPIRY.marginMs;
}
