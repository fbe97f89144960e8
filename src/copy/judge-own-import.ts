import type { FerryError } from '../errors/ferry-error.js';
import type { GlanceTask } from '../glance/image-task.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { copyState, type StaleRule } from './copy-state.js';
import type { FailedKind } from './copy-errors.js';

/**
 * How one store of an import we requested ended, once its task let go of the lock:
 * - copied: our own task (found by the 202's request id) brought it;
 * - joined: Glance aborted our task (the lock race between API workers, or a busted lock) and another task brought it;
 * - lost: Glance aborted our task and nothing brought the store: request again;
 * - failed: Glance failed the copy (or rolled it back, or ended the import without it).
 */
export type OwnImportVerdict =
  | { readonly kind: 'copied'; readonly taskId: string | undefined }
  | { readonly kind: 'joined'; readonly taskId: string; readonly ownTaskId: string }
  | { readonly kind: 'lost'; readonly ownTaskId: string }
  | { readonly kind: 'failed'; readonly failure: FailedKind; readonly taskId: string | undefined }
  /** A transfer outside Glance (the direct RBD one) refused or failed this store with a coded error. */
  | { readonly kind: 'refused'; readonly error: FerryError };

/** Glance's messages for a task that lost its lock to another before doing its work. */
const ABORTED_BY_OTHER = /aborted externally|expired lock preempted/i;

/**
 * Pure. `tasks` is the image's task list read after the lock was released; `requestId` the 202's
 * x-openstack-request-id. Without either (an old Glance, a proxy that drops the header) the task seen holding the lock
 * counts as ours, as before request ids were matched.
 */
export function judgeOwnImport(snapshot: CopySnapshot, store: string, rule: StaleRule, tasks: readonly GlanceTask[],
  requestId: string | undefined): OwnImportVerdict {
  const own = requestId === undefined ? undefined : tasks.find((task) => task.requestId === requestId);
  const state = copyState(snapshot, store, rule);
  const abortedByOther = own !== undefined && own.status === 'failure' && ABORTED_BY_OTHER.test(own.message);
  const others = tasks.filter((task) => task.id !== own?.id && (task.stores.length === 0 || task.stores.includes(store)));
  const newest = (status: GlanceTask['status']): GlanceTask | undefined => others.filter((task) => task.status === status)
    .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))[0];

  if (state.kind === 'copied' || state.kind === 'copying' || state.kind === 'stuck') {
    if (own === undefined) return { kind: 'copied', taskId: snapshot.watchedTask };
    if (!abortedByOther) return { kind: 'copied', taskId: own.id };
    const brought = newest('success') ?? newest('processing');
    return { kind: 'joined', taskId: brought?.id ?? snapshot.watchedTask ?? 'unknown', ownTaskId: own.id };
  }
  if (abortedByOther && state.kind === 'vanished') return { kind: 'lost', ownTaskId: own.id };
  const failure: FailedKind = state.kind === 'failed' ? 'failed' : state.kind === 'rolled-back' ? 'rolled-back' : 'aborted';
  const taskId = abortedByOther ? newest('failure')?.id : own?.id ?? snapshot.watchedTask;
  return { kind: 'failed', failure, taskId };
}
