import type { BackendConfig } from '../backend/resolve-backend-config.js';
import { needsRbdCopy, selectBackend } from '../backend/select-backend.js';
import { FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { hasStore } from '../glance/image.js';
import type { GlanceTask } from '../glance/image-task.js';
import { classifyLocations } from '../rbd/classify-locations.js';
import type { Acceptor } from '../wait/verdict.js';
import { waitFor } from '../wait/wait-for.js';
import { copyAcceptors, lockReleasedAcceptors } from './copy-acceptors.js';
import type { CopyContext } from './copy-context.js';
import type { CopyPhase } from './copy-progress.js';
import type { CopySnapshot } from './copy-snapshot.js';
import { copyWaitError } from './copy-wait-error.js';
import { ENSURE_DEFAULTS, resolveEnsureOptions, type EnsureOptions, type HostEnsureOptions, type ResolvedEnsureOptions } from './ensure-options.js';
import type { EnsureOutcome, EnsureResult } from './ensure-result.js';
import { findImageOrThrow } from './find-image-or-throw.js';

/**
 * Make sure `imageRef` (ID or unique name) has a copy-on-write-clonable location in the local Ceph cluster, asking
 * Glance to copy it into `options.store` when needed, and return the RBD clone target.
 * - already clonable → the target, after one image read and no write;
 * - not raw → FERRY_NOT_CLONABLE, nothing requested;
 * - otherwise copy-image to that one store, and wait until the import lock no longer holds the task: then success =
 *   the store in `stores`, failure = in `os_glance_failed_import`, neither = rolled back or aborted;
 * - a copy someone else runs (lock held, or a 409) is joined: wait for it, re-check, request again if still missing.
 * Concurrent calls for the same (image, store) on one context share one request and one wait.
 */
export async function ensure(ctx: CopyContext, imageRef: string, options: EnsureOptions): Promise<EnsureResult> {
  const outcome = await ensureOutcome(ctx, imageRef, options);
  // Without a backend configuration every image needs the rbd store: ensureOnce never answers "not needed".
  if (!outcome.needed) throw new Error('ensure: unreachable without a backend configuration');
  return outcome;
}

/**
 * ensure() for a host with per-format backends (images_type + images_type_mapping): an image whose backend on this
 * host is not rbd needs no Ceph copy, and gets `{ needed: false, backend }` after one image read.
 */
export function ensureOnHost(ctx: CopyContext, imageRef: string, options: HostEnsureOptions): Promise<EnsureOutcome> {
  return ensureOutcome(ctx, imageRef, options);
}

function ensureOutcome(ctx: CopyContext, imageRef: string, options: EnsureOptions & { readonly backend?: BackendConfig }): Promise<EnsureOutcome> {
  const resolved = resolveEnsureOptions(options);
  return ctx.copyFlights.run(`${imageRef}\u0000${resolved.store}\u0000${resolved.backend ? 'host' : 'any'}`, resolved.signal,
    (signal) => ensureOnce(ctx, imageRef, { ...resolved, signal }));
}

async function ensureOnce(ctx: CopyContext, imageRef: string, options: ResolvedEnsureOptions): Promise<EnsureOutcome> {
  const { clock, glance } = ctx;
  const { store, signal } = options;
  const started = clock.now();
  let imageReads = 0;
  let importRequests = 0;
  let copied = false;
  let joined = false;
  let taskMessage: string | undefined;
  const elapsed = (): number => clock.now() - started;
  const report = (phase: CopyPhase, imageId: string, note?: string): void =>
    options.onProgress?.(Object.freeze({ imageId, store, phase, elapsedMs: elapsed(), polls: imageReads, taskMessage, note }));
  const readImage = async (id: string): Promise<GlanceImage> => {
    imageReads += 1;
    return glance.getImage(id, { signal });
  };

  report('checking', imageRef);
  imageReads += 1;
  let image = await findImageOrThrow(glance, imageRef, signal);
  if (options.backend !== undefined && image.diskFormat !== null) {
    const backend = selectBackend(image.diskFormat, options.backend);
    if (!needsRbdCopy(backend)) {
      report('done', image.id, backend.reason);
      return Object.freeze({ needed: false, imageId: image.id, store, backend, elapsedMs: elapsed(), imageReads });
    }
  }
  const fsid = options.fsid ?? await ctx.localFsid(signal);
  const local = { fsid, store, ...(options.poolAllowList ? { poolAllowList: options.poolAllowList } : {}) };
  const staleRule = { staleAfterMs: options.staleLockAfterMs, finishedGraceMs: ENSURE_DEFAULTS.finishedGraceMs };

  /**
   * One wait on the image: polls it (and, in long waits, the lock holder's task) until the acceptors decide.
   * `endedAt` estimates when the awaited change happened: midway between the last read before it and the read that
   * saw it. (The read that saw it is late by up to one sleep; learning from it would teach the estimator our own
   * detection delay as copy time.)
   */
  const waitOnImage = async (acceptors: readonly Acceptor<CopySnapshot, GlanceImage>[], watched: string | undefined,
    phase: CopyPhase, taskCheckAfterMs: number): Promise<{ image: GlanceImage; endedAt: number }> => {
    const waitStarted = clock.now();
    let watchedTask = watched;
    let task: GlanceTask | undefined;
    let lastTaskCheck = Number.NEGATIVE_INFINITY;
    let previousReadAt = waitStarted;
    let lastReadAt = waitStarted;
    const outcome = await waitFor(async (pollSignal) => {
      previousReadAt = lastReadAt;
      lastReadAt = clock.now();
      const current = await readImage(image.id);
      watchedTask ??= current.importTask;
      const now = clock.now();
      if (current.importTask === undefined) {
        task = undefined;
      } else if (now - waitStarted >= taskCheckAfterMs && now - lastTaskCheck >= ENSURE_DEFAULTS.taskCheckEveryMs) {
        lastTaskCheck = now;
        const tasks = await glance.listImageTasks(image.id, { signal: pollSignal });
        task = tasks.find((candidate) => candidate.id === current.importTask);
        if (task?.message) taskMessage = task.message;
      }
      return { image: current, watchedTask, task: task?.id === current.importTask ? task : undefined,
        elapsedMs: clock.now() - waitStarted, wallNowMs: clock.wallNow() };
    }, acceptors, {
      deadlineMs: options.timeoutMs - elapsed(),
      delay: { minDelayMs: options.minPollDelayMs, maxDelayMs: options.maxPollDelayMs },
      signal, clock, ...(options.random ? { random: options.random } : {}),
      onPoll: ({ verdict }) => report(phase, image.id, verdict.state === 'retry' ? verdict.note : verdict.state),
    });
    if (outcome.state === 'success') return { image: outcome.value, endedAt: (previousReadAt + lastReadAt) / 2 };
    throw copyWaitError(outcome, store, staleRule);
  };

  for (let round = 1; ; round += 1) {
    const decision = classifyLocations(image, local);
    if (decision.kind === 'clonable') {
      report('done', image.id, decision.why);
      return Object.freeze({ needed: true, imageId: image.id, store, copied, joined, elapsedMs: elapsed(), target: decision.target,
        why: decision.why, imageReads, importRequests });
    }
    refuseUncopyable(image, decision, store, fsid);
    if (round > ENSURE_DEFAULTS.maxRequestRounds * 2) {
      throw new FerryError('FERRY_COPY_FAILED',
        `image ${image.id} is still not in store ${store} after ${importRequests} copy requests and ${joined ? 'joining other imports' : 'waiting'}`,
        'Other imports keep taking the image\'s lock; run ferry again once they are done.', { imageId: image.id, store, importRequests });
    }

    if (image.importTask !== undefined) {
      // Someone else's import holds the lock: wait for it to end, then look again. No request meanwhile.
      joined = true;
      report('joining', image.id, `task ${image.importTask}`);
      ({ image } = await waitOnImage(lockReleasedAcceptors({ ...staleRule, store }), image.importTask, 'joining', 0));
      continue;
    }

    report('requesting', image.id);
    importRequests += 1;
    const requestStarted = clock.now();
    const answer = await glance.requestCopy(image.id, { stores: [store] }, { signal });
    ctx.logger.info({ imageId: image.id, store, answer: answer.kind }, 'copy-image requested');
    if (answer.kind === 'accepted') {
      const expectedDurationMs = ctx.copyDurations.expectedMs(store, image.size);
      const waited = await waitOnImage(copyAcceptors(store, { ...staleRule, expectedDurationMs }), undefined, 'copying',
        ENSURE_DEFAULTS.taskCheckAfterMs);
      image = waited.image;
      ctx.copyDurations.record(store, image.size, waited.endedAt - requestStarted);
      copied = true;
      continue;
    }
    // 400 "already present" (a copy that just ended) or 409 busy (a copy that is running): read again and decide.
    if (answer.kind === 'busy') joined = true;
    image = await readImage(image.id);
  }
}

/** The cases where a copy cannot help; each throws with what to do instead. */
function refuseUncopyable(image: GlanceImage, decision: Exclude<ReturnType<typeof classifyLocations>, { kind: 'clonable' }>,
  store: string, fsid: string): void {
  if (decision.kind === 'not-raw') {
    throw new FerryError('FERRY_NOT_CLONABLE', `image ${image.id} is not clonable: disk_format ${decision.diskFormat ?? '(unset)'}, only raw images are cloned copy-on-write`,
      'Convert it to raw and upload it again (qemu-img convert -O raw in.qcow2 out.raw), or let Glance convert at import '
      + '(image_conversion plugin, output_format = raw). A copy would not help.', { imageId: image.id, diskFormat: decision.diskFormat });
  }
  if (decision.kind === 'locations-hidden' || (decision.kind === 'no-local-location' && !decision.complete && hasStore(image.stores, store))) {
    throw new FerryError('FERRY_LOCATIONS_HIDDEN', `Glance does not show the locations of image ${image.id} to this caller, so ferry cannot find its RBD clone source`,
      'Enable show_multiple_locations = true in glance-api.conf (or allow the get_image_location policy for this role), as nova requires too.',
      { imageId: image.id, store });
  }
  if (image.status !== 'active') {
    throw new FerryError('FERRY_IMAGE_NOT_ACTIVE', `image ${image.id} is ${image.status}, so Glance will not copy it`,
      'Wait until its upload finishes (status active), or reactivate it.', { imageId: image.id, status: image.status });
  }
  if (hasStore(image.stores, store) && image.importTask === undefined) {
    throw new FerryError('FERRY_NOT_LOCAL', `store ${store} holds image ${image.id}, but not in the local Ceph cluster (fsid ${fsid})`,
      `The store named by images_rbd_glance_store_name / --store must be the Glance store of this site's cluster; check --store ${store} against --fsid / the ceph.conf.`,
      { imageId: image.id, store, fsid, locations: decision.kind === 'no-local-location' ? decision.verdicts.map((v) => `${v.url}: ${v.reason}`) : [] });
  }
}
