import { describe, expect, it } from 'vitest';
import { createPoolCheck, decidePoolCheck, type PoolCheckState } from '../../../src/host/pool-check.js';
import type { PoolProbe } from '../../../src/rbd/probe-rbd-pool.js';

const target = { cluster: { confFile: '/etc/ceph/ceph.conf', user: 'ferry' }, pool: 'images' };
const key = '/etc/ceph/ceph.conf\0ferry\0images';
const down: PoolProbe = { answers: false, why: "the mons answer, but pool images's OSDs did not within 10 s" };
const up: PoolProbe = { answers: true, why: 'rbd ls --pool images answered (3 RBD images)' };
const unknown: PoolProbe = { answers: null, why: 'could not check: no keyring for this cephx user' };
const at = (over: Partial<PoolCheckState>): PoolCheckState => ({ target, last: undefined, running: false, startedAt: undefined, now: 100_000, ...over });

describe('decidePoolCheck: the pool check of /healthz', () => {
  it.each([
    ['no copy handed out yet: the pool is unknown, no check', at({ target: undefined }), undefined, false],
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
    if (ok === false) expect(decision.check).toMatchObject({ code: 'FERRY_CEPH', message: expect.stringContaining('pool images does not answer') });
  });
});

describe('createPoolCheck', () => {
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
