import { hostname } from 'node:os';
import type { CephCliOptions } from '../../rbd/ceph-cli.js';
import {
  countRbdWatchers, createRbdImage, getRbdImageMeta, readRbdImageInfo, readRbdNameHolder, removeRbdImage, type RbdImageInfo, type RbdImageRef,
} from '../../rbd/rbd-image-commands.js';
import { commitCopy, refusedUnlessBlocked } from './commit-copy.js';
import { decideClaim, FRESH_CLAIM, nextClaimMemory, type ClaimLook, type ClaimStep, type TemporaryFacts } from './decide-claim.js';
import { proveFoundCopy } from './prove-found-copy.js';
import { targetExistsError } from './rbd-direct-errors.js';
import { storeBlockedBy, temporaryImageName, VERIFIED_META_KEY } from './rbd-direct-plan.js';
import { removeWrittenImage } from './remove-written-image.js';
import {
  SNAPSHOT, targetCli, WRITER_META_KEY, type Claimed, type StepEnd, type StoreCopyEnd, type StoreCopyEnvironment, type StoreCopyPlan,
} from './store-copy-plan.js';
import type { GlanceImage } from '../../glance/image.js';

/**
 * Claim one store: look at its two names (Glance first, then the final name beside the create of the temporary one),
 * let decideClaim judge, act, and look again until the store is claimed (this run created the temporary image: it
 * writes it) or ended (there, joined, registered from a proven copy, refused). Only a created temporary image is claimed.
 */
export async function claimStore(env: StoreCopyEnvironment, plan: StoreCopyPlan): Promise<StoreCopyEnd | Claimed> {
  const cli = targetCli(plan, env.signal);
  const temp: RbdImageRef = { pool: plan.targetPool, image: temporaryImageName(env.imageId) };
  const final: RbdImageRef = { pool: plan.targetPool, image: env.imageId };
  let memory = FRESH_CLAIM;
  for (;;) {
    const { look, image } = await lookAtNames(env, plan, cli, temp, final);
    const step = decideClaim(look, memory, { expected: plan.expected, nowSec: Math.floor(env.clock.wallNow() / 1000), quietMs: plan.quietMs });
    memory = nextClaimMemory(step, memory);
    const end = await act(env, plan, { cli, temp, final, image }, step);
    if (end !== undefined) return end;
  }
}

interface Names {
  readonly cli: CephCliOptions;
  readonly temp: RbdImageRef;
  readonly final: RbdImageRef;
  /** The Glance image this look read. */
  readonly image: GlanceImage;
}

/** One step of the claim; undefined: look again. */
async function act(env: StoreCopyEnvironment, plan: StoreCopyPlan, names: Names, step: ClaimStep): Promise<StoreCopyEnd | Claimed | undefined> {
  const { cli, temp, final } = names;
  switch (step.kind) {
    case 'end':
      return { kind: step.by, image: names.image };
    case 'write':
      return { kind: 'claimed', plan, cli, temp, final };
    case 'refuse-final':
      if (step.discardCreated) await removeWrittenImage(env, cli, temp);
      return refusedUnlessBlocked(env, plan, targetExistsError(env.imageId, plan.store, final.pool, plan.target));
    case 'prove-final':
      if (step.discardCreated) await removeWrittenImage(env, cli, temp);
      return settled(await adoptFoundCopy(env, plan, cli, final, final));
    case 'prove-temporary':
      return settled(await adoptFoundCopy(env, plan, cli, temp, final));
    case 'look-again':
      return undefined;
    case 'wait':
      if (step.why === 'live') env.progress('joining', [plan.store], `another writer has ${temp.pool}/${temp.image} open: waiting for it`);
      await env.clock.sleep(plan.pollMs, env.signal);
      return undefined;
    case 'remove-temporary':
      env.logger.warn({ imageId: env.imageId, store: plan.store, rbdImage: `${temp.pool}/${temp.image}` }, step.why === 'half-created'
        ? 'removing a half-created temporary image (its creator was killed inside rbd create)'
        : 'removing the leftover temporary image of an earlier direct transfer');
      await removeRbdImage(cli, temp, SNAPSHOT);
      return undefined;
  }
}

