import { describe, expect, it } from 'vitest';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { planStoreProbes } from '../../../src/fleet/plan-store-probes.js';
import { checkStores, type StoreReader } from '../../../src/fleet/check-stores.js';
import { createClusterProbes, probeStores } from '../../../src/fleet/probe-stores.js';
import { systemClock } from '../../../src/clock/clock.js';
import type { GlanceClient } from '../../../src/glance/glance-client.js';
import { storeOverview } from '../../../src/glance/store-overview.js';
import type { CommandOptions, CommandOutcome, CommandRunner } from '../../../src/rbd/command-runner.js';
import { loadExchange } from '../../helpers/fixtures.js';

// The dev cloud's stores as Glance 25.1.0 answered an admin (/detail) and a member (plain list).
const detail = parseStoresInfo(loadExchange('glance', 'info-stores-detail').body, 'GET /v2/info/stores/detail');
const plain = parseStoresInfo(loadExchange('glance', 'info-stores').body, 'GET /v2/info/stores');
const adminView = storeOverview(detail, 'GET /v2/info/stores/detail', { store: 'site-b' });
const memberView = storeOverview(plain, 'GET /v2/info/stores', { store: 'site-b' });
const LOCAL = { confFile: '/etc/ceph/ceph.conf', user: 'nova' };
const SITE_A = { confFile: '/etc/ceph/site-a.conf', user: 'nova' };

describe('planStoreProbes', () => {
  it('planStoreProbes: the local rbd store is probed with the local ceph.conf; file stores and other clusters are not, each with why', () => {
    expect(planStoreProbes(adminView, { local: LOCAL })).toEqual([
      { store: 'central', probe: 'none', why: expect.stringMatching(/^a file store: Glance reports no per-store health/) as unknown },
      { store: 'site-a', probe: 'none', why: "no ceph.conf for this store's cluster here: pass --probe-ceph-conf site-a=FILE to probe it" },
      { store: 'site-b', probe: 'rbd', access: LOCAL, pool: 'images' },
      { store: 'broken', probe: 'none', why: expect.stringMatching(/^a file store/) as unknown },
    ]);
  });

  it('planStoreProbes: --probe-ceph-conf adds another rbd store; without a local ceph.conf the local store says what to pass', () => {
    const plans = planStoreProbes(adminView, { byStore: new Map([['site-a', SITE_A]]) });
    expect(plans.find((p) => p.store === 'site-a')).toEqual({ store: 'site-a', probe: 'rbd', access: SITE_A, pool: 'images' });
    expect(plans.find((p) => p.store === 'site-b')).toEqual({ store: 'site-b', probe: 'none',
      why: 'no ceph.conf for the local cluster: pass --ceph-conf FILE (or nova.conf [libvirt] images_rbd_ceph_conf) to probe it' });
  });

  it('planStoreProbes: a member sees no pools (the plain list): the local store gets a mon-only probe saying what it leaves open', () => {
    const plans = planStoreProbes({ ...memberView, sourceWhy: 'GET /v2/info/stores/detail is admin-only (403)' }, { local: LOCAL });
    expect(plans.find((p) => p.store === 'site-b')).toEqual({ store: 'site-b', probe: 'mons', access: LOCAL,
      unchecked: 'the pool was not checked (Glance names it only in GET /v2/info/stores/detail; GET /v2/info/stores/detail is admin-only (403))' });
    expect(plans.filter((p) => p.store !== 'site-b').every((p) => p.probe === 'none')).toBe(true);
    expect(plans.find((p) => p.store === 'site-a')).toMatchObject({ why: expect.stringMatching(/names store types and pools only in GET \/v2\/info\/stores\/detail/) as unknown });
  });

  it('planStoreProbes: a read-only (http) store is never probed', () => {
    const info = parseStoresInfo({ stores: [{ id: 'web', 'read-only': 'true', type: 'http', properties: {} }] }, 'GET /v2/info/stores/detail');
    expect(planStoreProbes(storeOverview(info, 'GET /v2/info/stores/detail', {}), {})).toEqual([
      { store: 'web', probe: 'none', why: 'a read-only (http) store: Glance reports no per-store health, and ferry probes only rbd stores' }]);
  });

  it('planStoreProbes: --probe-ceph-conf for a store Glance does not offer, or for a file store, is refused', () => {
    expect(() => planStoreProbes(adminView, { byStore: new Map([['site-c', SITE_A]]) }))
      .toThrow(expect.objectContaining({ code: 'FERRY_STORE_NOT_FOUND', hint: expect.stringContaining('central, site-a, site-b, broken') as unknown }));
    expect(() => planStoreProbes(adminView, { byStore: new Map([['central', SITE_A]]) }))
      .toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION', message: "--probe-ceph-conf names store 'central', which is a file store, not rbd" }));
  });
});

