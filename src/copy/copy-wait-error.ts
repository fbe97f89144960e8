import { FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import type { WaitOutcome } from '../wait/wait-for.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { copyState, type StaleRule } from './copy-state.js';

/** Glance busts a lock this long after its task last moved (hard-coded; 120 min for a pending task). */
const GLANCE_LOCK_EXPIRY_MS = 60 * 60_000;

/** Turn a wait that did not succeed into the coded error an operator can act on. Pure. */
export function copyWaitError(outcome: Exclude<WaitOutcome<CopySnapshot, GlanceImage>, { state: 'success' }>,
  store: string, rule: StaleRule): FerryError {
  const last = outcome.last;
  const image = last?.image;
  const lists = image ? { stores: image.stores, importing: image.importingTo, failed: image.failedImport, lock: image.importTask } : {};
  const details = { store, imageId: image?.id, seen: outcome.seen, polls: outcome.polls, elapsedMs: Math.round(outcome.elapsedMs),
    last: lists, taskMessage: last?.task?.message };
  const id = image?.id ?? 'the image';
  switch (outcome.state) {
    case 'aborted':
      return new FerryError('FERRY_ABORTED', `stopped waiting for the copy of ${id} to ${store}: ${outcome.reason}`,
        'A copy Glance already started goes on inside Glance; run the same command again to pick it up.', details);
    case 'timeout':
      return new FerryError('FERRY_COPY_TIMEOUT',
        `the copy of ${id} to ${store} did not finish within ${Math.round(outcome.elapsedMs / 1000)} s (${outcome.polls} reads; last: ${describeLists(lists)})`,
        'The copy may still finish inside Glance: run the command again later to pick it up, or allow more time (--timeout).', details);
    case 'failure': {
      const state = last ? copyState(last, store, rule) : undefined;
      if (state?.kind === 'stuck') {
        const releaseAt = last?.task ? new Date(Date.parse(last.task.updatedAt) + GLANCE_LOCK_EXPIRY_MS).toISOString() : undefined;
        return new FerryError('FERRY_COPY_STUCK',
          `${state.why} (task age ${Math.round(state.ageMs / 1000)} s): the copy is not progressing`,
          `Glance refuses new imports of this image until the lock expires${releaseAt ? ` at ${releaseAt}` : ''} (60 min after the task last moved; `
          + `120 min if pending). That is expected after glance-api was restarted mid-copy. Then run ferry again; it will take over the lock. `
          + `Check the task with: openstack image task list / GET /v2/images/${id}/tasks.`,
          { ...details, taskId: state.taskId, taskAgeSeconds: Math.round(state.ageMs / 1000), taskStatus: state.taskStatus, releaseAt });
      }
      const outcomeKind = state?.kind === 'rolled-back' ? 'rolled-back' : state?.kind === 'vanished' ? 'aborted' : 'failed';
      return new FerryError('FERRY_COPY_FAILED', `${outcome.reason} (image ${id})`,
        outcomeKind === 'failed'
          ? 'Glance records the cause only in its log (task message "Task failed due to Internal Error"): check glance-api\'s log for the store '
            + `(full disk, Ceph down, permissions), then run ferry again: a new attempt clears the failure.`
          : 'Check glance-api\'s log for the import task, then run ferry again.',
        { ...details, outcome: outcomeKind });
    }
  }
}

function describeLists(lists: { stores?: readonly string[]; importing?: readonly string[]; failed?: readonly string[]; lock?: string | undefined }): string {
  const show = (value: readonly string[] | string | undefined): string =>
    (typeof value === 'string' ? value : value && value.length > 0 ? value.join(',') : '-');
  return `stores=${show(lists.stores)} importing=${show(lists.importing)} failed=${show(lists.failed)} lock=${show(lists.lock)}`;
}
