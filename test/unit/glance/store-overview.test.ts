import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import { createGlanceClient, glanceEndpointRoot } from '../../../src/glance/glance-client.js';
import { readStoreOverview } from '../../../src/glance/store-overview.js';
import { readStoreCatalogue, STORE_DETAIL_TIMEOUT_MS } from '../../../src/fleet/store-catalogue.js';
import { createHttpTransport } from '../../../src/openstack/http-transport.js';
import { createSession } from '../../../src/openstack/keystone-session.js';
import { createServiceClient } from '../../../src/openstack/service-client.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { GLANCE_ROOT, loadExchange, replay } from '../../helpers/fixtures.js';

const transport = createHttpTransport();
afterAll(() => transport.close());

function glance() {
  const retry = { retries: 0, minDelayMs: 1, maxDelayMs: 1 };
  const session = createSession({ auth: { method: 'token', token: 'placeholder-token' }, transport, clock: fakeClock(), retry,
    endpoints: { image: { interfaces: ['public'], url: GLANCE_ROOT } } });
  return createGlanceClient(createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport, retry,
    normalizeEndpoint: glanceEndpointRoot }));
}

describe('readStoreOverview', () => {
  it('readStoreOverview: /detail held past its deadline (a cluster whose mons are down) → the plain list, saying why', async () => {
    const detail = loadExchange('glance', 'info-stores-detail');
    // Glance 25 held /detail for 30 s (its client_mount_timeout) with site-b's mon killed, then answered 200 as usual.
    const slow = nock(GLANCE_ROOT).get(detail.request.path).delay(30_000).reply(detail.status, detail.body as nock.Body);
    const plain = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores'));
    const clock = fakeClock();
    const sent = new Promise<void>((resolve) => slow.on('request', () => resolve()));
    const reading = readStoreOverview(glance(), { store: 'site-b' }, { detailTimeoutMs: 10_000, clock });
    await sent;
    clock.advance(10_000);
    const overview = await reading;
    expect(overview).toMatchObject({ source: 'GET /v2/info/stores', local: 'site-b',
      sourceWhy: expect.stringMatching(/^GET \/v2\/info\/stores\/detail did not answer within 10 s \(Glance connects to every rbd store's cluster/) as unknown });
    expect(overview.stores.every((s) => s.pool === undefined)).toBe(true);
    expect(slow.isDone()).toBe(true);
    expect(plain.isDone()).toBe(true);
  });

  it('readStoreOverview: a caller abort is not a deadline: FERRY_ABORTED, no fallback', async () => {
    const detail = loadExchange('glance', 'info-stores-detail');
    const slow = nock(GLANCE_ROOT).get(detail.request.path).delay(30_000).reply(detail.status, detail.body as nock.Body);
    const controller = new AbortController();
    const sent = new Promise<void>((resolve) => slow.on('request', () => resolve()));
    const reading = readStoreOverview(glance(), {}, { signal: controller.signal, detailTimeoutMs: 10_000, clock: fakeClock() });
    await sent;
    controller.abort();
    await expect(reading).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    nock.cleanAll();
  });

  it('readStoreOverview: /detail in time → its answer, no sourceWhy', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const overview = await readStoreOverview(glance(), {}, { detailTimeoutMs: 10_000, clock: fakeClock() });
    expect(overview.source).toBe('GET /v2/info/stores/detail');
    expect(overview.sourceWhy).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('readStoreCatalogue (prewarm, sync): the same /detail deadline', () => {
  it('readStoreCatalogue: /detail held past STORE_DETAIL_TIMEOUT_MS → the plain list, types unknown (was: waited out Glance)', async () => {
    const detail = loadExchange('glance', 'info-stores-detail');
    const slow = nock(GLANCE_ROOT).get(detail.request.path).delay(300_000).reply(detail.status, detail.body as nock.Body);
    const plain = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores'));
    const clock = fakeClock();
    const sent = new Promise<void>((resolve) => slow.on('request', () => resolve()));
    const reading = readStoreCatalogue(glance(), undefined, { clock });
    await sent;
    clock.advance(STORE_DETAIL_TIMEOUT_MS);
    const catalogue = await reading;
    expect(catalogue.typesKnown).toBe(false);
    expect(catalogue.stores.map((s) => s.id)).toEqual(['central', 'site-a', 'site-b', 'broken']);
    expect(catalogue.stores.every((s) => s.type === undefined)).toBe(true);
    expect(plain.isDone()).toBe(true);
  });
});
