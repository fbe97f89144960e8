import { describe, expect, it } from 'vitest';
import { createPoolCheck, decidePoolCheck, poolOfLocalCopies, type PoolCheckState } from '../../../src/host/pool-check.js';
import type { ImageLocationsView } from '../../../src/rbd/classify-locations.js';
import type { PoolProbe } from '../../../src/rbd/probe-rbd-pool.js';

const target = { cluster: { confFile: '/etc/ceph/ceph.conf', user: 'ferry' }, pool: 'images' };
const key = '/etc/ceph/ceph.conf\0ferry\0images';
const down: PoolProbe = { answers: false, why: "the mons answer, but pool images's OSDs did not within 10 s" };
const up: PoolProbe = { answers: true, why: 'rbd ls --pool images answered (3 RBD images)' };
const unknown: PoolProbe = { answers: null, why: 'could not check: no keyring for this cephx user' };
const at = (over: Partial<PoolCheckState>): PoolCheckState => ({ target, last: undefined, running: false, startedAt: undefined, now: 100_000, ...over });

describe('decidePoolCheck: the pool check of /healthz', () => {
  it.each([
    ['no copy handed out yet: the pool is unknown, no check (a look in Glance instead, below)', at({ target: undefined }), undefined, false],
    ['first round: passes until a read says otherwise, and reads', at({}), true, true],
    ['the OSDs did not answer: fails', at({ last: { probe: down, key }, startedAt: 90_000 }), false, false],
    ['the pool answered', at({ last: { probe: up, key }, startedAt: 90_000 }), true, false],
    ['could not tell (no keyring): passes', at({ last: { probe: unknown, key }, startedAt: 90_000 }), true, false],
    ['a read of another pool does not count, and a read of this one starts', at({ last: { probe: down, key: 'other' }, startedAt: 90_000 }), true, true],
    ['due after the interval: reads again, reports the last meanwhile', at({ last: { probe: down, key }, startedAt: 70_000 }), false, true],
    ['due, but one still runs: no second', at({ last: { probe: down, key }, startedAt: 40_000, running: true }), false, false],
  ])('%s', (_name, state, ok, start) => {
    const decision = decidePoolCheck(state, 30_000);
    expect(decision.check?.ok).toBe(ok);
    expect(decision.start).toBe(start);
    expect(decision.discover).toBe(state.target === undefined);
    if (ok === false) expect(decision.check).toMatchObject({ code: 'FERRY_CEPH', message: expect.stringContaining('pool images does not answer') });
  });
});

describe('decidePoolCheck: looking for the pool in Glance before any hand-out', () => {
  it.each([
    ['never looked: look now', at({ target: undefined }), true],
    ['a look runs: no second', at({ target: undefined, discovering: true, discoveryStartedAt: 99_000 }), false],
    ['looked 10 s ago and found nothing: wait for the interval', at({ target: undefined, discoveryStartedAt: 90_000 }), false],
    ['looked 30 s ago and found nothing: look again', at({ target: undefined, discoveryStartedAt: 70_000 }), true],
    ['the pool is known: no look', at({ discoveryStartedAt: 10_000 }), false],
  ])('%s', (_name, state, discover) => {
    const decision = decidePoolCheck(state, 30_000);
    expect(decision.discover).toBe(discover);
    if (state.target === undefined) expect(decision).toMatchObject({ check: undefined, start: false });
  });
});

const FSID = '2fc5339a-1bc1-4fe6-81a7-81768ee9c3cf';
const OTHER = 'c0ffee00-0000-4000-8000-000000000001';
const located = (diskFormat: string, ...locations: [string, string | undefined][]): ImageLocationsView => ({ diskFormat, directUrl: undefined,
  locations: locations.map(([url, store]) => ({ url, store, metadata: store === undefined ? {} : { store } })) });