const FSID_A = 'b315eaa0-289e-48cf-b811-52be40ac5581';
const FSID_B = '4d4936c7-d595-442b-8191-dec8d7a3ca15';
const answered = (stdout: string): CommandOutcome => ({ outcome: 'exited', exitCode: 0, signal: null, stdout, stderr: '' });
const failed = (exitCode: number, stderr: string): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout: '', stderr });

/** A runner for both CLIs: `answer(file, confFile)` decides; every call is recorded as `file confFile`. */
function clusterRunner(answer: (file: string, confFile: string) => CommandOutcome) {
  const calls: { file: string; args: readonly string[]; options: CommandOptions }[] = [];
  const runner: CommandRunner = {
    run: (file, args, options) => {
      calls.push({ file, args, options });
      return Promise.resolve(answer(file, args[1] ?? ''));
    },
  };
  return { runner, calls, shown: () => calls.map((c) => `${c.file} ${c.args[1] ?? ''}`) };
}

describe('probeStores', () => {
  it('probeStores: asks each cluster\'s mons once, then rbd ls on each planned pool; the others keep their reason', async () => {
    // site-a answers; site-b's OSD is gone (as Ceph 16.2.15 printed it with the OSD killed): mons fine, rbd ls times out.
    const { runner, calls, shown } = clusterRunner((file, conf) => (file === 'ceph' ? answered(`${conf === SITE_A.confFile ? FSID_A : FSID_B}\n`)
      : conf === SITE_A.confFile ? answered('f00d\n') : failed(110, 'rbd: listing images failed: (110) Connection timed out\n')));
    const plans = planStoreProbes(adminView, { local: LOCAL, byStore: new Map([['site-a', SITE_A]]) });
    const answers = await probeStores(plans, createClusterProbes({ runner, timeoutMs: 4_000 }));
    expect(answers.map((a) => [a.store, a.answers])).toEqual([['central', null], ['site-a', true], ['site-b', false], ['broken', null]]);
    expect(answers.find((a) => a.store === 'site-b')?.why).toMatch(/^the mons answer, but pool images's OSDs did not within 2 s/);
    expect(shown().sort()).toEqual([`ceph ${LOCAL.confFile}`, `ceph ${SITE_A.confFile}`, `rbd ${LOCAL.confFile}`, `rbd ${SITE_A.confFile}`]);
    expect(calls.every((c) => c.options.timeoutMs === 4_000)).toBe(true);
  });

  it('probeStores: mons that do not answer settle it (false, their message); one cluster probed for two stores is asked once', async () => {
    const { runner, shown } = clusterRunner(() => failed(1, 'timed out\n'));
    const plans = planStoreProbes(adminView, { local: LOCAL, byStore: new Map([['site-a', LOCAL]]) });
    const probes = createClusterProbes({ runner, timeoutMs: 6_000 });
    const early = probes.mons(LOCAL); // started before Glance answered, as `ferry stores` does
    const answers = await probeStores(plans, probes);
    await expect(early).resolves.toMatchObject({ monsAnswer: false });
    expect(answers.find((a) => a.store === 'site-b')).toEqual({ store: 'site-b', answers: false,
      why: `the mons named in ${LOCAL.confFile} did not answer within 3 s (ceph fsid (-c ${LOCAL.confFile} --id nova): timed out)` });
    expect(answers.find((a) => a.store === 'site-a')?.answers).toBe(false);
    // rbd ls runs alongside (it does not wait for the slow-starting `ceph`), but the mons' verdict is the one given.
    expect(shown()).toEqual([`ceph ${LOCAL.confFile}`, `rbd ${LOCAL.confFile}`, `rbd ${LOCAL.confFile}`]);
  });

  it('probeStores: a ceph.conf that reaches another cluster than the one Glance (≥ 30) names for the store → null, whatever rbd ls says', async () => {
    const info = parseStoresInfo({ stores: [{ id: 'site-b', type: 'rbd', properties: { pool: 'images', fsid: FSID_B.toUpperCase() } }] },
      'GET /v2/info/stores/detail');
    const { runner, shown } = clusterRunner(() => answered(`${FSID_A}\n`));
    const plans = planStoreProbes(storeOverview(info, 'GET /v2/info/stores/detail', { store: 'site-b' }), { local: SITE_A });
    const answers = await probeStores(plans, createClusterProbes({ runner }));
    expect(answers).toEqual([{ store: 'site-b', answers: null, why: `not this store's cluster: ${SITE_A.confFile} reaches cluster ${FSID_A}, `
      + `but Glance reports the store on cluster ${FSID_B}; give the ceph.conf of that cluster` }]);
    expect(shown()).toEqual([`ceph ${SITE_A.confFile}`, `rbd ${SITE_A.confFile}`]);
  });

  it('probeStores: a mon-only probe (pool unknown) is false when the mons do not answer, never true when they do', async () => {
    const plans = planStoreProbes({ ...memberView, sourceWhy: 'GET /v2/info/stores/detail is admin-only (403)' }, { local: LOCAL });
    const down = clusterRunner(() => failed(1, 'timed out\n'));
    const downAnswers = await probeStores(plans, createClusterProbes({ runner: down.runner, timeoutMs: 6_000 }));
    expect(downAnswers.find((a) => a.store === 'site-b')).toEqual({ store: 'site-b', answers: false,
      why: `the mons named in ${LOCAL.confFile} did not answer within 3 s (ceph fsid (-c ${LOCAL.confFile} --id nova): timed out)` });
    expect(down.calls.map((c) => c.args)).toEqual([['-c', LOCAL.confFile, '--id', 'nova', '--connect-timeout', '3', 'fsid']]);
    const up = clusterRunner(() => answered(`${FSID_B}\n`));
    const upAnswers = await probeStores(plans, createClusterProbes({ runner: up.runner }));
    expect(upAnswers.find((a) => a.store === 'site-b')).toMatchObject({ answers: null,
      why: expect.stringMatching(/^the mons answer \(ceph fsid .* answered\), but the pool was not checked \(Glance names it only in/) as unknown });
    expect(up.shown()).toEqual([`ceph ${LOCAL.confFile}`]);
  });
});

describe('checkStores: ferry stores\' sequence', () => {
  const reader = (): StoreReader => ({ clock: systemClock,
    glance: { getStoresDetail: () => Promise.resolve(detail), getStoresInfo: () => Promise.resolve(plain) } as unknown as GlanceClient });
  const deferred = () => {
    let settle!: { resolve: (value: StoreReader) => void; reject: (error: Error) => void };
    const promise = new Promise<StoreReader>((resolve, reject) => { settle = { resolve, reject }; });
    return { promise, ...settle };
  };

  it('the mons of every cluster are asked before the cloud is connected; then the plan and probes reuse their answer', async () => {
    const { runner, shown } = clusterRunner((file, conf) => answered(file === 'ceph' ? `${conf === SITE_A.confFile ? FSID_A : FSID_B}\n` : 'f00d\n'));
    const connection = deferred();
    const check = checkStores(connection.promise, { local: LOCAL, byStore: new Map([['site-a', SITE_A]]), identity: { store: 'site-b' },
      timeoutMs: 4_000, signal: new AbortController().signal, runner });
    expect(shown()).toEqual([`ceph ${LOCAL.confFile}`, `ceph ${SITE_A.confFile}`]);
    connection.resolve(reader());
    const { overview, answers } = await check;
    expect(overview.source).toBe('GET /v2/info/stores/detail');
    expect(answers.map((a) => [a.store, a.answers])).toEqual([['central', null], ['site-a', true], ['site-b', true], ['broken', null]]);
    expect(shown().sort()).toEqual([`ceph ${LOCAL.confFile}`, `ceph ${SITE_A.confFile}`, `rbd ${LOCAL.confFile}`, `rbd ${SITE_A.confFile}`]);
  });

  it.each([
    { why: 'the connection fails', connect: (): Promise<StoreReader> => Promise.reject(new Error('keystone said no')), message: 'keystone said no' },
    { why: 'the plan refuses a --probe-ceph-conf', connect: () => Promise.resolve(reader()), byStore: new Map([['site-c', SITE_A]]),
      message: "--probe-ceph-conf names store 'site-c', which Glance does not offer" },
  ])('$why: the error is thrown, and the mon probes still running are stopped', async ({ connect, byStore, message }) => {
    const signals: AbortSignal[] = [];
    const runner: CommandRunner = { run: (_file, _args, options) => {
      if (options.signal) signals.push(options.signal);
      return new Promise<CommandOutcome>(() => undefined);
    } };
    await expect(checkStores(connect(), { local: LOCAL, ...(byStore ? { byStore } : {}), identity: { store: 'site-b' }, timeoutMs: 4_000,
      signal: new AbortController().signal, runner })).rejects.toThrow(message);
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
  });
});
