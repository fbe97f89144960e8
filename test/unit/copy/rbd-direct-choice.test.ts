import { describe, expect, it } from 'vitest';
import { COPY_POLICY_DEFAULTS, RBD_QUIET_FLOOR_MS, resolveCopyPolicy } from '../../../src/config/copy-policy.js';
import { createKeyedLimiter } from '../../../src/concurrency/keyed-limiter.js';
import { chooseTransfer } from '../../../src/copy/transfer/choose-transfer.js';
import { glanceCopyImage } from '../../../src/copy/transfer/glance-copy-image.js';

const B = new Map([['site-b', { confFile: '/etc/ceph/b.conf', user: 'glance' }]]);
const withSources = { sourceCephConfs: { 'site-a': '/etc/ceph/a.conf' } };

describe('chooseTransfer', () => {
  it.each([
    { name: 'glance (the default) is Glance\'s copy-image', policy: {}, targets: B, kind: 'glance', same: true },
    { name: 'rbd with a target is the direct transfer', policy: { transfer: 'rbd' as const, ...withSources }, targets: B, kind: 'rbd', same: false },
    { name: 'auto with a target is the direct transfer (Glance as fallback)', policy: { transfer: 'auto' as const, ...withSources }, targets: B, kind: 'rbd', same: false },
    { name: 'auto without a local ceph.conf is Glance', policy: { transfer: 'auto' as const }, targets: new Map(), kind: 'glance', same: true },
  ])('chooseTransfer: $name', ({ policy, targets, kind, same }) => {
    const transfer = chooseTransfer(resolveCopyPolicy(policy), targets, 'glance');
    expect(transfer.kind).toBe(kind);
    expect(transfer === glanceCopyImage).toBe(same);
  });

  it('chooseTransfer: rbd without a local ceph.conf is refused before any request', () => {
    expect(() => chooseTransfer(resolveCopyPolicy({ transfer: 'rbd', ...withSources }), new Map(), undefined))
      .toThrow(/no ceph.conf names it/);
  });
});

describe('resolveCopyPolicy: the transfer fields', () => {
  it('resolveCopyPolicy: defaults to glance with no source cluster', () => {
    expect(resolveCopyPolicy({})).toMatchObject({ transfer: 'glance', sourceCephConfs: {}, sourceRbdUser: undefined, rbdQuietMs: 180_000 });
    expect(resolveCopyPolicy({ rbdQuietMs: RBD_QUIET_FLOOR_MS }).rbdQuietMs).toBe(90_000);
    expect(COPY_POLICY_DEFAULTS.transfer).toBe('glance');
  });

  it.each([
    { name: 'rbd without any source', input: { transfer: 'rbd' as const }, message: /transfer rbd needs at least one source cluster, got none \(from --transfer\)/ },
    { name: 'a bad store name', input: { transfer: 'rbd' as const, sourceCephConfs: { 'site a': '/a.conf' } }, message: /sourceCephConfs/ },
    { name: 'an unknown mode', input: { transfer: 'teleport' as never }, message: /transfer/ },
    { name: 'a quiet time below the floor', input: { rbdQuietMs: RBD_QUIET_FLOOR_MS - 1 }, message: /rbdQuietMs must be at least 90 s, got 89.999 s/ },
  ])('resolveCopyPolicy: refuses $name', ({ input, message }) => {
    expect(() => resolveCopyPolicy(input, COPY_POLICY_DEFAULTS, { transfer: '--transfer' })).toThrow(message);
  });
});

describe('createKeyedLimiter', () => {
  it('createKeyedLimiter: at most `limit` per key; another key is not held up; waiters run in turn', async () => {
    const limiter = createKeyedLimiter(1);
    const signal = new AbortController().signal;
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const first = limiter.run(['source:a', 'target:b'], signal, async () => { log.push('first start'); await gate; log.push('first end'); });
    const second = limiter.run(['source:a', 'target:c'], signal, () => { log.push('second'); return Promise.resolve(); });
    const other = limiter.run(['source:z', 'target:y'], signal, () => { log.push('other'); return Promise.resolve(); });
    await other;
    expect(log).toEqual(['first start', 'other']);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['first start', 'other', 'first end', 'second']);
  });

  it('createKeyedLimiter: a waiter that aborts leaves the queue and rejects at once', async () => {
    const limiter = createKeyedLimiter(1);
    let release!: () => void;
    const held = limiter.run(['k'], new AbortController().signal, () => new Promise<void>((resolve) => { release = resolve; }));
    const controller = new AbortController();
    const waiting = limiter.run(['k'], controller.signal, () => Promise.resolve('ran'));
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    release();
    await held;
    await expect(limiter.run(['k'], new AbortController().signal, () => Promise.resolve('free'))).resolves.toBe('free');
  });
});
