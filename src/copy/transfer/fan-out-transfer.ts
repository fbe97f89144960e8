import type { GlanceImage } from '../../glance/image.js';
import type { CopyTransfer, TransferEffects, TransferJob, TransferKind, TransferOutcome } from '../copy-job.js';
import type { OwnImportVerdict } from '../judge-own-import.js';
import { planFanOut, planFanOutWave, type FanOutLimits } from './plan-fan-out.js';
import type { RbdDirectTransfer } from './rbd-direct.js';

export interface FanOutTransferOptions {
  readonly limits: FanOutLimits;
  /** Stores ferry may read from (--source-ceph-conf): only these serve a hop once they hold a proven copy. */
  readonly readable: ReadonlySet<string>;
}

/**
 * One image to many stores as a store-and-forward tree (issue 37 part 4, docs/deploy/fan-out.md). The direct transfer:
 * each wave's hops run at once, one read of its holder per hop (what a controller at the target site would do), and a
 * store serves the next wave only once its copy was verified against Glance's hash and registered (the direct
 * transfer's own proof). A failed hop ends with its error; the stores that would have copied from it copy from
 * other holders. Glance's copy-image: one import per wave, naming that wave's stores.
 */
export function createFanOutTransfer(inner: RbdDirectTransfer | CopyTransfer, options: FanOutTransferOptions): CopyTransfer {
  return {
    kind: inner.kind,
    bring: (job, batch, takingOver) => (inner.kind === 'rbd'
      ? bringAsTree(inner, options, job, batch, takingOver)
      : bringInWaves(inner, options, job, batch, takingOver)),
  };
}

async function bringAsTree<Skip extends string>(inner: RbdDirectTransfer, options: FanOutTransferOptions, job: TransferJob<Skip>,
  batch: readonly string[], takingOver: string | undefined): Promise<TransferOutcome> {
  const started = job.ctx.clock.now();
  let image = job.state.image;
  const origins = image.stores.filter((store) => options.readable.has(store));
  if (origins.length === 0 || batch.length < 2) return inner.bring(job, batch, takingOver);
  const holders = [...origins];
  const served = new Map<string, number>();
  let wanted = [...batch];
  const outcomes: TransferOutcome[] = [];
  while (wanted.length > 0) {
    const wave = planFanOutWave({ origins, holders, wanted, served }, options.limits);
    // The origins are readable holders, so a wave has hops while a store is wanted that holds no copy; a batch store
    // that holds one already gets no hop and no verdict (the engine's next round settles it as present).
    if (wave.hops.length === 0) break;
    if (wave.overBudget) {
      job.ctx.logger.warn({ imageId: image.id, hops: wave.hops }, 'fan-out: no store that got its copy in this run can serve: the origin serves past its budget');
    }
    job.progress('copying', wave.hops.map((hop) => hop.to), `fan-out wave: ${wave.hops.map((hop) => `${hop.from}→${hop.to}`).join(', ')}`);
    const waveJob: TransferJob<Skip> = { ...job, state: { ...job.state, image } };
    const ends = await Promise.all(wave.hops.map((hop) => inner.bring(waveJob, [hop.to], takingOver, hop.from)));
    outcomes.push(...ends);
    wave.hops.forEach((hop, index) => {
      served.set(hop.from, (served.get(hop.from) ?? 0) + 1);
      if (copiedBy(ends[index], hop.to) && options.readable.has(hop.to)) holders.push(hop.to);
    });
    wanted = wanted.filter((store) => !wave.hops.some((hop) => hop.to === store));
    if (ends.some((end) => end.kind === 'stopped') || wanted.length === 0) break;
    // The next wave reads the new holders' locations.
    image = await job.read().catch(() => newestImage(ends) ?? image);
  }
  const fresh = outcomes.length > 1 ? await job.read().catch(() => undefined) : undefined;
  return mergeOutcomes(outcomes, job.ctx.clock.now() - started, fresh);
}

