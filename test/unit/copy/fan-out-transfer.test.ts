import { describe, expect, it } from 'vitest';
import type { CopyJob, TransferJob, TransferOutcome } from '../../../src/copy/copy-job.js';
import { NO_EFFECTS } from '../../../src/copy/copy-job.js';
import { createFanOutTransfer, mergeOutcomes } from '../../../src/copy/transfer/fan-out-transfer.js';
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

  it('a store of the batch that already holds a copy (an origin): no hop writes it, the engine looks at it again', async () => {
    const { transfer, hops, job } = scripted(new Set());
    const outcome = await createFanOutTransfer(transfer, { limits: { perHolder: 2, originCopies: 2 }, readable: everyEdge })
      .bring(job(), ['central', 'e1'], undefined);
    expect(hops).toEqual([{ from: 'central', to: ['e1'] }]);
    if (outcome.kind !== 'ended') throw new Error(outcome.kind);
    expect([...outcome.verdicts.keys()]).toEqual(['e1']);
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

// mergeOutcomes: the hops' (or waves') outcomes as the one the engine records. A hop that did not end (Glance busy, an
// answer lost, a wait that failed) gives no verdict, but what it left must reach the engine: the import it started
// (pending), its lost answer (unconfirmed), the newest image it read. They were dropped whenever another hop ended.
describe('mergeOutcomes', () => {
  const T2 = 'b9971fe3-0000-4000-8000-000000000002';
  const img = (stores: string[], lock?: string): GlanceImage => parseImage(imageBody({ stores, ...(lock ? { lock, importing: ['e2'] } : {}) }));
  const snap = (image: GlanceImage) => ({ image, watchedTask: undefined, task: undefined, elapsedMs: 1, wallNowMs: 0 });
  const ended = (store: string, image: GlanceImage, effects: TransferOutcome['effects'] = NO_EFFECTS): TransferOutcome => ({
    kind: 'ended', transfer: 'glance', verdicts: new Map([[store, { kind: 'copied', taskId: undefined }]]), tasks: [], elapsedMs: 1, perStoreMs: 1,
    wait: { elapsedMs: 1 }, snapshot: snap(image), effects });
  const lost = new FerryError('FERRY_UNREACHABLE', 'reset', 'none');
  const e1Done = img(['central', 'e1']);
  const e2Importing = img(['central', 'e1'], T2);
  const pendingE2 = { stores: ['e2'], taskId: T2 };
  const timedOut: TransferOutcome = { kind: 'wait-failed', effects: { pending: pendingE2 },
    outcome: { state: 'timeout', reason: 'deadline', last: snap(e2Importing), seen: {}, polls: 3, elapsedMs: 10 } };
  const stopped: TransferOutcome = { kind: 'stopped', error: lost, effects: NO_EFFECTS };

  it.each([
    { what: 'every hop ended: each verdict, the image holding the most stores, no effects',
      outcomes: [ended('e1', e1Done), ended('e2', img(['central', 'e1', 'e2']))],
      expected: { kind: 'ended', verdicts: ['e1', 'e2'], stores: ['central', 'e1', 'e2'], effects: { pending: undefined } } },
    { what: 'a wave whose wait failed (the deadline) after one that ended: its pending import is kept, its image is the newest',
      outcomes: [ended('e1', e1Done), timedOut],
      expected: { kind: 'ended', verdicts: ['e1'], stores: ['central', 'e1'], lock: T2, effects: { pending: pendingE2 } } },
    { what: 'a wave whose answer was lost after one that ended: unconfirmed is kept (a deadline then says FERRY_COPY_UNCONFIRMED)',
      outcomes: [ended('e1', e1Done, { accepted: { takingOver: undefined }, pending: undefined }),
        { kind: 'answer-lost', image: e2Importing, effects: { unconfirmed: { stores: ['e2'], error: lost }, pending: pendingE2 } }],
      expected: { kind: 'ended', verdicts: ['e1'], stores: ['central', 'e1'], lock: T2,
        effects: { unconfirmed: { stores: ['e2'], error: lost }, pending: pendingE2 } } },
    { what: 'a lost answer a later wave\'s acceptance resolved: the acceptance, the first lock taken over',
      outcomes: [ended('e1', e1Done, { unconfirmed: { stores: ['e1'], error: lost }, pending: undefined }),
        ended('e2', img(['central', 'e1', 'e2']), { accepted: { takingOver: T2 }, pending: undefined })],
      expected: { kind: 'ended', verdicts: ['e1', 'e2'], stores: ['central', 'e1', 'e2'], effects: { accepted: { takingOver: T2 }, pending: undefined } } },
    { what: 'a hop Glance was busy for, beside one that ended: no verdict for it, its newer image kept',
      outcomes: [ended('e1', e1Done), { kind: 'not-started', busy: true, image: e2Importing, effects: NO_EFFECTS }],
      expected: { kind: 'ended', verdicts: ['e1'], stores: ['central', 'e1'], lock: T2, effects: { pending: undefined } } },
    { what: 'a stop wins', outcomes: [ended('e1', e1Done), stopped], expected: { kind: 'stopped' } },
    { what: 'no hop ended: the last outcome, as it is', outcomes: [timedOut], expected: { kind: 'wait-failed' } },
  ] as const)('mergeOutcomes: $what', ({ outcomes, expected }) => {
    const merged = mergeOutcomes(outcomes, 5);
    expect(merged.kind).toBe(expected.kind);
    if (merged.kind !== 'ended' || expected.kind !== 'ended') return;
    expect([...merged.verdicts.keys()]).toEqual(expected.verdicts);
    expect(merged.snapshot.image.stores).toEqual(expected.stores);
    expect(merged.snapshot.image.importTask).toBe('lock' in expected ? expected.lock : undefined);
    expect(merged.effects).toEqual(expected.effects);
  });
});
