import { COPY_RATE_DEFAULTS, createCopyDurationEstimator } from '../../src/copy/copy-duration-estimator.js';
import type { CopyContext } from '../../src/copy/copy-context.js';
import { ensure } from '../../src/copy/ensure.js';
import { createSingleFlight } from '../../src/copy/single-flight.js';
import type { GlanceClient } from '../../src/glance/glance-client.js';
import { parseImage } from '../../src/glance/image.js';
import { parseTask } from '../../src/glance/image-task.js';
import { silentLogger } from '../../src/logging/logger.js';
import { fakeClock } from '../../test/helpers/fake-clock.js';
import { FSID_B, IMAGE_ID, imageBody } from '../../test/helpers/image-body.js';

/** One simulated copy: how long Glance takes, and how far off ferry's size-based guess is. */
export interface SimulatedCopy {
  readonly durationMs: number;
  /** ferry's expected duration ÷ the real one (1 = calibrated; 0.25 = the store is 4× slower than guessed); undefined = image size unknown. */
  readonly estimateRatio: number | undefined;
  /** Each image read advances the fake clock by this (half before Glance answers, half after). */
  readonly readLatencyMs: number;
  readonly seed: number;
}

export interface SimulatedOutcome {
  /** Every GET /v2/images/{id}, including the first check before the request. */
  readonly imageReads: number;
  readonly taskReads: number;
  /** ensure() returned this long after Glance released the lock. */
  readonly delayMs: number;
}

const TASK_ID = '5b0a3e4c-8d9f-4a1b-9c2d-3e4f5a6b7c8d';

/**
 * Runs the real ensure() (waiter, acceptors, nextDelay, copy-duration estimator) against a Glance simulated on a
 * fake clock: the lock is set at the request, `importing` shows site-b after 0.25 s, `stores` gains site-b 60 ms
 * before the lock goes at `durationMs` (the shapes of reference/glance-multistore.md §6.5).
 */
export async function simulateEnsureWait(copy: SimulatedCopy): Promise<SimulatedOutcome> {
  const clock = fakeClock();
  const random = seededRandom(copy.seed);
  let requestedAt: number | undefined;
  const calls = { image: 0, tasks: 0 };
  const expectedMs = copy.estimateRatio === undefined ? undefined : copy.durationMs * copy.estimateRatio;
  const sizeBytes = expectedMs === undefined ? null : Math.max(1, Math.round((expectedMs - COPY_RATE_DEFAULTS.overheadMs) * COPY_RATE_DEFAULTS.bytesPerMs));

  const snapshot = (): Record<string, unknown> => {
    const since = requestedAt === undefined ? undefined : clock.now() - requestedAt;
    const shape = since === undefined || since >= copy.durationMs
      ? { stores: since === undefined ? ['site-a'] : ['site-a', 'site-b'], importing: [], failed: [] }
      : since >= copy.durationMs - 60 ? { stores: ['site-a', 'site-b'], importing: [], failed: [], lock: TASK_ID }
        : { stores: ['site-a'], importing: since >= 250 ? ['site-b'] : [], failed: [], lock: TASK_ID };
    return { ...imageBody(shape), size: sizeBytes };
  };
  const read = (): Promise<ReturnType<typeof parseImage>> => {
    calls.image += 1;
    clock.advance(copy.readLatencyMs / 2);
    const body = snapshot();
    clock.advance(copy.readLatencyMs / 2);
    return Promise.resolve(parseImage(body));
  };
  const unused = (): never => {
    throw new Error('not simulated');
  };
  const glance: GlanceClient = {
    getImage: read,
    findImage: read,
    requestCopy() {
      clock.advance(copy.readLatencyMs / 2);
      requestedAt = clock.now();
      clock.advance(copy.readLatencyMs / 2);
      return Promise.resolve({ kind: 'accepted', requestId: 'req-sim' });
    },
    listImageTasks() {
      calls.tasks += 1;
      clock.advance(copy.readLatencyMs);
      const now = new Date(clock.wallNow()).toISOString();
      return Promise.resolve([parseTask({ id: TASK_ID, type: 'api_image_import', status: 'processing', message: '',
        input: { backend: ['site-b'] }, created_at: now, updated_at: now })]);
    },
    listImages: unused, getStoresInfo: unused, getStoresDetail: unused, getImportInfo: unused, addLocation: unused, deleteFromStore: unused,
  };
  const ctx: CopyContext = { glance, clock, logger: silentLogger, localFsid: () => Promise.resolve(FSID_B),
    copyFlights: createSingleFlight(), copyDurations: createCopyDurationEstimator() };

  const result = await ensure(ctx, IMAGE_ID, { store: 'site-b', random });
  if (!result.copied || requestedAt === undefined) throw new Error('simulation: ensure did not copy');
  return { imageReads: calls.image, taskReads: calls.tasks, delayMs: clock.now() - (requestedAt + copy.durationMs) };
}

/** mulberry32: a small deterministic generator, so a simulated table is the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
