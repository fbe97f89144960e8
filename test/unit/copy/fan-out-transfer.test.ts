import { describe, expect, it } from 'vitest';
import type { CopyJob, TransferJob, TransferOutcome } from '../../../src/copy/copy-job.js';
import { NO_EFFECTS } from '../../../src/copy/copy-job.js';
import { createFanOutTransfer } from '../../../src/copy/transfer/fan-out-transfer.js';
import type { RbdDirectTransfer } from '../../../src/copy/transfer/rbd-direct.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { parseImage, type GlanceImage } from '../../../src/glance/image.js';
import { silentLogger } from '../../../src/logging/logger.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { imageBody } from '../../helpers/image-body.js';

// Issue 37 part 4: the direct transfer as a store-and-forward tree. The inner transfer is scripted: it records which
// store each hop read and which it wrote, and copies (or refuses) as the test says; Glance's image gains each copied
// store, as the direct transfer's PATCH would.

interface Hop { readonly from: string | undefined; readonly to: readonly string[] }

function scripted(failing: ReadonlySet<string>, kind: 'rbd' | 'glance' = 'rbd') {
  const hops: Hop[] = [];
  let image = parseImage(imageBody({ stores: ['central'] }));
  const ended = (verdicts: Map<string, { kind: 'copied'; taskId: undefined } | { kind: 'refused'; error: FerryError }>): TransferOutcome => ({
    kind: 'ended', transfer: kind, verdicts, tasks: [], elapsedMs: 1, perStoreMs: 1, wait: { elapsedMs: 1 },
    snapshot: { image, watchedTask: undefined, task: undefined, elapsedMs: 1, wallNowMs: 0 }, effects: NO_EFFECTS,
  });
  const transfer: RbdDirectTransfer = {
    kind,
    bring: <Skip extends string>(job: TransferJob<Skip>, batch: readonly string[], _takingOver: string | undefined, from?: string) => {
      // A hop reads only a store the image it was given holds.
      if (from !== undefined && !job.state.image.stores.includes(from)) throw new Error(`hop from ${from}, which the image does not hold yet`);
      hops.push({ from, to: [...batch] });
      const verdicts = new Map(batch.map((store) => [store, failing.has(store)
        ? { kind: 'refused' as const, error: new FerryError('FERRY_COPY_HASH_MISMATCH', `bad copy at ${store}`, 'none') }
        : { kind: 'copied' as const, taskId: undefined }]));
      image = parseImage(imageBody({ stores: [...image.stores, ...batch.filter((store) => !failing.has(store))] }));
      return Promise.resolve(ended(verdicts));
    },
  };
  const job = (): TransferJob<never> => ({
    ctx: { clock: fakeClock(), logger: silentLogger },
    state: { image: parseImage(imageBody({ stores: ['central'] })) },
    deadline: { signal: new AbortController().signal },
    progress: () => undefined,
    read: () => Promise.resolve(image),
  } as unknown as CopyJob<never>);
  return { transfer, hops, job, image: (): GlanceImage => image };
}

const sites = ['e1', 'e2', 'e3', 'e4', 'e5', 'e6'];
const everyEdge = new Set(['central', ...sites]);

describe('fan-out transfer (direct): a store-and-forward tree', () => {
  it('fan-out 2: the central store serves two, each of those two more; every hop reads a store already proven', async () => {
    const { transfer, hops, job } = scripted(new Set());
    const outcome = await createFanOutTransfer(transfer, { limits: { perHolder: 2, originCopies: 2 }, readable: everyEdge }).bring(job(), sites, undefined);
    expect(hops).toEqual([
      { from: 'central', to: ['e1'] }, { from: 'central', to: ['e2'] },
      { from: 'e1', to: ['e3'] }, { from: 'e1', to: ['e4'] }, { from: 'e2', to: ['e5'] }, { from: 'e2', to: ['e6'] },
    ]);
    if (outcome.kind !== 'ended') throw new Error(outcome.kind);
    expect([...outcome.verdicts.entries()].map(([store, verdict]) => `${store}:${verdict.kind}`)).toEqual(sites.map((site) => `${site}:copied`));
    expect(outcome.snapshot.image.stores).toEqual(['central', ...sites]);
  });

  it('a failed hop does not stall the stores behind it: they copy from the other holders', async () => {
    const { transfer, hops, job } = scripted(new Set(['e1']));
    const outcome = await createFanOutTransfer(transfer, { limits: { perHolder: 2, originCopies: 2 }, readable: everyEdge }).bring(job(), sites, undefined);
    expect(hops.filter((hop) => hop.from === 'e1')).toEqual([]);
    expect(hops.slice(2)).toEqual([{ from: 'e2', to: ['e3'] }, { from: 'e2', to: ['e4'] }, { from: 'e2', to: ['e5'] }, { from: 'e2', to: ['e6'] }]);
    if (outcome.kind !== 'ended') throw new Error(outcome.kind);
    expect(outcome.verdicts.get('e1')?.kind).toBe('refused');
    expect(sites.slice(1).map((site) => outcome.verdicts.get(site)?.kind)).toEqual(Array(5).fill('copied'));
  });

  it('every forwarder failed: the central store serves past its budget rather than strand a store', async () => {
    const { transfer, hops, job } = scripted(new Set(['e1', 'e2']));
    const outcome = await createFanOutTransfer(transfer, { limits: { perHolder: 2, originCopies: 2 }, readable: everyEdge })
      .bring(job(), ['e1', 'e2', 'e3'], undefined);
    expect(hops).toEqual([{ from: 'central', to: ['e1'] }, { from: 'central', to: ['e2'] }, { from: 'central', to: ['e3'] }]);
    if (outcome.kind !== 'ended') throw new Error(outcome.kind);
    expect(outcome.verdicts.get('e3')?.kind).toBe('copied');
  });

  it('a store ferry may not read serves nobody: the rest come from readable holders', async () => {
    const { transfer, hops, job } = scripted(new Set());
    await createFanOutTransfer(transfer, { limits: { perHolder: 1, originCopies: 1 }, readable: new Set(['central', 'e2', 'e3']) })
      .bring(job(), ['e1', 'e2', 'e3'], undefined);
    expect(hops).toEqual([{ from: 'central', to: ['e1'] }, { from: 'central', to: ['e2'] }, { from: 'e2', to: ['e3'] }]);
  });

  it('one store: no tree, the direct transfer as it is', async () => {
    const { transfer, hops, job } = scripted(new Set());
    await createFanOutTransfer(transfer, { limits: { perHolder: 2, originCopies: 2 }, readable: everyEdge }).bring(job(), ['e1'], undefined);
    expect(hops).toEqual([{ from: undefined, to: ['e1'] }]);
  });
});

describe('fan-out transfer (Glance): one import per wave, naming its stores', () => {
  it('fan-out 2 over six stores: imports of 2 and 4 stores', async () => {
    const { transfer, hops, job } = scripted(new Set(), 'glance');
    const outcome = await createFanOutTransfer(transfer, { limits: { perHolder: 2, originCopies: 2 }, readable: new Set() }).bring(job(), sites, undefined);
    expect(hops).toEqual([{ from: undefined, to: ['e1', 'e2'] }, { from: undefined, to: ['e3', 'e4', 'e5', 'e6'] }]);
    if (outcome.kind !== 'ended') throw new Error(outcome.kind);
    expect(outcome.transfer).toBe('glance');
    expect(outcome.verdicts.size).toBe(6);
  });
});
