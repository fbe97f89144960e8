import { describe, expect, it } from 'vitest';
import { parseSyncPolicy } from '../../../src/fleet/parse-sync-policy.js';
import { parseBudget } from '../../../src/fleet/store-budget.js';
import { usageStoreNames, usageStoreSettings } from '../../../src/fleet/store-settings.js';

// Which stores a look at usage takes, and each one's cluster, budget and idle, as tables: the flags (parsed) first,
// then the policy's stores:, then the defaults. Pure: no Glance, no Ceph.

const policy = parseSyncPolicy(['version: 1', 'placements:', '  - {name: golden, images: {names: [img-a]}, stores: [site-b]}', 'stores:',
  '  site-b: {budget: 500M, idle: 7d, ceph_conf: /etc/ceph/site-b.conf, rbd_user: evict-b, pool: images-b}',
  '  site-c: {ceph_conf: /etc/ceph/site-c.conf}', ''].join('\n'), 'edge.yaml');
const bare = parseSyncPolicy('version: 1\nplacements:\n  - {name: golden, images: {names: [img-a]}, stores: [site-b]}\n', 'bare.yaml');
const DAY = 86_400_000;

describe('usageStoreNames: the stores asked for', () => {
  it.each([
    { why: '--store wins over the policy, each once, in order', given: ['site-z', 'site-b', 'site-z'], policy, expected: ['site-z', 'site-b'] },
    { why: 'no --store: the policy\'s stores:', given: [], policy, expected: ['site-b', 'site-c'] },
    { why: '--budget and --pool with one store', given: ['site-b'], policy: undefined, budget: '1G', pool: 'images', expected: ['site-b'] },
  ])('$why', ({ given, policy: from, budget, pool, expected }) => {
    expect(usageStoreNames(given, from, { budget, pool })).toEqual(expected);
  });

  it.each([
    { why: 'nothing names a store', given: [], policy: undefined, message: '--usage needs the stores to look at: --store STORE, or --policy FILE' },
    { why: 'a policy without stores:', given: [], policy: bare, message: 'the policy bare.yaml has no stores: section, and no --store was given' },
    { why: '--budget with two stores', given: ['site-b', 'site-a'], policy: undefined, budget: '1G',
      message: '--budget is one store\'s, and 2 stores are asked for (site-b, site-a)' },
    { why: '--pool with the policy\'s two stores', given: [], policy, pool: 'images', message: '--pool is one store\'s, and 2 stores are asked for (site-b, site-c)' },
  ])('refused: $why', ({ given, policy: from, budget, pool, message }) => {
    expect(() => usageStoreNames(given, from, { budget, pool })).toThrow(message);
  });
});

describe('usageStoreSettings: each store\'s cluster, budget and idle', () => {
  const ceph = { confFile: '/etc/ceph/ceph.conf', user: 'ferry' };
  it.each([
    { why: 'a store the policy names: its cluster, budget and idle', names: ['site-b'], policy, flags: { ceph },
      expected: [{ store: 'site-b', cluster: { confFile: '/etc/ceph/site-b.conf', user: 'evict-b', pool: 'images-b' }, budget: parseBudget('500M'), idleMs: 7 * DAY }] },
    { why: 'the flags win over the policy: --budget, --idle, --pool', names: ['site-b'], policy,
      flags: { ceph, budget: parseBudget('1G'), idleMs: DAY, pool: 'fast' },
      expected: [{ store: 'site-b', cluster: { confFile: '/etc/ceph/site-b.conf', user: 'evict-b', pool: 'fast' }, budget: parseBudget('1G'), idleMs: DAY }] },
    { why: 'a store the policy does not name: the configured cluster, no budget, the default idle', names: ['site-a'], policy, flags: { ceph },
      expected: [{ store: 'site-a', cluster: ceph, budget: undefined, idleMs: DAY }] },
    { why: 'a policy store without budget or idle: none, the default (or --idle)', names: ['site-c'], policy, flags: { ceph, idleMs: 0 },
      expected: [{ store: 'site-c', cluster: { confFile: '/etc/ceph/site-c.conf' }, budget: undefined, idleMs: 0 }] },
    { why: 'no policy: the configured cluster with --pool', names: ['site-b'], policy: undefined, flags: { ceph, pool: 'images' },
      expected: [{ store: 'site-b', cluster: { ...ceph, pool: 'images' }, budget: undefined, idleMs: DAY }] },
  ])('$why', ({ names, policy: from, flags, expected }) => {
    expect(usageStoreSettings(names, from, flags)).toEqual(expected);
  });

  it.each([
    { why: 'no policy, no --ceph-conf', policy: undefined, message: 'store site-a has no cluster to read: no --ceph-conf was given' },
    { why: 'a policy that gives it no ceph_conf, no --ceph-conf', policy,
      message: 'store site-a has no cluster to read: the policy edge.yaml gives it no ceph_conf, and no --ceph-conf was given' },
  ])('refused: $why', ({ policy: from, message }) => {
    expect(() => usageStoreSettings(['site-a'], from, { ceph: {} })).toThrow(message);
  });
});
