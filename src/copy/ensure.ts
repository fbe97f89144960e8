import { copyPolicyOf } from '../config/copy-policy.js';
import type { BackendConfig } from '../backend/resolve-backend-config.js';
import { needsRbdCopy, selectBackend } from '../backend/select-backend.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { hasStore } from '../glance/image.js';
import { classifyLocations } from '../rbd/classify-locations.js';
import { copyShared, type CopyContext } from './copy-context.js';
import { startDeadline } from './copy-deadline.js';
import { runCopyJob } from './copy-engine.js';
import { timeoutError } from './copy-errors.js';
import type { CopyPhase } from './copy-progress.js';
import { resolveEnsureOptions, type EnsureOptions, type HostEnsureOptions, type ResolvedEnsureOptions } from './ensure-options.js';
import type { EnsureOutcome, EnsureResult } from './ensure-result.js';
import { findImageOrThrow } from './find-image-or-throw.js';
import { chooseTransfer } from './transfer/choose-transfer.js';

/**
 * Make sure `imageRef` (ID or unique name) has a copy-on-write-clonable location in the local Ceph cluster, asking
 * Glance to copy it into `options.store` when needed, and return the RBD clone target.
 * - already clonable → the target, after one image read and no write;
 * - not raw → FERRY_NOT_CLONABLE, nothing requested;
 * - otherwise copy-image to that one store, and wait until the import lock no longer holds the task: then success =
 *   the store in `stores`, failure = in `os_glance_failed_import`, neither = rolled back or aborted;
 * - a copy someone else runs (lock held, or a 409) is joined: wait for it, re-check, request again if still missing;
 * - all of it through the one copy engine (runCopyJob), within one deadline that cuts requests in flight.
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
  if (resolved.userToken !== undefined) return ensureActingFor(ctx, imageRef, resolved, resolved.userToken);
  return copyShared(ctx).copyFlights.run(`${imageRef}\u0000${resolved.store}\u0000${resolved.backend ? 'host' : 'any'}`, resolved.signal,
    (signal) => ensureOnce(ctx, imageRef, { ...resolved, signal }));
}

/**
 * ensure() for a user (the agent's request carried the booting user's token). First the user's own look at the image,
 * on every request, a copy already local or not: a user never gets a copy or a clone source of an image that user
 * cannot see (404, or 403 by get_image: FERRY_IMAGE_NOT_FOUND, the answer stock nova would get). Then the copy all its
 * callers share (one per image and store, whichever tenant asks), whose Glance calls act for one of the callers still
 * waiting (acting-tokens.ts), with ferry's own token as the service token: Glance's copy-image, since the direct
 * transfer's registration is refused to whoever does not own the image (docs/security.md, "Acting for the booting user").
 */
async function ensureActingFor(ctx: CopyContext, imageRef: string, options: ResolvedEnsureOptions, userToken: string): Promise<EnsureOutcome> {
  const { glanceActingFor } = ctx;
  if (glanceActingFor === undefined) throw new Error('ensure: a user token, but this context cannot act for a user (glanceActingFor)');
  const shared = copyShared(ctx);
  // One deadline for the request: the copy gets what the user's look left of it (not a second timeout).
  const startedAt = ctx.clock.now();
  const lookup = startDeadline(ctx.clock, options.timeoutMs, options.signal, startedAt);
  let image: GlanceImage;
  try {
    image = await findImageOrThrow(glanceActingFor(() => userToken), imageRef, lookup.signal).catch((error: unknown) => {
      throw isFerryError(error, 'FERRY_FORBIDDEN') || isFerryError(error, 'FERRY_IMAGE_NOT_FOUND') ? userCannotSee(imageRef, error) : error;
    });
  } catch (error) {
    if (lookup.expired() && isFerryError(error, 'FERRY_ABORTED')) {
      throw timeoutError([options.store], imageRef, options.timeoutMs, { elapsedMs: options.timeoutMs, polls: 1 }, undefined);
    }
    throw error;
  } finally {
    lookup.dispose();
  }
  options.onVisible?.();
  const key = `${image.id}\u0000${options.store}\u0000${options.backend ? 'host' : 'any'}\u0000acting`;
  const waiter = shared.actingTokens.enter(key, userToken);
  try {
    return await shared.copyFlights.run(key, options.signal, (signal) => {
      const acting: CopyContext = { ...ctx, glance: glanceActingFor(() => shared.actingTokens.tokenFor(key), () => shared.actingTokens.refuse(key)),
        copyFlights: shared.copyFlights, copyDurations: shared.copyDurations };
      return ensureOnce(acting, image.id, { ...options, signal, transfer: 'glance' }, { image, startedAt });
    });
  } finally {
    waiter.leave();
  }
}

/**
 * The user's own look found nothing (404) or get_image refused the user (403): to that user the image does not exist,
 * as stock nova would find. `seenAs: 'user'` (JSON `seen_as`) says the look was the user's: nova's patch keeps
 * FERRY_IMAGE_NOT_FOUND as a verdict only then — an agent that ignored the user's token (older than this) looked as
 * ferry, whose not-found is about ferry's own rights, and nova then copies by itself.
 */
