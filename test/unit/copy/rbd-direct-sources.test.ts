import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CopyJob, TransferOutcome } from '../../../src/copy/copy-job.js';
import { createRbdDirectTransfer } from '../../../src/copy/transfer/rbd-direct.js';
import { isFerryError } from '../../../src/errors/ferry-error.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { parseImage } from '../../../src/glance/image.js';
import type { CommandOutcome } from '../../../src/rbd/command-runner.js';
import { silentLogger } from '../../../src/logging/logger.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { FSID_A, FSID_B, IMAGE_ID, imageBody } from '../../helpers/image-body.js';
import { scriptedRunner } from '../../helpers/scripted-runner.js';

// Issue 25, finding 2: the names of a source location reach rbd's argv only once checked, and the location's pool must
// be the pool of the store it is tagged with (GET /v2/info/stores/detail, read for the targets already). A candidate
// that fails either is skipped, with its reason in `tried`, before any rbd command touches it.

// The dev cloud's stores detail (site-a: pool images of cluster A; site-b: images; site-c: images-c).
const storesDetail = parseStoresInfo((JSON.parse(readFileSync('fixtures/glance/info-stores-detail-site-c.json', 'utf8')) as { body: unknown }).body);
const notFound: CommandOutcome = { outcome: 'exited', exitCode: 2, signal: null, stdout: '', stderr: 'rbd: error opening image x: (2) No such file or directory\n' };

function imageWithSiteA(url: string) {
  const body = imageBody({ stores: ['site-a'] });
  return parseImage({ ...body, os_hash_algo: 'sha512', os_hash_value: 'ab'.repeat(64), locations: [{ url, metadata: { store: 'site-a' } }] });
}

/** The smallest job the transfer reads: the image, Glance's stores detail, a clock, a deadline that never passes. */
function jobFor(image: ReturnType<typeof parseImage>): CopyJob<never> {
  const clock = fakeClock();
  const glance = { getStoresDetail: () => Promise.resolve(storesDetail), getImage: () => Promise.resolve(image) };
  return {
    ctx: { glance, clock, logger: silentLogger },
    state: { image },
    deadline: { signal: new AbortController().signal },
    progress: () => undefined,
    read: () => Promise.resolve(image),
  } as unknown as CopyJob<never>;
}

async function bringSiteB(url: string) {
  const runner = scriptedRunner(notFound);
  const transfer = createRbdDirectTransfer({
    targets: new Map([['site-b', { confFile: '/etc/ceph/b.conf', user: 'glance', fsid: FSID_B }]]),
    sources: new Map([['site-a', { confFile: '/etc/ceph/a.conf', user: 'reader', fsid: FSID_A }]]),
    runner,
  });
  const outcome: TransferOutcome = await transfer.bring(jobFor(imageWithSiteA(url)), ['site-b'], undefined);
  if (outcome.kind !== 'ended') throw new Error(`expected an ended outcome, got ${outcome.kind}`);
  const verdict = outcome.verdicts.get('site-b');
  if (verdict?.kind !== 'refused' || !isFerryError(verdict.error)) throw new Error(`expected a refusal, got ${JSON.stringify(verdict)}`);
  return { error: verdict.error, runner };
}

describe('direct transfer: a source location is checked before rbd reads it', () => {
  it.each([
    { name: 'a pool that would be read as an option', url: `rbd://${FSID_A}/--keyring=%2Ftmp%2Fk/${IMAGE_ID}/snap`, why: "pool '--keyring=/tmp/k'" },
    { name: 'an image that would be read as an option', url: `rbd://${FSID_A}/images/-x/snap`, why: "image '-x'" },
    { name: 'a snapshot with a control character', url: `rbd://${FSID_A}/images/${IMAGE_ID}/sn%0Aap`, why: 'snapshot' },
    { name: 'an image with an @ (rbd would read a snapshot)', url: `rbd://${FSID_A}/images/a%40b/snap`, why: "image 'a@b'" },
  ])('a source location with unsafe names is skipped, named in tried, and never given to rbd: $name', async ({ url, why }) => {
    const { error, runner } = await bringSiteB(url);
    expect(error.code).toBe('FERRY_RBD_SOURCE_UNREACHABLE');
    expect(error.details.tried).toEqual([{ store: 'site-a', error: expect.stringContaining(why) as unknown }]);
    expect(runner.calls).toEqual([]);
  });

  it('a source location in another pool than its store\'s (site-a is pool images) is skipped with the reason, never copied', async () => {
    const { error, runner } = await bringSiteB(`rbd://${FSID_A}/volumes/${IMAGE_ID}/snap`);
    expect(error.code).toBe('FERRY_RBD_SOURCE_UNREACHABLE');
    expect(error.details.tried).toEqual([{ store: 'site-a',
      error: `the location is in pool volumes, but Glance's store site-a writes pool images` }]);
    // At most its `rbd info` was asked, beside the read of Glance's stores (a look, not a copy): nothing was created.
    expect(runner.calls.map((call) => call.args.slice(call.args.indexOf('--') - 3))).toEqual([['info', '--format', 'json', '--', `volumes/${IMAGE_ID}@snap`]]);
  });
});