describe('poolOfLocalCopies: the pool of this site\'s copies as Glance lists images', () => {
  it.each([
    ['a copy of ours in pool images-b', [located('raw', [`rbd://${FSID}/images-b/i1/snap`, 'site-b'])], 'images-b'],
    ['another cluster\'s copy first, then ours', [located('raw', [`rbd://${OTHER}/images/i1/snap`, 'site-a'], [`rbd://${FSID}/pool-b/i1/snap`, 'site-b'])], 'pool-b'],
    ['our cluster, another store\'s tag (site-c in images-c): not our pool', [located('raw', [`rbd://${FSID}/images-c/i1/snap`, 'site-c'])], undefined],
    ['not raw: skipped, the next image tells', [located('qcow2', [`rbd://${FSID}/wrong/i1/snap`, 'site-b']), located('raw', [`rbd://${FSID}/images/i2/snap`, 'site-b'])], 'images'],
    ['locations hidden', [{ diskFormat: 'raw', directUrl: undefined, locations: undefined }], undefined],
    ['no image at all (a new site)', [], undefined],
  ])('%s', (_name, images, pool) => {
    expect(poolOfLocalCopies(images, { fsid: FSID, store: 'site-b' })).toBe(pool);
  });
});

describe('createPoolCheck', () => {
  it('before any hand-out: looks in Glance once per interval, reads the pool it finds; a hand-out meanwhile wins', async () => {
    let clock = 0;
    const looks: ((found: typeof target | undefined) => void)[] = [];
    const reads: string[] = [];
    const check = createPoolCheck({ intervalMs: 30_000, timeoutMs: 20_000, now: () => clock,
      discover: () => new Promise((resolve) => looks.push(resolve)),
      read: (read) => { reads.push(read.pool); return Promise.resolve(up); } });
    expect(check.check()).toBeUndefined();
    expect(check.check()).toBeUndefined();
    expect(looks).toHaveLength(1);
    looks[0]!(undefined);
    await new Promise((resolve) => setImmediate(resolve));
    clock = 10_000;
    expect(check.check()).toBeUndefined();
    expect(looks).toHaveLength(1);
    clock = 30_000;
    expect(check.check()).toBeUndefined();
    expect(looks).toHaveLength(2);
    looks[1]!({ ...target, pool: 'images-b' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(check.check()).toEqual({ ok: true });
    expect(reads).toEqual(['images-b']);
  });

  it('a look that fails counts as nothing found; one that ends after a hand-out does not replace it', async () => {
    let clock = 0;
    const looks: { resolve: (found: typeof target | undefined) => void; reject: (error: Error) => void }[] = [];
    const reads: string[] = [];
    const check = createPoolCheck({ intervalMs: 30_000, timeoutMs: 20_000, now: () => clock,
      discover: () => new Promise((resolve, reject) => looks.push({ resolve, reject })),
      read: (read) => { reads.push(read.pool); return Promise.resolve(up); } });
    expect(check.check()).toBeUndefined();
    looks[0]!.reject(new Error('Glance is down'));
    await new Promise((resolve) => setImmediate(resolve));
    clock = 30_000;
    expect(check.check()).toBeUndefined();
    check.handedOut(target);
    looks[1]!.resolve({ ...target, pool: 'stale' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(check.check()).toEqual({ ok: true });
    expect(reads).toEqual(['images']);
  });

  it('reads at most once per interval, one at a time, and reports the finished read on a later round', async () => {
    let clock = 0;
    const reads: ((probe: PoolProbe) => void)[] = [];
    const check = createPoolCheck({ intervalMs: 30_000, timeoutMs: 20_000, now: () => clock,
      read: () => new Promise<PoolProbe>((resolve) => reads.push(resolve)) });
    expect(check.check()).toBeUndefined();
    check.handedOut(target);
    expect(check.check()).toEqual({ ok: true });
    expect(check.check()).toEqual({ ok: true });
    expect(reads).toHaveLength(1);
    reads[0]!(down);
    await new Promise((resolve) => setImmediate(resolve));
    clock = 10_000;
    expect(check.check()).toMatchObject({ ok: false, code: 'FERRY_CEPH' });
    expect(reads).toHaveLength(1);
    clock = 30_000;
    expect(check.check()).toMatchObject({ ok: false });
    expect(reads).toHaveLength(2);
    reads[1]!(up);
    await new Promise((resolve) => setImmediate(resolve));
    expect(check.check()).toEqual({ ok: true });
  });
});
