import { describe, expect, it } from 'vitest';
import type { EnsureOutcome } from '../../../src/copy/ensure-result.js';
import { fenceValue } from '../../../src/fleet/copy-fence.js';
import { ensureToHandOut, HAND_OUT_DEFAULTS } from '../../../src/host/hand-out-copy.js';
import type { CopyLook } from '../../../src/rbd/copy-look.js';
import { fakeClock } from '../../helpers/fake-clock.js';

// The agent's answer to nova: a first ask is one ensure; a retry after a failed clone waits out a copy an eviction
// removed or is about to remove, and ensures again.

const target = { fsid: 'f', pool: 'images-c', image: 'img', snapshot: 'snap', url: 'rbd://f/images-c/img/snap' };
const outcome = (copied: boolean) => ({ needed: true, imageId: 'img', store: 'site-c', copied, target }) as unknown as EnsureOutcome;
const copy = (meta: Record<string, string> = {}): CopyLook => ({ kind: 'copy', name: 'img', snapshot: 'protected', meta });

const failedClone = { pool: 'images-c', image: 'img', snapshot: 'snap' };

/** A retry after a failed clone (nova's second ask), unless `failed` is null (a first ask). */
function scripted(looks: (CopyLook | undefined)[], copiedAt: number[] = [], failed: typeof failedClone | null = failedClone) {
  const clock = fakeClock();
  let ensures = 0;
  let lookCount = 0;
  const waits: string[] = [];
  const steps = {
    clock, signal: new AbortController().signal, failedClone: failed ?? undefined, random: () => 1,
    ensure: () => {
      ensures += 1;
      return Promise.resolve(outcome(copiedAt.includes(ensures)));
    },
    look: () => {
      lookCount += 1;
      return Promise.resolve(looks.shift());
    },
    onWait: (why: string) => { waits.push(why); },
  };
  return { steps, clock, waits, ensures: () => ensures, looks: () => lookCount };
}

describe('ensureToHandOut', () => {
  it('a first ask (no failed clone): one ensure, no look and no wait, whatever the pool holds', async () => {
    const run = scripted([{ kind: 'absent', name: 'img' }], [], null);
    await expect(ensureToHandOut(run.steps)).resolves.toMatchObject({ copied: false, target });
    expect([run.ensures(), run.looks(), run.clock.sleeps]).toEqual([1, 0, []]);
  });


  it('a retry, the copy in place and not fenced: handed out after one ensure and one look, no wait', async () => {
    const run = scripted([copy()]);
    await expect(ensureToHandOut(run.steps)).resolves.toMatchObject({ copied: false, target });
    expect([run.ensures(), run.looks(), run.clock.sleeps]).toEqual([1, 1, []]);
  });

  it('gone while Glance still lists it, then copied again: two waits, three ensures, the new copy handed out', async () => {
    const run = scripted([{ kind: 'absent', name: 'img' }, { kind: 'absent', name: 'img' }, copy()], [3]);
    await expect(ensureToHandOut(run.steps)).resolves.toMatchObject({ copied: true });
    expect([run.ensures(), run.clock.sleeps]).toEqual([3, [500, 800]]);
    expect(run.waits[0]).toContain('gone from the pool');
  });

  it('fenced with its last look 2 s ahead: waits until the fence is lifted (the run kept it), then hands it out', async () => {
    const clock = fakeClock();
    const fence = { 'ferry.evicting': fenceValue({ run: 'r', recheckAtMs: clock.wallNow() + 2_000, by: 'ferry evict pid 9' }) };
    const run = scripted([copy(fence), copy(fence), copy()]);
    await expect(ensureToHandOut(run.steps)).resolves.toMatchObject({ target });
    expect(run.clock.sleeps).toHaveLength(2);
    expect(run.waits[0]).toContain('an eviction (ferry evict pid 9)');
  });

  it('a copy that stays gone: handed out as it is just before maxWaitMs (what nova would have tried), never a wait without end', async () => {
    const looks = Array.from({ length: 1000 }, (): CopyLook => ({ kind: 'absent', name: 'img' }));
    const run = scripted(looks);
    await expect(ensureToHandOut(run.steps)).resolves.toMatchObject({ target });
    expect(run.clock.now()).toBe(HAND_OUT_DEFAULTS.maxWaitMs - HAND_OUT_DEFAULTS.delay.deadlineSlackMs);
  });

  it('the looks back off (the house waiter): 0.5 s growing by 1.6 to 5 s, 35 looks in maxWaitMs at the ceiling every time (jitter 1)', async () => {
    const looks = Array.from({ length: 1000 }, (): CopyLook => ({ kind: 'absent', name: 'img' }));
    const run = scripted(looks);
    await ensureToHandOut(run.steps);
    expect(run.clock.sleeps.slice(0, 7)).toEqual([500, 800, 1280, 2048, 3277, 5000, 5000]);
    expect(run.looks()).toBe(35);
  });

  it('nova goes away mid-wait: the wait ends at once with the abort, no look more', async () => {
    const controller = new AbortController();
    const run = scripted([{ kind: 'absent', name: 'img' }, { kind: 'absent', name: 'img' }]);
    const steps = { ...run.steps, signal: controller.signal, onWait: () => controller.abort(new Error('nova went away')) };
    await expect(ensureToHandOut(steps)).rejects.toThrow('nova went away');
    expect(run.looks()).toBe(1);
  });

  it('no copy needed (the image uses no rbd copy here): no look at all', async () => {
    const run = scripted([]);
    run.steps.ensure = () => Promise.resolve({ needed: false } as EnsureOutcome);
    await expect(ensureToHandOut(run.steps)).resolves.toEqual({ needed: false });
    expect(run.clock.sleeps).toEqual([]);
  });
});
