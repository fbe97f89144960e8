import { describe, expect, it } from 'vitest';
import { FENCE_KEY } from '../../../src/fleet/copy-fence.js';
import { evictStore } from '../../../src/evict/evict-store.js';
import type { EvictOptions } from '../../../src/evict/evict-options.js';
import { textStyle } from '../../../src/cli/output/text-style.js';
import { renderEvict } from '../../../src/cli/render/evict.js';
import { evictToJson } from '../../../src/contract/evict-document.js';
import { createWorld, fenceLeftOn, fiveCopyWorld, SCRIPTED_PROJECT, type World } from './evict-world.js';
import { DAY, MIB, NOW } from './copy-facts-fixture.js';

// evictStore against a small cloud (evict-world.ts): the plan, the fence, the grace, the last look, the removal
// through Glance, the check in the pool, and every fence lifted that did not go with its copy. No real time passes:
// the grace is a fake clock's sleep, and what happens in the cloud during it is scripted.

const options = (world: World, extra: Partial<EvictOptions> = {}): EvictOptions => ({
  store: 'site-b', cluster: { confFile: '/etc/ceph/site-b.conf', user: 'ferry-evict' }, run: 'run-1', by: 'test',
  ceph: { runner: world.runner }, graceMs: 30_000, ...extra,
});
const outcomes = (report: Awaited<ReturnType<typeof evictStore>>) => report.items.map((item) => [item.imageId, item.action, item.outcome ?? '-']);
const fences = (world: World) => [...world.copies.values()].filter((copy) => copy.meta[FENCE_KEY] !== undefined).map((copy) => copy.id);

const cloud = fiveCopyWorld;