async function bringInWaves<Skip extends string>(inner: CopyTransfer, options: FanOutTransferOptions, job: TransferJob<Skip>,
  batch: readonly string[], takingOver: string | undefined): Promise<TransferOutcome> {
  const started = job.ctx.clock.now();
  const origins = job.state.image.stores.filter((store) => !batch.includes(store));
  const waves = planFanOut(origins.length > 0 ? origins : ['(glance)'], batch, options.limits);
  const outcomes: TransferOutcome[] = [];
  let image = job.state.image;
  for (const wave of waves) {
    const stores = wave.map((hop) => hop.to);
    const end = await inner.bring({ ...job, state: { ...job.state, image } }, stores, outcomes.length === 0 ? takingOver : undefined);
    outcomes.push(end);
    // Anything but an end (busy, a lost answer, a failed wait): the engine decides; its next round plans again.
    if (end.kind !== 'ended') break;
    image = end.snapshot.image;
  }
  return mergeOutcomes(outcomes, job.ctx.clock.now() - started);
}

function copiedBy(outcome: TransferOutcome | undefined, store: string): boolean {
  return outcome?.kind === 'ended' && outcome.verdicts.get(store)?.kind === 'copied';
}

/** The image an outcome read last, when it read one. */
function imageOf(outcome: TransferOutcome): GlanceImage | undefined {
  switch (outcome.kind) {
    case 'ended': return outcome.snapshot.image;
    case 'not-started': return outcome.image;
    case 'answer-lost': return outcome.image;
    case 'wait-failed': return outcome.outcome.last?.image;
    case 'stopped': return undefined;
  }
}

/** Of the images the outcomes read, the one holding the most stores (the later on a tie: hops of a wave run at once). */
function newestImage(outcomes: readonly TransferOutcome[]): GlanceImage | undefined {
  return outcomes.map(imageOf).reduce<GlanceImage | undefined>((best, candidate) =>
    (candidate !== undefined && (best === undefined || candidate.stores.length >= best.stores.length) ? candidate : best), undefined);
}

/**
 * The hops' outcomes as one: a stop wins (the engine throws it); else, when some hop ended, every verdict of those
 * that did, the image `fresh` (read after the last wave) or the newest any hop read, the waits' tasks, and the effects
 * of every hop in order — a hop that did not end (Glance busy, its answer lost, its wait failed) gets no verdict, and
 * the engine's next round meets what it left: the import it started (pending), its lost answer (unconfirmed), the
 * deadline; else the last outcome (the engine looks again).
 */
export function mergeOutcomes(outcomes: readonly TransferOutcome[], elapsedMs: number, fresh?: GlanceImage): TransferOutcome {
  const stopped = outcomes.find((outcome) => outcome.kind === 'stopped');
  if (stopped !== undefined) return stopped;
  const ended = outcomes.filter((outcome): outcome is Extract<TransferOutcome, { kind: 'ended' }> => outcome.kind === 'ended');
  const last = ended.at(-1);
  if (last === undefined) {
    const lastOutcome = outcomes.at(-1);
    if (lastOutcome === undefined) throw new Error('fan-out: mergeOutcomes of no hop');
    return lastOutcome;
  }
  const verdicts = new Map<string, OwnImportVerdict>();
  for (const outcome of ended) for (const [store, verdict] of outcome.verdicts) verdicts.set(store, verdict);
  const image = fresh ?? newestImage(outcomes) ?? last.snapshot.image;
  const transfer: TransferKind = ended.some((outcome) => outcome.transfer === 'rbd') ? 'rbd' : last.transfer;
  return {
    ...last, verdicts, tasks: ended.flatMap((outcome) => outcome.tasks), elapsedMs, perStoreMs: elapsedMs / Math.max(1, verdicts.size), transfer,
    snapshot: { ...last.snapshot, image }, effects: mergeEffects(outcomes),
  };
}

/**
 * The hops' effects as one, as the engine would have recorded them one after another (recordEffects: a lost answer,
 * then an acceptance, which resolves it): a lost answer no later acceptance resolved stays, and then no acceptance is
 * passed on (the engine would let it resolve the lost one); the first lock taken over otherwise; the last pending import.
 */
function mergeEffects(outcomes: readonly TransferOutcome[]): TransferEffects {
  let unconfirmed: TransferEffects['unconfirmed'];
  let accepted: TransferEffects['accepted'];
  for (const { effects } of outcomes) {
    if (effects.unconfirmed !== undefined) unconfirmed = effects.unconfirmed;
    if (effects.accepted !== undefined) {
      accepted ??= effects.accepted;
      unconfirmed = undefined;
    }
  }
  const pending = outcomes.at(-1)?.effects.pending;
  return unconfirmed !== undefined ? { unconfirmed, pending } : { ...(accepted ? { accepted } : {}), pending };
}