function userCannotSee(imageRef: string, error: FerryError): FerryError {
  return new FerryError('FERRY_IMAGE_NOT_FOUND', `Glance does not show image ${imageRef} to the user ferry acts for (${error.message})`,
    'The booting user may not see this image (get_image): nova without ferry fails the same way.',
    { imageRef, status: error.details.status, requestId: error.details.requestId, seenAs: 'user' }, { cause: error });
}

/**
 * `seen`: the image as the caller's own look found it (ensureActingFor), read again only after a request, and when that
 * look began: the deadline and the elapsed time count from there.
 */
async function ensureOnce(ctx: CopyContext, imageRef: string, options: ResolvedEnsureOptions,
  seen?: { readonly image: GlanceImage; readonly startedAt: number }): Promise<EnsureOutcome> {
  const { clock } = ctx;
  const { store } = options;
  const started = seen?.startedAt ?? clock.now();
  // One deadline from the first request on: the image lookup and the fsid count too.
  const deadline = startDeadline(clock, options.timeoutMs, options.signal, started);
  const counters = { imageReads: 0, importRequests: 0, taskReads: 0 };
  const elapsed = (): number => clock.now() - started;
  const report = (phase: CopyPhase, imageId: string, note?: string, taskMessage?: string): void =>
    options.onProgress?.(Object.freeze({ imageId, store, phase, elapsedMs: elapsed(), polls: counters.imageReads, taskMessage, note }));

  try {
    report('checking', imageRef);
    counters.imageReads += 1;
    // The local fsid (a `ceph fsid` process, ~0.3 s) is asked while Glance is: it is needed unless the image needs no copy.
    const localFsid = options.fsid === undefined ? ctx.localFsid(deadline.signal) : Promise.resolve(options.fsid);
    localFsid.catch(() => undefined);
    const image = seen?.image ?? await findImageOrThrow(ctx.glance, imageRef, deadline.signal);
    if (options.backend !== undefined && image.diskFormat !== null) {
      const backend = selectBackend(image.diskFormat, options.backend);
      if (!needsRbdCopy(backend)) {
        report('done', image.id, backend.reason);
        return Object.freeze({ needed: false, imageId: image.id, store, backend, elapsedMs: elapsed(), imageReads: counters.imageReads });
      }
    }
    const fsid = await localFsid;
    const local = { fsid, store, ...(options.poolAllowList ? { poolAllowList: options.poolAllowList } : {}) };

    const job = await runCopyJob(ctx, image, {
      stores: [store],
      classify: (current) => {
        const decision = classifyLocations(current, local);
        if (decision.kind === 'clonable') return { kind: 'present' };
        refuseUncopyable(current, decision, store, fsid);
        return { kind: 'missing' };
      },
      requestMode: 'store',
      policy: copyPolicyOf(options),
      // The target's fsid is the one just resolved: the location ferry registers must be what classify reads as local.
      transfer: chooseTransfer(options, options.localCluster === undefined ? new Map() : new Map([[store, { ...options.localCluster, fsid }]]),
        options.localCluster?.user,
        { slots: copyShared(ctx).rbdCopySlots }),
      signal: options.signal, deadline, counters, random: options.random,
      onProgress: (event) => report(event.phase, image.id, event.note, event.taskMessage),
      ...(ctx.findLeftover ? { findLeftover: ctx.findLeftover } : {}),
    });
    const result = job.results.get(store);
    if (result === undefined || result.outcome === 'interrupted') {
      throw new FerryError('FERRY_ABORTED', `stopped waiting for the copy of ${image.id} to ${store}: ${abortReason(options.signal)}`,
        'A copy Glance already started goes on inside Glance; run the same command again to pick it up.',
        { imageId: image.id, store, runningInGlance: result?.runningInGlance === true, ...(result?.taskId ? { taskId: result.taskId } : {}) });
    }
    if (result.outcome === 'failed' || result.outcome === 'skipped') {
      throw result.error ?? new FerryError('FERRY_COPY_FAILED', result.reason, 'Check glance-api\'s log, then run ferry again.', { imageId: image.id, store });
    }
    const decision = classifyLocations(job.image, local);
    if (decision.kind !== 'clonable') throw new Error(`ensure: ${store} settled as ${result.outcome} but the image is not clonable`);
    report('done', image.id, decision.why);
    return Object.freeze({ needed: true, imageId: image.id, store, copied: result.outcome === 'copied', joined: job.joinedOther,
      transfer: result.outcome === 'copied' ? result.transfer ?? 'glance' : undefined,
      taskId: result.taskId, tookOver: job.tookOver, elapsedMs: elapsed(), target: decision.target, why: decision.why,
      imageReads: counters.imageReads, importRequests: counters.importRequests, sizeBytes: job.image.size });
  } catch (error) {
    // A request cut by the deadline (the lookup, the fsid) is a timeout, not an abort.
    if (deadline.expired() && isFerryError(error, 'FERRY_ABORTED')) {
      throw timeoutError([store], imageRef, options.timeoutMs, { elapsedMs: elapsed(), polls: counters.imageReads }, undefined);
    }
    throw error;
  } finally {
    deadline.dispose();
  }
}

function abortReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'aborted';
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