describe('evictStore', () => {
  it('a dry run plans and touches nothing: no fence, no DELETE, the plan least recently used first', async () => {
    const world = cloud();
    const report = await evictStore(world.ctx, options(world, { dryRun: true }));
    expect(outcomes(report)).toEqual([['b-idle', 'evict', '-'], ['a-idle', 'evict', '-'], ['c-busy', 'keep', '-'], ['d-only', 'keep', '-'],
      ['e-fresh', 'keep', '-']]);
    expect(report.items.map((item) => item.reason)).toEqual(['idle', 'idle', 'in-use', 'last-copy', 'not-idle']);
    expect(world.calls.filter((call) => !call.startsWith('GET') && call !== 'rbd list')).toEqual([]);
    expect(report.budget).toMatchObject({ verdict: 'none', usedBytes: 1050 * MIB, afterBytes: 750 * MIB });
  });

  it('no budget: every idle candidate goes after one fence and one grace; all looked at again in one process, each removed, checked gone (no fence left to lift)', async () => {
    const world = cloud();
    const report = await evictStore(world.ctx, options(world));
    expect(outcomes(report)).toEqual([['b-idle', 'evict', 'evicted'], ['a-idle', 'evict', 'evicted'], ['c-busy', 'keep', '-'], ['d-only', 'keep', '-'],
      ['e-fresh', 'keep', '-']]);
    // The round's last look at the pool is one process for all its copies (not one per copy, one after another).
    expect(world.calls.filter((call) => !call.startsWith('GET /v2'))).toEqual(['rbd list', 'rbd fence ferry.evicting b-idle a-idle',
      'rbd check b-idle a-idle', 'GET b-idle', 'DELETE site-b/b-idle', 'GET a-idle', 'DELETE site-b/a-idle',
      'rbd check b-idle a-idle']);
    expect(world.clock.sleeps).toEqual([30_000]);
    expect(report.counts).toMatchObject({ planned: 2, evicted: 2, kept: 0, failed: 0 });
    expect(report.budget).toMatchObject({ verdict: 'none', afterBytes: 750 * MIB });
    expect(world.copies.get('a-idle')?.stores).toEqual(['site-a']);
  });

  it('a budget: the least recently used until it is met, the others stay under-budget', async () => {
    const world = cloud();
    const report = await evictStore(world.ctx, options(world, { budget: `${1050 - 150}M` }));
    expect(outcomes(report)).toEqual([['b-idle', 'evict', 'evicted'], ['c-busy', 'keep', '-'], ['d-only', 'keep', '-'], ['e-fresh', 'keep', '-'],
      ['a-idle', 'keep', '-']]);
    expect(report.items.at(-1)?.reason).toBe('under-budget');
    expect(report.budget).toMatchObject({ verdict: 'met', budgetBytes: 900 * MIB, afterBytes: 850 * MIB, shortfallBytes: 0 });
    expect(world.calls).not.toContain('DELETE site-b/a-idle');
  });

  it('a clone made during the grace keeps the copy (its fence lifted), and the next candidate is fenced in a second round', async () => {
    const world = cloud();
    world.duringGrace(() => world.copies.get('b-idle')?.clones.push({ trash: false, created: NOW }));
    const report = await evictStore(world.ctx, options(world, { budget: `${1050 - 150}M` }));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'kept', outcomeReason: 'in-use',
      outcomeDetail: 'at the last look: 1 clone: instances booted from it' });
    expect(report.items.find((item) => item.imageId === 'a-idle')).toMatchObject({ outcome: 'evicted' });
    expect(world.clock.sleeps).toEqual([30_000, 30_000]);
    expect(world.calls).toContain('rbd fence ferry.evicting a-idle');
    expect(report.budget.verdict).toBe('unmet');
    expect(fences(world)).toEqual([]);
  });

  it('a clone in the trash made during the grace keeps it just the same', async () => {
    const world = cloud();
    world.duringGrace(() => world.copies.get('b-idle')?.clones.push({ trash: true, created: NOW }));
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'kept', outcomeReason: 'in-use' });
    expect(world.calls).not.toContain('DELETE site-b/b-idle');
  });

  it('Glance refuses (409 in use: a clone between the last look and the DELETE): kept, fence lifted', async () => {
    const world = cloud();
    world.beforeDelete = (id) => world.copies.get(id)?.clones.push({ trash: false, created: NOW });
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.filter((item) => item.action === 'evict').map((item) => [item.outcome, item.outcomeReason])).toEqual([['kept', 'in-use'], ['kept', 'in-use']]);
    expect(world.copies.get('b-idle')?.stores).toEqual(['site-a', 'site-b']);
    expect(fences(world)).toEqual([]);
  });

  it('a Glance that trashes a copy with clones (glance_store ≥ 4.6) and answers 204: reported trashed, no byte freed', async () => {
    const world = cloud();
    world.trashing = true;
    world.beforeDelete = (id) => {
      if (id === 'b-idle') world.copies.get(id)?.clones.push({ trash: false, created: NOW });
    };
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'trashed',
      outcomeDetail: expect.stringContaining('its clones keep working, no byte was freed') as unknown });
    expect(report.budget.afterBytes).toBe(1050 * MIB - 100 * MIB);
  });

  it('a boot copies the image anew between the DELETE and the check (same name, a newer copy): evicted, not failed; no byte counted freed', async () => {
    // Seen in the boot race: the agent's ensure had Glance copy the image back into the store right after the removal;
    // the check found an image of that name and the run failed (exit 50) though it did what it was asked.
    const world = cloud();
    world.afterDelete = (id) => {
      if (id === 'b-idle') Object.assign(world.copies.get(id)!, { bytes: 200 * MIB, created: NOW + 5_000, accessed: NOW + 5_000 });
    };
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'evicted',
      outcomeDetail: expect.stringContaining('copied anew since') as unknown });
    expect(report.counts).toMatchObject({ evicted: 2, failed: 0 });
    expect(report.budget.afterBytes).toBe(1050 * MIB - 100 * MIB);
  });

  it('the pool still holds the very copy Glance said it removed (the same creation time): failed', async () => {
    const world = cloud();
    world.afterDelete = (id) => {
      if (id === 'b-idle') world.copies.get(id)!.bytes = 200 * MIB;
    };
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'failed',
      outcomeDetail: 'Glance answered that it removed it, but the pool still holds it' });
  });

  it('an import started during the grace, another run\'s fence, the other location gone: each keeps its copy', async () => {
    const world = cloud();
    world.duringGrace(() => {
      world.copies.get('b-idle')!.importing = true;
      world.copies.get('a-idle')!.stores.splice(0, 1);
    });
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.filter((item) => item.action === 'evict').map((item) => [item.imageId, item.outcomeReason])).toEqual([
      ['b-idle', 'importing'], ['a-idle', 'last-copy']]);
    expect(world.calls.filter((call) => call.startsWith('DELETE'))).toEqual([]);
  });

  it('a copy another run is fencing is kept by the plan', async () => {
    const world = cloud();
    world.copies.get('b-idle')!.meta[FENCE_KEY] = JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW + 10_000).toISOString(), by: 'other host' });
    const report = await evictStore(world.ctx, options(world, { dryRun: true }));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ action: 'keep', reason: 'fenced', detail: 'another eviction is at it (other host)' });
  });

  it('another run fences a copy between the plan and the fence: its fence is left alone and the copy kept, the others go', async () => {
    const world = cloud();
    const theirs = JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW + 10_000).toISOString(), by: 'host-2 pid 7', since: new Date(NOW - 20_000).toISOString() });
    world.beforeFence = () => { world.copies.get('b-idle')!.meta[FENCE_KEY] = theirs; };
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'kept', outcomeReason: 'fenced',
      outcomeDetail: 'another eviction run holds its fence (host-2 pid 7, run run-0): left to it' });
    expect(world.copies.get('b-idle')!.meta[FENCE_KEY]).toBe(theirs);
    expect(world.calls.filter((call) => call.startsWith('DELETE'))).toEqual(['DELETE site-b/a-idle']);
  });

  it('two runs on one store: a copy the other run fenced first counts as leaving with it — the budget met with it, no other copy taken in its place', async () => {
    const world = cloud();
    const theirs = JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW + 10_000).toISOString(), by: 'host-2 pid 7', since: new Date(NOW - 20_000).toISOString() });
    world.beforeFence = () => { world.copies.get('b-idle')!.meta[FENCE_KEY] = theirs; };
    const report = await evictStore(world.ctx, options(world, { budget: `${1050 - 150}M` }));
    expect(world.calls.filter((call) => call.startsWith('DELETE') || call.startsWith('rbd fence'))).toEqual(['rbd fence ferry.evicting b-idle']);
    expect(report.budget).toMatchObject({ verdict: 'met', afterBytes: 1050 * MIB, othersBytes: report.items[0]?.bytes, shortfallBytes: 0 });
    expect(evictToJson(report).budget.others_bytes).toBe(report.items[0]?.bytes);
    expect(renderEvict(report, textStyle(false))).toContain('with the 200 MiB another eviction run takes');
  });

  it('two runs on one store, the other fenced first at plan time: planned as leaving with it, nothing else chosen in its place', async () => {
    const world = cloud();
    world.copies.get('b-idle')!.meta[FENCE_KEY] = JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW + 10_000).toISOString(), by: 'other host',
      since: new Date(NOW - 20_000).toISOString() });
    const report = await evictStore(world.ctx, options(world, { budget: `${1050 - 150}M`, dryRun: true }));
    expect(outcomes(report).filter(([, action]) => action === 'evict')).toEqual([]);
    expect(report.budget).toMatchObject({ verdict: 'met', othersBytes: 200 * MIB });
  });

  it.each([
    { what: 'a mark not in ferry\'s format', mark: 'someone was here' },
    { what: 'a fence due a day ahead (no run removes that late)', mark: JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW + 86_400_000).toISOString(), by: 'x',
      since: new Date(NOW - 20_000).toISOString() }) },
    { what: 'a fence renewed for longer than a run takes (first written 7 min ago, its last look moved to 10 s ahead)',
      mark: JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW + 10_000).toISOString(), by: 'x', since: new Date(NOW - 7 * 60_000).toISOString() }) },
    { what: 'a fence of an older ferry (no since: how long it has been there cannot be told)',
      mark: JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW + 10_000).toISOString(), by: 'x' }) },
  ])('$what keeps its copy but does not count as leaving: anyone who may write the pool could have written it, so the plan chooses in its place', async ({ mark }) => {
    const world = cloud();
    world.copies.get('b-idle')!.meta[FENCE_KEY] = mark;
    const report = await evictStore(world.ctx, options(world, { budget: `${1050 - 150}M`, dryRun: true }));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ action: 'keep', reason: 'fenced' });
    expect(outcomes(report).filter(([, action]) => action === 'evict')).toEqual([['a-idle', 'evict', '-']]);
    expect(report.budget.othersBytes).toBe(0);
  });

  it('a fence whose run is gone (past its last look by 2 min) is taken over, only while it still holds what was read', async () => {
    const world = cloud();
    const stale = JSON.stringify({ run: 'run-0', recheck_at: new Date(NOW - 200_000).toISOString(), by: 'killed host' });
    world.copies.get('b-idle')!.meta[FENCE_KEY] = stale;
    const report = await evictStore(world.ctx, options(world));
    expect(world.calls.filter((call) => call.startsWith('rbd fence'))).toEqual(['rbd fence ferry.evicting b-idle a-idle',
      'rbd fence ferry.evicting b-idle']);
    expect(outcomes(report).slice(0, 2)).toEqual([['b-idle', 'evict', 'evicted'], ['a-idle', 'evict', 'evicted']]);
  });

  it('a fence it cannot lift (its image-meta unreadable) is reported, in the report and its JSON', async () => {
    const world = cloud();
    fenceLeftOn(world, 'b-idle');
    const report = await evictStore(world.ctx, options(world));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'kept', outcomeReason: 'in-use' });
    expect(report.fencesLeft).toEqual([{ imageId: 'b-idle', rbdImage: 'b-idle',
      detail: 'its fence could not be lifted (RBD error reading metadata): it runs out on its own 120 s after its last look' }]);
    expect(evictToJson(report).fences_left).toEqual([{ image: 'b-idle', rbd_image: 'b-idle', detail: report.fencesLeft[0]!.detail }]);
    expect(renderEvict(report, textStyle(false))).toContain('warning: 1 fence could not be lifted; each holds its copy until it runs out '
      + '(120 s after its last look):\n  b-idle (b-idle): its fence could not be lifted (RBD error reading metadata)');
  });

  it('an unfence that fails as a whole leaves every fence it was to lift reported', async () => {
    const world = cloud();
    world.duringGrace(() => { for (const id of ['a-idle', 'b-idle']) world.copies.get(id)!.importing = true; });
    world.unfenceError = { outcome: 'exited', exitCode: 110, signal: null, stdout: '', stderr: '[errno 110] RADOS timed out' };
    const report = await evictStore(world.ctx, options(world));
    expect(report.fencesLeft.map((left) => left.imageId)).toEqual(['b-idle', 'a-idle']);
    expect(report.fencesLeft[0]!.detail).toMatch(/^its fence could not be lifted \(FerryError: rbd_store_copies unfence images .*exit 110/);
  });

  it('slow removals: a copy whose fence expired before its turn is not removed (kept, fenced)', async () => {
    const world = cloud();
    world.deleteTakesMs = 100_000; // the fence's removals end 90 s after its last look
    const report = await evictStore(world.ctx, options(world));
    expect(world.calls.filter((call) => call.startsWith('DELETE'))).toEqual(['DELETE site-b/b-idle']);
    expect(report.items.find((item) => item.imageId === 'a-idle')).toMatchObject({ outcome: 'kept', outcomeReason: 'fenced',
      outcomeDetail: 'its fence expired before its turn came (removals end 90 s after the last look): not removed, left for the next run' });
    expect(fences(world)).toEqual([]);
  });

  it('a user that may not write image-meta: FERRY_CEPH before any removal, nothing fenced', async () => {
    const world = cloud();
    world.fenceErrno = 1;
    await expect(evictStore(world.ctx, options(world))).rejects.toMatchObject({ code: 'FERRY_CEPH',
      message: expect.stringMatching(/^client\.ferry-evict may not write image-meta in pool images/) as unknown });
    expect(world.calls.filter((call) => call.startsWith('DELETE'))).toEqual([]);
  });

  it('Glance refuses one copy (403): that copy is forbidden (its fence lifted), and the run goes on to the next candidate and meets the budget', async () => {
    const world = cloud();
    world.forbidden.add('b-idle');
    const report = await evictStore(world.ctx, options(world, { budget: `${1050 - 100}M` }));
    expect(report.items.find((item) => item.imageId === 'b-idle')).toMatchObject({ outcome: 'forbidden',
      outcomeDetail: expect.stringContaining('Glance refused to remove image b-idle from store site-b: You do not own this image') as unknown });
    expect(report.items.find((item) => item.imageId === 'a-idle')).toMatchObject({ outcome: 'evicted' });
    expect(world.calls.filter((call) => call.startsWith('DELETE'))).toEqual(['DELETE site-b/b-idle', 'DELETE site-b/a-idle']);
    expect(report.counts).toMatchObject({ forbidden: 1, evicted: 1, failed: 0 });
    expect(report.budget).toMatchObject({ verdict: 'met', afterBytes: 950 * MIB });
    expect(fences(world)).toEqual([]);
    expect(world.copies.get('b-idle')?.stores).toEqual(['site-a', 'site-b']);
  });

  it('Glance refuses by policy every copy: each forbidden, nothing removed, every fence lifted, the budget unmet', async () => {
    const world = cloud();
    world.forbidden.add('a-idle').add('b-idle');
    const report = await evictStore(world.ctx, options(world, { budget: `${1050 - 150}M` }));
    expect(report.counts).toMatchObject({ forbidden: 2, evicted: 0 });
    expect(report.budget.verdict).toBe('unmet');
    expect(fences(world)).toEqual([]);
  });

  it('tenants\' idle copies older than the operator\'s: never fenced nor sent a DELETE (not-owned), the operator\'s copy goes, the budget met', async () => {
    const world = createWorld([
      { id: 't-old', stores: ['site-a', 'site-b'], bytes: 100 * MIB, owner: 'tenant', created: NOW - 30 * DAY, accessed: NOW - 30 * DAY },
      { id: 't-older', stores: ['site-a', 'site-b'], bytes: 100 * MIB, owner: 'tenant', created: NOW - 40 * DAY, accessed: NOW - 40 * DAY },
      { id: 'ours', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
    ], NOW);
    const report = await evictStore(world.ctx, options(world, { budget: '250M' }));
    expect(outcomes(report)).toEqual([['ours', 'evict', 'evicted'], ['t-older', 'keep', '-'], ['t-old', 'keep', '-']]);
    expect(report.items.filter((item) => item.action === 'keep').map((item) => [item.reason, item.detail])).toEqual([
      ['not-owned', `owner tenant is not a remove owner (${SCRIPTED_PROJECT}): ferry's account may not remove its copies`],
      ['not-owned', `owner tenant is not a remove owner (${SCRIPTED_PROJECT}): ferry's account may not remove its copies`]]);
    expect(world.calls.filter((call) => call.startsWith('DELETE') || call.startsWith('rbd fence'))).toEqual(['rbd fence ferry.evicting ours', 'DELETE site-b/ours']);
    expect(report.budget).toMatchObject({ verdict: 'met', usedBytes: 300 * MIB, afterBytes: 200 * MIB });
  });

  it('remove owners *: the tenants\' copies are candidates too (least recently used first)', async () => {
    const world = createWorld([
      { id: 't-old', stores: ['site-a', 'site-b'], bytes: 100 * MIB, owner: 'tenant', created: NOW - 30 * DAY, accessed: NOW - 30 * DAY },
      { id: 'ours', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
    ], NOW);
    const report = await evictStore(world.ctx, options(world, { budget: '150M', removeOwners: ['*'], dryRun: true }));
    expect(outcomes(report)).toEqual([['t-old', 'evict', '-'], ['ours', 'keep', '-']]);
  });

  it('interrupted during the grace: FERRY_ABORTED, every fence lifted, nothing removed', async () => {
    const world = cloud();
    const controller = new AbortController();
    world.duringGrace(() => controller.abort(new Error('Ctrl-C')));
    await expect(evictStore(world.ctx, options(world, { signal: controller.signal }))).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    expect(fences(world)).toEqual([]);
    expect(world.calls.filter((call) => call.startsWith('DELETE'))).toEqual([]);
  });

  it('a store Glance does not have: FERRY_STORE_NOT_FOUND naming the stores there are, before any read of Ceph', async () => {
    const world = cloud();
    await expect(evictStore(world.ctx, options(world, { store: 'site-z' }))).rejects.toMatchObject({ code: 'FERRY_STORE_NOT_FOUND',
      hint: expect.stringContaining('site-a, site-b') as unknown });
    expect(world.calls).toEqual([]);
  });

  it('options are checked first: a grace under 1 s is refused naming the option', async () => {
    const world = cloud();
    await expect(evictStore(world.ctx, options(world, { graceMs: 10 }))).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION',
      message: expect.stringMatching(/^graceMs must be at least 1 s/) as unknown });
  });
});