function settled(end: StepEnd): StoreCopyEnd | undefined {
  return end.kind === 'look-again' ? undefined : end;
}

/**
 * A copy found with the mark under `found` (the final name, or the temporary one): proven by reading it back, then
 * committed (renamed if need be) and registered. One that does not prove is refused under the final name (never
 * removed: Glance may own it) and removed under the temporary name (the copy is written afresh).
 */
async function adoptFoundCopy(env: StoreCopyEnvironment, plan: StoreCopyPlan, cli: CephCliOptions, found: RbdImageRef, final: RbdImageRef): Promise<StepEnd> {
  const proof = await proveFoundCopy(env, plan, cli, found, plan.expected);
  switch (proof.kind) {
    case 'gone':
      return { kind: 'look-again' };
    case 'proven':
      return commitCopy(env, { plan, cli, from: found, final, bytes: 0, verifyMs: proof.verifyMs, proven: proof.identity });
    case 'unproven':
      if (found.image === final.image) {
        return refusedUnlessBlocked(env, plan, targetExistsError(env.imageId, plan.store, final.pool, plan.target, { kind: 'unproven', reason: proof.reason }));
      }
      env.logger.warn({ imageId: env.imageId, store: plan.store, rbdImage: `${found.pool}/${found.image}`, why: proof.reason },
        'removing a temporary image that carries the verified mark but does not prove to be this image');
      await removeRbdImage(cli, found, SNAPSHOT);
      return { kind: 'look-again' };
  }
}

/**
 * Glance, then both names at once. Most runs find neither name: the create (the atomic "who writes" decision) is tried
 * at once, beside the look at the final name — each rbd command costs a process start and a cluster connection
 * (~0.05–0.2 s). The rest is read only where the decision needs it.
 */
async function lookAtNames(env: StoreCopyEnvironment, plan: StoreCopyPlan, cli: CephCliOptions, temp: RbdImageRef,
  final: RbdImageRef): Promise<{ look: ClaimLook; image: GlanceImage }> {
  const image = await env.read();
  const blocked = storeBlockedBy(image, plan.store, plan.ignoredLock);
  if (blocked !== undefined) return { look: { kind: 'blocked', by: blocked }, image };
  const [committed, created] = await Promise.all([readRbdImageInfo(cli, final), createRbdImage(cli, temp, plan.shape)]);
  if (committed !== undefined) {
    return { look: { kind: 'names', final: { mark: await getRbdImageMeta(cli, final, VERIFIED_META_KEY) }, created: created === 'created', temporary: undefined }, image };
  }
  if (created === 'created') return { look: { kind: 'names', final: undefined, created: true, temporary: undefined }, image };
  const holder = await readRbdNameHolder(cli, temp);
  const temporary = holder.kind === 'image' ? { kind: 'image' as const, facts: await temporaryFacts(cli, temp, holder.info) } : holder;
  return { look: { kind: 'names', final: undefined, created: false, temporary }, image };
}

async function temporaryFacts(cli: CephCliOptions, temp: RbdImageRef, info: RbdImageInfo): Promise<TemporaryFacts> {
  const [watchers, verified, writer, snap] = await Promise.all([
    countRbdWatchers(cli, temp), getRbdImageMeta(cli, temp, VERIFIED_META_KEY), getRbdImageMeta(cli, temp, WRITER_META_KEY),
    readRbdImageInfo(cli, { ...temp, snapshot: SNAPSHOT }),
  ]);
  return { watchers, modifiedAtSec: info.modifiedAtSec, verified, protectedSnapshot: snap?.protected === true, writerGone: writerGone(writer) };
}

/** The writer named in the image ran on this host and its process is gone: no need to wait for the quiet time. */
function writerGone(writer: string | undefined): boolean {
  const match = /^(.+):(\d+)$/.exec(writer ?? '');
  if (match === null || match[1] !== hostname()) return false;
  try {
    process.kill(Number(match[2]), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
