import { expect } from 'vitest';
import { scriptedGlance, type ScriptedGlance } from '../../helpers/scripted-glance.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
/** An image at site-a, then copied to site-b by task T1. */
export const COPY_TIMELINE = [
  { stores: ['site-a'] },
  { stores: ['site-a'], lock: T1, importing: ['site-b'], failed: [] },
  { stores: ['site-a', 'site-b'], importing: [], failed: [] },
];

/**
 * The real copy engine (ensure, its single flight, the waiter) behind the real agent, over a scripted Glance whose
 * reads after the copy request wait for `release()`: the test decides when the copy "lands".
 */
export function gatedGlance(): { glance: ScriptedGlance; release: () => void; waitingReads: AbortSignal[] } {
  const base = scriptedGlance({ images: COPY_TIMELINE });
  let open = (): void => undefined;
  const landed = new Promise<void>((resolve) => { open = resolve; });
  const waitingReads: AbortSignal[] = [];
  const glance: ScriptedGlance = {
    ...base,
    calls: base.calls,
    copyRequests: base.copyRequests,
    async getImage(id, call) {
      if (base.calls.requestCopy > 0 && call?.signal) {
        waitingReads.push(call.signal);
        const signal = call.signal;
        await Promise.race([landed, new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        })]);
      }
      return base.getImage(id, call);
    },
  };
  return { glance, release: open, waitingReads };
}

/** Poll `condition` (5 ms apart, 2 s at most), then assert it. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400 && !(await condition()); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(await condition()).toBe(true);
}
