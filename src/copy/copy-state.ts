import { hasStore } from '../glance/image.js';
import type { CopySnapshot } from './copy-snapshot.js';

/**
 * Where a copy to `store` stands, from one snapshot (reference/glance-multistore.md §6.7). Pure.
 * The copy is over only when the import lock no longer names the task we watch: until then `stores` may show a
 * store that will be rolled back, and `os_glance_failed_import` may still show a failure of an earlier attempt.
 */
export type CopyState =
  | { readonly kind: 'copying'; readonly taskId: string; readonly writing: boolean }
  | { readonly kind: 'stuck'; readonly taskId: string; readonly ageMs: number; readonly taskStatus: string; readonly why: string }
  | { readonly kind: 'copied' }
  | { readonly kind: 'failed' }
  /** Our store is in no list, and another store of the same task failed: must-succeed rolled ours back. */
  | { readonly kind: 'rolled-back'; readonly failedStores: readonly string[] }
  /** Our store is in no list and nothing failed: the task was aborted (staging quota) or its lock was busted. */
  | { readonly kind: 'vanished' };

export interface StaleRule {
  /** A lock whose task has not moved (`updated_at`) for this long is stuck. */
  readonly staleAfterMs: number;
  /** A finished task still holding the lock this long after it finished is stuck (Glance's duplicate-store bug). */
  readonly finishedGraceMs: number;
}

export function copyState(snapshot: CopySnapshot, store: string, rule: StaleRule): CopyState {
  const { image, watchedTask, task } = snapshot;
  const lock = image.importTask;
  const ours = lock !== undefined && (watchedTask === undefined || lock === watchedTask);
  if (lock !== undefined && (ours || hasStore(image.importingTo, store))) {
    if (task !== undefined && task.id === lock) {
      const ageMs = snapshot.wallNowMs - Date.parse(task.updatedAt);
      if ((task.status === 'success' || task.status === 'failure') && ageMs > rule.finishedGraceMs) {
        return { kind: 'stuck', taskId: lock, ageMs, taskStatus: task.status,
          why: `task ${lock} ended (${task.status}) but still holds the image's import lock` };
      }
      if ((task.status === 'processing' || task.status === 'pending') && ageMs > rule.staleAfterMs) {
        return { kind: 'stuck', taskId: lock, ageMs, taskStatus: task.status,
          why: `task ${lock} holds the image's import lock but has not moved for ${Math.round(ageMs / 1000)} s` };
      }
    }
    return { kind: 'copying', taskId: lock, writing: hasStore(image.importingTo, store) };
  }
  if (hasStore(image.stores, store)) return { kind: 'copied' };
  if (hasStore(image.failedImport, store)) return { kind: 'failed' };
  if (image.failedImport.length > 0) return { kind: 'rolled-back', failedStores: image.failedImport };
  return { kind: 'vanished' };
}
