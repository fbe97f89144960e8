import { HALF_CREATED_WHY, halfCreatedFix, rbdCommandLine, type LeftoverImage } from '../rbd/leftover-image.js';
import { FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';
import type { CopySnapshot } from './copy-snapshot.js';
import type { CopyState } from './copy-state.js';

// Every way a copy job can fail, as the coded error an operator can act on. Pure: the engine decides, these only
// word it. No hint promises what the code does not do.

type Stuck = Extract<CopyState, { kind: 'stuck' }>;

/** What the waiter saw, for `details` (never headers or tokens). */
export interface WaitSeen {
  readonly seen?: Readonly<Record<string, number>>;
  readonly polls?: number;
  readonly elapsedMs: number;
}

function lists(image: GlanceImage | undefined): Record<string, unknown> {
  return image ? { stores: image.stores, importing: image.importingTo, failed: image.failedImport, lock: image.importTask } : {};
}

function baseDetails(stores: readonly string[], image: GlanceImage | undefined, waited: WaitSeen): Record<string, unknown> {
  return { store: stores.join(','), imageId: image?.id, seen: waited.seen ?? {}, polls: waited.polls ?? 0,
    elapsedMs: Math.round(waited.elapsedMs), last: lists(image) };
}

export function stuckError(state: Stuck, stores: readonly string[], snapshot: CopySnapshot, takeOverExpired: boolean, waited: WaitSeen): FerryError {
  const id = snapshot.image.id;
  const releaseAt = state.releaseAtWallMs === undefined ? undefined : new Date(state.releaseAtWallMs).toISOString();
  const why = {
    'finished-holding': 'Its task has ended, yet Glance kept the lock (it does so when an import named a store twice).',
    'glance-restarted': 'glance-api was restarted while it ran; Glance never cleans such a lock up by itself.',
    'not-moving': 'The copy is not progressing (a crashed or wedged glance-api worker).',
    'missing-task': 'A failed import request left it behind.',
    'unseen-task': 'Its task belongs to another project: Glance refused to release the lock, so the task exists, but this identity cannot see its status.',
  }[state.cause];
  const next = releaseAt === undefined
    ? 'Glance releases it 60 min after its task last moves (120 min if pending), which only an admin can see '
      + `(GET /v2/images/${id}/tasks as admin); run the same command again later, or ask an admin to look at the task.`
    : state.expired
    ? (takeOverExpired
      ? 'Glance would release it on the next import; run ferry again to take it over.'
      : 'Glance releases it on the next import: run again with --take-over-expired (the default) to let ferry do that.')
    : `Glance refuses new imports of this image until ${releaseAt} (60 min after the task last moved; 120 min if pending)`
      + (takeOverExpired ? '; from then on ferry takes the lock over by itself: run the same command again after that time.'
        : '; after that, run ferry with --take-over-expired to take it over.');
  return new FerryError('FERRY_COPY_STUCK',
    `${state.why}${state.cause === 'unseen-task' ? '' : ` (last moved ${Math.round(state.ageMs / 1000)} s ago)`}: the copy of ${id} to ${stores.join(', ')} cannot finish`,
    `${why} ${next}${state.cause === 'unseen-task' ? '' : ` See the task with GET /v2/images/${id}/tasks.`}`,
    { ...baseDetails(stores, snapshot.image, waited), taskId: state.taskId, taskAgeSeconds: Math.round(state.ageMs / 1000),
      taskStatus: state.taskStatus, cause: state.cause, ...(releaseAt === undefined ? {} : { releaseAt }), expired: state.expired,
      taskMessage: snapshot.task?.message, outcome: 'stuck' });
}

export function timeoutError(stores: readonly string[], imageOrRef: GlanceImage | string, timeoutMs: number, waited: WaitSeen,
  taskMessage: string | undefined, last?: CopySnapshot): FerryError {
  const image = typeof imageOrRef === 'string' ? undefined : imageOrRef;
  const id = typeof imageOrRef === 'string' ? imageOrRef : imageOrRef.id;
  const running = image?.importTask !== undefined;
  return new FerryError('FERRY_COPY_TIMEOUT',
    `the copy of ${id} to ${stores.join(', ')} did not finish within ${Math.round(timeoutMs / 1000)} s `
    + `(${waited.polls ?? 0} reads; last: ${describeLists(image)})`,
    running ? `${whatTheLockShowed(image, last)} See whether it moves with ferry status ${id}; run the same command again to join it, `
      + 'or allow more time (--timeout).'
      : 'Glance did not answer in time. Check glance-api (and its log), then run the same command again; allow more time with --timeout.',
    { ...baseDetails(stores, image, waited), timeoutMs, taskMessage, runningInGlance: running, outcome: 'timeout',
      ...(running ? { taskId: image.importTask } : {}) });
}

/** Only what ferry saw of the lock holder when it stopped waiting: never that a copy "goes on" without evidence. */
function whatTheLockShowed(image: GlanceImage, last: CopySnapshot | undefined): string {
  const task = last?.task;
  if (task !== undefined && task.id === image.importTask) {
    const still = Math.max(0, Math.round(((last?.wallNowMs ?? Date.now()) - Date.parse(task.updatedAt)) / 1000));
    return `Import task ${task.id} held the image's import lock when ferry stopped waiting: status ${task.status}, `
      + `last moved ${still} s before${task.message ? ` ("${task.message}")` : ''}.`;
  }
  return `Import task ${image.importTask} held the image's import lock when ferry stopped waiting; ferry did not read its status.`;
}

export function unconfirmedError(stores: readonly string[], imageId: string, cause: FerryError, timeoutMs: number): FerryError {
  return new FerryError('FERRY_COPY_UNCONFIRMED',
    `the copy request for ${imageId} to ${stores.join(', ')} was sent, but its answer was lost (${cause.message}), `
    + `and Glance did not answer again within ${Math.round(timeoutMs / 1000)} s`,
    'The copy may be running inside Glance. Once Glance answers again, run the same command: it joins a copy that runs, '
    + 'and requests one if none does.',
    { store: stores.join(','), imageId, cause: cause.code, causeMessage: cause.message, outcome: 'timeout', runningInGlance: true },
    { cause });
}

/** Where a leftover RBD image was found in the target store's pool (rbd info said it exists). */
export type Leftover = LeftoverImage;

export type FailedKind = 'failed' | 'rolled-back' | 'aborted';

export function failedError(kind: FailedKind, store: string, image: GlanceImage, task: GlanceTask | undefined, failedStores: readonly string[],
  leftover: Leftover | undefined, waited: WaitSeen): FerryError {
  const details = { ...baseDetails([store], image, waited), outcome: kind, taskId: task?.id, taskStatus: task?.status, taskMessage: task?.message };
  const said = task?.message ? ` (task ${task.id}: "${task.message}")` : '';
  if (leftover !== undefined) return leftoverError(image.id, store, leftover, said, details);
  const message = `${failedReason(kind, store, failedStores)} (image ${image.id})${said}`;
  switch (kind) {
    case 'failed':
      return new FerryError('FERRY_COPY_FAILED', message,
        'Glance records the cause only in its log: check glance-api\'s log for the task (full store, Ceph down or slow, permissions, '
        + 'or a leftover RBD image of the same name in the target pool — ferry checks for one when it knows the local ceph.conf), '
        + 'fix it, then run ferry again: a new attempt clears the failure.', details);
    case 'rolled-back':
      return new FerryError('FERRY_COPY_FAILED', message,
        'Another store of that import failed, and Glance undid the others (all_stores_must_succeed). Run ferry again: it copies to '
        + `${store} alone.`, details);
    case 'aborted':
      return new FerryError('FERRY_COPY_FAILED', message,
        'Check glance-api\'s log for the import task, then run ferry again.', details);
  }
}

/** Glance's copy failed on an RBD image already holding the name in the target pool: every copy fails until it goes. */
function leftoverError(imageId: string, store: string, leftover: Leftover, said: string, details: Record<string, unknown>): FerryError {
  const rbd = rbdCommandLine(leftover.cephConf, leftover.user);
  const spec = `${leftover.pool}/${leftover.image}`;
  const where = { ...details, pool: leftover.pool, rbdImage: leftover.image };
  if (leftover.halfCreated) {
    return new FerryError('FERRY_COPY_TARGET_EXISTS',
      `Glance cannot copy ${imageId} to ${store}: the pool already holds a half-created RBD image ${spec} ${HALF_CREATED_WHY}${said}`,
      `Every copy to ${store} fails until it is removed. ${halfCreatedFix(rbd, leftover.pool, leftover.image)}`,
      { ...where, halfCreated: true });
  }
  return new FerryError('FERRY_COPY_TARGET_EXISTS',
    `Glance cannot copy ${imageId} to ${store}: the pool already holds an RBD image ${spec} that no Glance location points to `
    + `(a partial copy left by a crash)${said}`,
    `Every copy to ${store} fails until it is removed. Check that nothing was cloned from it (${rbd} children --all ${spec}@snap, and `
    + `${rbd} snap ls ${spec}), remove it (${rbd} snap purge ${spec}; ${rbd} rm ${spec}), then run ferry again.`,
    where);
}

/** What happened to one store, in a few words (a batch report's reason; the error message adds the image and task). */
export function failedReason(kind: FailedKind, store: string, failedStores: readonly string[]): string {
  switch (kind) {
    case 'failed':
      return `Glance reports the copy to ${store} failed`;
    case 'rolled-back':
      return `the copy to ${store} was rolled back because ${failedStores.join(', ')} failed in the same import`;
    case 'aborted':
      return `the import ended without ${store} in stores or failed stores (aborted, e.g. by a staging quota, or its lock was taken over)`;
  }
}

export function gaveUpError(stores: readonly string[], imageId: string, importRequests: number, joined: boolean): FerryError {
  return new FerryError('FERRY_COPY_FAILED',
    `image ${imageId} is still not in ${stores.join(', ')} after ${importRequests} copy requests and ${joined ? 'joining other imports' : 'waiting'}`,
    'Other imports keep taking the image\'s lock; run ferry again once they are done.',
    { imageId, store: stores.join(','), importRequests, outcome: 'gave-up' });
}

function describeLists(image: GlanceImage | undefined): string {
  if (image === undefined) return 'no answer';
  const show = (value: readonly string[] | string | undefined): string =>
    (typeof value === 'string' ? value : value && value.length > 0 ? value.join(',') : '-');
  return `stores=${show(image.stores)} importing=${show(image.importingTo)} failed=${show(image.failedImport)} lock=${show(image.importTask)}`;
}
