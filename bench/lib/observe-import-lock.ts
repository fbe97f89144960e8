import { setTimeout as sleep } from 'node:timers/promises';
import type { GlanceAdmin } from './glance-admin.js';

/** One observer poll: when it was sent and answered (performance.now), and whether the import lock was set. */
export interface LockSample {
  readonly sentAt: number;
  readonly doneAt: number;
  readonly locked: boolean;
}

/**
 * When Glance released the image's import lock (= the copy finished), bracketed by two observer polls: the lock was
 * still set at some moment after `lastLocked.sentAt` and gone at some moment before `firstUnlocked.doneAt`.
 */
export interface LockRelease {
  /** The bracket's midpoint. */
  readonly releasedAt: number;
  readonly lastLockedSentAt: number;
  readonly firstUnlockedDoneAt: number;
  /** Half the bracket's width: the observer's own granularity for this copy (its interval plus Glance's answer time). */
  readonly uncertaintyMs: number;
  readonly lockSeenAt: number;
}

export interface LockObserver {
  /** The first release after the lock was seen set, once observed. */
  release(): LockRelease | undefined;
  /** Ends the polling (after waiting up to `graceMs` for a release not yet observed). */
  stop(graceMs?: number): Promise<{ release: LockRelease | undefined; samples: number; errors: number }>;
}

/**
 * Polls the image every `intervalMs` (start to start) with plain fetch (global dispatcher, its own connections: not
 * ferry's transport) and records the lock's transitions. Run in the same process as ensure(), so both share
 * performance.now().
 */
export function observeImportLock(admin: GlanceAdmin, imageId: string, intervalMs = 20): LockObserver {
  const samples: LockSample[] = [];
  const controller = new AbortController();
  let errors = 0;
  const loop = (async () => {
    while (!controller.signal.aborted) {
      const sentAt = performance.now();
      try {
        const image = await admin.readImage(imageId, controller.signal);
        samples.push({ sentAt, doneAt: performance.now(), locked: image.os_glance_import_task !== undefined });
      } catch {
        if (controller.signal.aborted) return;
        // a failed poll is a gap in the observation, not the end of it; it widens the bracket, which is reported
        errors += 1;
      }
      const wait = sentAt + intervalMs - performance.now();
      if (wait > 0) await sleep(wait, undefined, { signal: controller.signal }).catch(() => undefined);
    }
  })();
  return {
    release: () => firstRelease(samples),
    async stop(graceMs = 0) {
      const until = performance.now() + graceMs;
      while (firstRelease(samples) === undefined && performance.now() < until) await sleep(intervalMs);
      controller.abort();
      await loop;
      return { release: firstRelease(samples), samples: samples.length, errors };
    },
  };
}

function firstRelease(samples: readonly LockSample[]): LockRelease | undefined {
  const firstLocked = samples.findIndex((s) => s.locked);
  if (firstLocked < 0) return undefined;
  const unlocked = samples.findIndex((s, i) => i > firstLocked && !s.locked);
  if (unlocked < 0) return undefined;
  const before = samples[unlocked - 1]!;
  const after = samples[unlocked]!;
  return { releasedAt: (before.sentAt + after.doneAt) / 2, lastLockedSentAt: before.sentAt, firstUnlockedDoneAt: after.doneAt,
    uncertaintyMs: (after.doneAt - before.sentAt) / 2,
    lockSeenAt: samples[firstLocked]!.doneAt };
}
