import { describe, expect, it } from 'vitest';
import { ADMIN_CLOUD, ceph, CEPH_MS, devcloud, devCloud, countingTransport } from '../../helpers/devcloud.js';

describe('dev cloud', () => {
  it('devcloud: both Ceph clusters answer with the fsids the descriptor names', () => {
    for (const site of ['site-a', 'site-b'] as const) {
      const result = ceph(site, 'ceph', ['fsid'], 'admin');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(devcloud().ceph[site].fsid);
    }
  }, 2 * CEPH_MS);

  it('devcloud: Glance lists the five stores through Keystone auth; site-c is an rbd store on pool images-c of site-b\'s cluster', async () => {
    const transport = countingTransport();
    const cloud = await devCloud({ cloud: ADMIN_CLOUD, transport });
    const info = await cloud.glance.getStoresDetail();
    expect(info.stores.map((s) => s.id).sort()).toEqual(['broken', 'central', 'site-a', 'site-b', 'site-c']);
    expect(info.stores.find((s) => s.id === 'site-b')).toMatchObject({ type: 'rbd', pool: 'images' });
    expect(info.stores.find((s) => s.id === 'site-c')).toMatchObject({ type: 'rbd', pool: 'images-c' });
    expect(devcloud().glance.rbdStores['site-c']).toEqual({ cluster: 'site-b', pool: 'images-c' });
    // glance's cephx user may write the new pool: Glance's own copy into site-c depends on it.
    const listed = ceph('site-b', 'rbd', ['ls', 'images-c'], 'glance');
    expect(listed.code, listed.stderr).toBe(0);
    expect(info.defaultStore).toBe('central');
    expect((await cloud.glance.getImportInfo()).methods).toContain('copy-image');
    expect(transport.count('POST', /\/v3\/auth\/tokens$/)).toBe(1);
    await transport.close();
  });

  it('devcloud: Placement answers through Keystone auth at microversion 1.39 (as admin: Placement\'s stock rules)', async () => {
    const transport = countingTransport();
    const cloud = await devCloud({ cloud: ADMIN_CLOUD, transport });
    const response = await cloud.placementHttp.request({ method: 'GET', path: '/resource_providers',
      headers: { 'openstack-api-version': 'placement 1.39' } });
    expect(response.status).toBe(200);
    expect(response.headers['openstack-api-version']).toBe('placement 1.39');
    await transport.close();
  });
});
