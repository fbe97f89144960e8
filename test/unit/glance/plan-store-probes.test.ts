import { describe, expect, it } from 'vitest';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { planStoreProbes } from '../../../src/glance/plan-store-probes.js';
import { probeStores } from '../../../src/glance/probe-stores.js';
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

describe('probeStores', () => {
  it('probeStores: runs one rbd ls per planned store, side by side, each with its own ceph.conf; the others keep their reason', async () => {
    const calls: { args: readonly string[]; options: CommandOptions }[] = [];
    // site-a answers, site-b's OSD is gone (as recorded from Ceph 16.2.15 with the OSD killed).
    const runner: CommandRunner = {
      run: (_file, args, options) => {
        calls.push({ args, options });
        const outcome: CommandOutcome = args.includes(SITE_A.confFile)
          ? { outcome: 'exited', exitCode: 0, signal: null, stdout: 'f00d\n', stderr: '' }
          : { outcome: 'exited', exitCode: 110, signal: null, stdout: '', stderr: 'rbd: listing images failed: (110) Connection timed out\n' };
        return Promise.resolve(outcome);
      },
    };
    const plans = planStoreProbes(adminView, { local: LOCAL, byStore: new Map([['site-a', SITE_A]]) });
    const answers = await probeStores(plans, { runner, timeoutMs: 4_000 });
    expect(answers.map((a) => [a.store, a.answers])).toEqual([['central', null], ['site-a', true], ['site-b', false], ['broken', null]]);
    expect(answers.find((a) => a.store === 'site-b')?.why).toMatch(/^the mons answer, but pool images's OSDs did not within 2 s/);
    expect(calls.map((c) => [c.args[1], c.options.timeoutMs])).toEqual([[SITE_A.confFile, 4_000], [LOCAL.confFile, 4_000]]);
  });

  it('probeStores: a mon-only probe is false when the mons do not answer, never true when they do (the pool is unchecked)', async () => {
    const plans = planStoreProbes({ ...memberView, sourceWhy: 'GET /v2/info/stores/detail is admin-only (403)' }, { local: LOCAL });
    const args: (readonly string[])[] = [];
    const monDown: CommandRunner = { run: (_file, a) => { args.push(a); return Promise.resolve({ outcome: 'exited', exitCode: 1, signal: null, stdout: '', stderr: 'timed out\n' }); } };
    const down = await probeStores(plans, { runner: monDown, timeoutMs: 6_000 });
    expect(down.find((a) => a.store === 'site-b')).toEqual({ store: 'site-b', answers: false,
      why: `the mons named in ${LOCAL.confFile} did not answer within 3 s (ceph fsid (-c ${LOCAL.confFile} --id nova): timed out)` });
    expect(args).toEqual([['-c', LOCAL.confFile, '--id', 'nova', '--connect-timeout', '3', 'fsid']]);
    const monUp: CommandRunner = { run: () => Promise.resolve({ outcome: 'exited', exitCode: 0, signal: null, stdout: '4d4936c7-d595-442b-8191-dec8d7a3ca15\n', stderr: '' }) };
    const up = await probeStores(plans, { runner: monUp });
    expect(up.find((a) => a.store === 'site-b')).toMatchObject({ answers: null,
      why: expect.stringMatching(/^the mons answer \(ceph fsid .* answered\), but the pool was not checked/) as unknown });
  });
});
