import { hasStore } from '../glance/image.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { lockExpired, lockReleaseAtMs } from './glance-lock-rule.js';

/**
 * Why a lock is called stuck:
 * - `finished-holding`: its task ended but still holds the lock (Glance's duplicate-store bug);
 * - `glance-restarted`: glance-api came back after refusing connections and the task has not moved since: it is dead;
 * - `not-moving`: the task has not moved for longer than the stale rule allows;
 * - `missing-task`: the lock names a task Glance does not have (left by a failed request);
 * - `unseen-task`: the lock's task is another project's, which this caller cannot read, and held it past the stale rule.
 */
export type StuckCause = 'finished-holding' | 'glance-restarted' | 'not-moving' | 'missing-task' | 'unseen-task';

/**
 * Where a copy to `store` stands, from one snapshot (reference/glance-multistore.md §6.7). Pure.
 * The copy is over only when the import lock no longer names the task we watch: until then `stores` may show a
 * store that will be rolled back, and `os_glance_failed_import` may still show a failure of an earlier attempt.
 */
export type CopyState =
  | { readonly kind: 'copying'; readonly taskId: string; readonly writing: boolean }
  | {
      readonly kind: 'stuck';
      readonly taskId: string;
      readonly cause: StuckCause;
      /** Since the task last moved (updated_at); since first seen for a missing or unseen task. */
      readonly ageMs: number;
      readonly taskStatus: string;
      /** When Glance will bust the lock on the next import (epoch ms); now for a missing task; unknown for an unseen one. */
      readonly releaseAtWallMs: number | undefined;
      /** An import sent now makes Glance bust the lock. */
      readonly expired: boolean;
      readonly why: string;
    }
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
  const { image, watchedTask } = snapshot;
  const lock = image.importTask;
  const ours = lock !== undefined && (watchedTask === undefined || lock === watchedTask);
  if (lock !== undefined && (ours || hasStore(image.importingTo, store))) {
    const stuck = stuckLock(snapshot, lock, rule);
    if (stuck !== undefined) return stuck;
    return { kind: 'copying', taskId: lock, writing: hasStore(image.importingTo, store) };
  }
  if (hasStore(image.stores, store)) return { kind: 'copied' };
  if (hasStore(image.failedImport, store)) return { kind: 'failed' };
  if (image.failedImport.length > 0) return { kind: 'rolled-back', failedStores: image.failedImport };
  return { kind: 'vanished' };
}

function stuckLock(snapshot: CopySnapshot, lock: string, rule: StaleRule): Extract<CopyState, { kind: 'stuck' }> | undefined {
  const { task, wallNowMs } = snapshot;
  if (task === undefined || task.id !== lock) {
    const heldMs = snapshot.lockHeldMs ?? 0;
    if (snapshot.lockTaskMissing === true && heldMs >= rule.finishedGraceMs) {
      return { kind: 'stuck', taskId: lock, cause: 'missing-task', ageMs: heldMs, taskStatus: 'missing',
        releaseAtWallMs: wallNowMs, expired: true, why: `the image's import lock names task ${lock}, which Glance does not have` };
    }
    // Another project's task: neither its status nor when it last moved can be read, only how long the lock is held.
    if (snapshot.lockTaskUnseen === true && heldMs > rule.staleAfterMs) {
      return { kind: 'stuck', taskId: lock, cause: 'unseen-task', ageMs: heldMs, taskStatus: 'unseen', releaseAtWallMs: undefined,
        expired: false, why: `task ${lock}, of a project whose tasks this identity cannot read, has held the image's import lock for ${Math.round(heldMs / 1000)} s` };
    }
    return undefined;
  }
  const updatedAt = Date.parse(task.updatedAt);
  const ageMs = wallNowMs - updatedAt;
  const base = { kind: 'stuck' as const, taskId: lock, ageMs, taskStatus: task.status, releaseAtWallMs: lockReleaseAtMs(task),
    expired: lockExpired(task, wallNowMs) };
  if ((task.status === 'success' || task.status === 'failure') && ageMs > rule.finishedGraceMs) {
    return { ...base, cause: 'finished-holding', why: `task ${lock} ended (${task.status}) but still holds the image's import lock` };
  }
  if (task.status === 'processing' || task.status === 'pending') {
    if (snapshot.glanceBackAtWallMs !== undefined && updatedAt < snapshot.glanceBackAtWallMs) {
      return { ...base, cause: 'glance-restarted',
        why: `task ${lock} (${task.status}) holds the image's import lock but is dead: glance-api was restarted after it last moved` };
    }
    if (ageMs > rule.staleAfterMs || base.expired) {
      return { ...base, cause: 'not-moving', why: `task ${lock} holds the image's import lock but has not moved for ${Math.round(ageMs / 1000)} s` };
    }
  }
  return undefined;
}
