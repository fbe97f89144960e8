import { describe, expect, it } from 'vitest';
import { copyShared, type CopyContext } from '../../../src/copy/copy-context.js';
import { DIRECT_COPIES_PER_CLUSTER } from '../../../src/copy/transfer/rbd-direct-plan.js';
import type { GlanceClient } from '../../../src/glance/glance-client.js';

// The agent answers each nova request with its own ensure(): what must hold across them lives in copyShared, keyed by
// the Glance client (one per loaded configuration).
const contextFor = (glance: GlanceClient): CopyContext => ({ glance } as unknown as CopyContext);

describe('copyShared: the direct transfer\'s slots', () => {
  it('are one limiter for every ensure() through one Glance client: a third copy into a store waits for one of two', async () => {
    const glance = {} as GlanceClient;
    const signal = new AbortController().signal;
    const release: (() => void)[] = [];
    const hold = (): Promise<void> => copyShared(contextFor(glance)).rbdCopySlots.run(['target:site-b'], signal,
      () => new Promise<void>((resolve) => release.push(resolve)));
    const running = Array.from({ length: DIRECT_COPIES_PER_CLUSTER }, hold);
    let thirdStarted = false;
    const third = copyShared(contextFor(glance)).rbdCopySlots.run(['target:site-b'], signal, () => { thirdStarted = true; return Promise.resolve(); });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(thirdStarted).toBe(false);
    release[0]?.();
    await third;
    expect(thirdStarted).toBe(true);
    release.slice(1).forEach((done) => done());
    await Promise.all(running);
  });

  it('are another limiter for another Glance client (a reloaded configuration starts afresh)', () => {
    const first = copyShared(contextFor({} as GlanceClient)).rbdCopySlots;
    expect(copyShared(contextFor({} as GlanceClient)).rbdCopySlots).not.toBe(first);
  });
});
