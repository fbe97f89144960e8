import { describe, expect, it } from 'vitest';
import { buildCephCluster, sourceClusters } from '../../../src/config/build-ceph-cluster.js';
import type { CephCluster } from '../../../src/config/ceph-cluster.js';
import type { CephConfig } from '../../../src/config/ferry-config.js';
import { buildStoreCluster, type StoreCluster } from '../../../src/fleet/store-cluster.js';

// Every CephCluster of ferry is made by buildCephCluster (or spread from one it made); a store's by buildStoreCluster.

const buildCases: readonly { name: string; named: Parameters<typeof buildCephCluster>[0]; expected: CephCluster | undefined }[] = [
  { name: 'a ceph.conf and a user', named: { confFile: '/etc/ceph/site-b.conf', user: 'nova' }, expected: { confFile: '/etc/ceph/site-b.conf', user: 'nova' } },
  { name: 'a ceph.conf alone: the CLI\'s own user', named: { confFile: '/etc/ceph/ceph.conf' }, expected: { confFile: '/etc/ceph/ceph.conf' } },
  { name: 'no ceph.conf (librados\' default lookup): no cluster to point a child at', named: { user: 'nova' }, expected: undefined },
  { name: 'nothing named', named: {}, expected: undefined },
];

describe('buildCephCluster', () => {
  it.each(buildCases)('buildCephCluster: $name', ({ named, expected }) => {
    expect(buildCephCluster(named)).toStrictEqual(expected);
  });

  it('buildCephCluster: the configuration\'s ceph section gives its ceph.conf and user, not its pool nor its --fsid', () => {
    const ceph: CephConfig = { confFile: '/etc/ceph/site-b.conf', user: 'nova', pool: 'vms', fsid: 'a7f64266-0894-4f1e-a635-d0aeaca0e993' };
    const cluster = buildCephCluster(ceph);
    expect(cluster).toStrictEqual({ confFile: '/etc/ceph/site-b.conf', user: 'nova' });
    expect(Object.isFrozen(cluster)).toBe(true);
  });
});

describe('sourceClusters', () => {
  const confs = { 'site-a': '/etc/ceph/site-a.conf', 'site-c': '/etc/ceph/site-c.conf' };
  it.each([
    { name: '--source-rbd-user wins over the local user', sourceRbdUser: 'ferry-read', localUser: 'nova', user: 'ferry-read' },
    { name: 'no --source-rbd-user: the local --rbd-user', sourceRbdUser: undefined, localUser: 'nova', user: 'nova' },
    { name: 'neither: the CLI\'s own user', sourceRbdUser: undefined, localUser: undefined, user: undefined },
  ])('sourceClusters: $name', ({ sourceRbdUser, localUser, user }) => {
    const expected = (confFile: string): CephCluster => (user === undefined ? { confFile } : { confFile, user });
    expect(sourceClusters({ sourceCephConfs: confs, sourceRbdUser }, localUser))
      .toStrictEqual(new Map([['site-a', expected(confs['site-a'])], ['site-c', expected(confs['site-c'])]]));
  });

  it('sourceClusters: no --source-ceph-conf, no source', () => {
    expect(sourceClusters({ sourceCephConfs: {}, sourceRbdUser: 'ferry-read' }, 'nova').size).toBe(0);
  });
});

const POLICY: StoreCluster = { confFile: '/etc/ceph/site-a.conf', user: 'ferry-evict', pool: 'glance-a' };
const CONFIGURED = { confFile: '/etc/ceph/site-b.conf', user: 'nova' };

const storeCases: readonly { name: string; policy: StoreCluster | undefined; configured: Partial<CephCluster>; pool: string | undefined;
  expected: StoreCluster | undefined }[] = [
  { name: 'the policy\'s entry wins over the configuration', policy: POLICY, configured: CONFIGURED, pool: undefined, expected: POLICY },
  { name: '--pool chooses the pool over the policy\'s', policy: POLICY, configured: CONFIGURED, pool: 'other', expected: { ...POLICY, pool: 'other' } },
  { name: 'no policy entry: the configured cluster', policy: undefined, configured: CONFIGURED, pool: undefined, expected: CONFIGURED },
  { name: 'no policy entry, --pool: the configured cluster and that pool', policy: undefined, configured: CONFIGURED, pool: 'images',
    expected: { ...CONFIGURED, pool: 'images' } },
  { name: 'neither names a ceph.conf', policy: undefined, configured: { user: 'nova' }, pool: 'images', expected: undefined },
];

describe('buildStoreCluster', () => {
  it.each(storeCases)('buildStoreCluster: $name', ({ policy, configured, pool, expected }) => {
    expect(buildStoreCluster(policy, configured, pool)).toStrictEqual(expected);
  });
});
