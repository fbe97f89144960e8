import { describe, expect, it } from 'vitest';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { nextPassDelay } from '../../../src/sync/next-pass-delay.js';
import { parseDuration } from '../../../src/clock/parse-duration.js';
import { parseSyncPolicy } from '../../../src/fleet/parse-sync-policy.js';
import { syncOnce } from '../../../src/sync/sync-once.js';
import { watchSync, type WatchPass } from '../../../src/sync/watch-sync.js';
import { copyContext } from '../../helpers/scripted-glance.js';
import { FLEET_VERBS } from '../../helpers/fleet-verbs.js';
import { imageId, scriptedImages, type ImageScript } from '../prewarm/scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const policyText = `version: 1
placements:
  - name: golden
    images: {tag: golden}
    stores: [site-a]
  - name: cirros at site-b
    images: {names: [cirros-raw, nosuch]}
    stores: [site-b, site-a]
`;
const policy = parseSyncPolicy(policyText, 'edge.yaml');

const copied = (stores: readonly string[], target: string): ImageScript['reads'] => [
  { stores },
  { stores, lock: T1, importing: [target] },
  { stores: [...stores, target], importing: [], failed: [] },
];

describe('syncOnce', () => {
  it('syncOnce: merges placements per image, copies the drift, reports drift before and after per placement', async () => {
    const glance = scriptedImages({
      [imageId(1)]: { name: 'golden-1', tags: ['golden'], reads: copied(['central'], 'site-a') },
      [imageId(2)]: { name: 'golden-2', tags: ['golden'], reads: [{ stores: ['central', 'site-a'] }] },
      [imageId(3)]: { name: 'cirros-raw', tags: ['golden'], reads: [
        { stores: ['central'] },
        { stores: ['central'], lock: T1, importing: ['site-a', 'site-b'] },
        { stores: ['central', 'site-a', 'site-b'], importing: [], failed: [] },
      ] },
    });
    const report = await syncOnce(copyContext(glance), FLEET_VERBS, policy, { random: () => 0.5 });
    // cirros-raw is wanted in site-a by both placements and in site-b by one: one import with both stores
    expect(glance.copyRequests.map((r) => [r.id, r.stores])).toEqual([[imageId(1), ['site-a']], [imageId(3), ['site-a', 'site-b']]]);
    expect(report).toMatchObject({ policy: 'edge.yaml', wanted: 6, driftBefore: 5, driftAfter: 2, converged: false });
    expect(report.placements).toEqual([
      { name: 'golden', stores: ['site-a'], images: 3, unresolved: 0, drift: 2 },
      { name: 'cirros at site-b', stores: ['site-b', 'site-a'], images: 1, unresolved: 1, drift: 4 },
    ]);
    expect(report.result.counts).toMatchObject({ copied: 3, present: 1, failed: 2 });
    expect(report.result.items.filter((i) => i.outcome === 'failed').map((i) => [i.imageId, i.failure])).toEqual([
      ['nosuch', 'unresolved'], ['nosuch', 'unresolved']]);
  });

  it('syncOnce: a dry run reports the drift and sends nothing', async () => {
    const glance = scriptedImages({ [imageId(1)]: { tags: ['golden'], reads: [{ stores: ['central'] }] } });
    const report = await syncOnce(copyContext(glance), FLEET_VERBS, parseSyncPolicy('version: 1\nplacements:\n  - {images: {tag: golden}, stores: [site-a]}\n'),
      { dryRun: true });
    expect(report).toMatchObject({ wanted: 1, driftBefore: 1, driftAfter: 1, converged: false });
    expect(glance.copyRequests).toEqual([]);
  });

  it('syncOnce: a store Glance does not have is FERRY_INVALID_CONFIG naming the policy line', async () => {
    const bad = parseSyncPolicy('version: 1\nplacements:\n  - images: {tag: golden}\n    stores: [site-a, edge9]\n', 'edge.yaml');
    await expect(syncOnce(copyContext(scriptedImages({})), FLEET_VERBS, bad)).rejects.toMatchObject({ code: 'FERRY_INVALID_CONFIG',
      message: expect.stringMatching(/^edge\.yaml:4:22: placement 1: stores: Glance has no store 'edge9'/) as unknown });
  });
});

describe('watchSync', () => {
  const quiet = parseSyncPolicy('version: 1\nplacements:\n  - {images: {tag: golden}, stores: [site-a]}\n', 'quiet.yaml');
  const present = { [imageId(1)]: { tags: ['golden'], reads: [{ stores: ['central', 'site-a'] }] } } as const;

  it('watchSync: one report per pass; an error is logged and backed off, never the end; stops on abort', async () => {
    const glance = scriptedImages(present);
    let detailCalls = 0;
    const flaky = { ...glance, getStoresDetail: (call?: { signal?: AbortSignal }) => {
      detailCalls += 1;
      if (detailCalls === 2) return Promise.reject(new FerryError('FERRY_UNREACHABLE', 'Glance could not be reached', 'Check it.', { retryable: true }));
      return glance.getStoresDetail(call);
    } };
    const ctx = copyContext(flaky);
    const controller = new AbortController();
    const passes: WatchPass[] = [];
    const summary = await watchSync(ctx, FLEET_VERBS, () => quiet, { intervalMs: 60_000, random: () => 0.5, signal: controller.signal,
      onPass: (pass) => { passes.push(pass); if (pass.number === 4) controller.abort(new Error('interrupted')); } });
    expect(passes.map((p) => [p.number, p.clean, p.error?.code, p.nextInMs])).toEqual([
      [1, true, undefined, 60_000], [2, false, 'FERRY_UNREACHABLE', 120_000], [3, true, undefined, 60_000], [4, true, undefined, 60_000]]);
    expect(ctx.clock.sleeps).toEqual([60_000, 120_000, 60_000]);
    expect(summary).toMatchObject({ passes: 4, uncleanPasses: 1, lastError: { code: 'FERRY_UNREACHABLE' } });
    expect(summary.last?.converged).toBe(true);
  });

  it('watchSync: failed copies back off, doubling per unclean pass in a row up to the cap', async () => {
    const glance = scriptedImages({ [imageId(1)]: { tags: ['golden'], reads: [
      { stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }, { stores: ['central'], importing: [], failed: ['site-a'] },
    ] } });
    const controller = new AbortController();
    const passes: WatchPass[] = [];
    await watchSync(copyContext(glance), FLEET_VERBS, () => quiet, { intervalMs: 10_000, maxBackoffMs: 30_000, random: () => 0.5, signal: controller.signal,
      onPass: (pass) => { passes.push(pass); if (pass.number === 3) controller.abort(new Error('interrupted')); } });
    expect(passes.map((p) => [p.clean, p.nextInMs])).toEqual([[false, 20_000], [false, 30_000], [false, 30_000]]);
  });

  it('watchSync: at the first pass an error that needs an operator is thrown', async () => {
    const bad = parseSyncPolicy('version: 1\nplacements:\n  - {images: {tag: golden}, stores: [edge9]}\n');
    await expect(watchSync(copyContext(scriptedImages(present)), FLEET_VERBS, () => bad, { intervalMs: 1000 }))
      .rejects.toMatchObject({ code: 'FERRY_INVALID_CONFIG' });
  });

  it('watchSync: a policy that no longer parses keeps the last good one, and says so', async () => {
    const controller = new AbortController();
    const passes: WatchPass[] = [];
    let loads = 0;
    await watchSync(copyContext(scriptedImages(present)), FLEET_VERBS, () => {
      loads += 1;
      return loads === 1 ? quiet : parseSyncPolicy('version: 1\nplacements: oops\n', 'quiet.yaml');
    }, { intervalMs: 1000, random: () => 0.5, signal: controller.signal,
      onPass: (pass) => { passes.push(pass); if (pass.number === 2) controller.abort(new Error('interrupted')); } });
    expect(passes[1]).toMatchObject({ clean: true, policyError: { code: 'FERRY_INVALID_CONFIG' } });
    expect(passes[1]?.report?.wanted).toBe(1);
  });
});

describe('nextPassDelay and parseDuration', () => {
  it.each([
    { interval: 60_000, failures: 0, max: 960_000, random: 0.5, expected: 60_000 },
    { interval: 60_000, failures: 1, max: 960_000, random: 0.5, expected: 120_000 },
    { interval: 60_000, failures: 3, max: 960_000, random: 0.5, expected: 480_000 },
    { interval: 60_000, failures: 9, max: 960_000, random: 0.5, expected: 960_000 },
    { interval: 60_000, failures: 0, max: 960_000, random: 0, expected: 54_000 },
    { interval: 60_000, failures: 0, max: 960_000, random: 1, expected: 66_000 },
  ])('nextPassDelay($interval, $failures failures, random $random) = $expected', ({ interval, failures, max, random, expected }) => {
    expect(nextPassDelay(interval, failures, max, () => random)).toBe(expected);
  });

  it.each([
    { value: '90', ms: 90_000 }, { value: '30s', ms: 30_000 }, { value: '5m', ms: 300_000 }, { value: '1h30m', ms: 5_400_000 },
    { value: '500ms', ms: 500 }, { value: '1.5s', ms: 1500 },
  ])('parseDuration($value) = $ms', ({ value, ms }) => {
    expect(parseDuration(value)).toBe(ms);
  });

  it.each(['', '5 minutes', '5x', 'm5', '-5s'])('parseDuration: refuses %j', (value) => {
    expect(() => parseDuration(value)).toThrow(/--interval must be a duration/);
  });
});
