import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import { createGlanceClient, glanceEndpointRoot, type CopyRequest } from '../../../src/glance/glance-client.js';
import { createHttpTransport, type HttpRequest, type HttpTransport } from '../../../src/openstack/http-transport.js';
import { createSession } from '../../../src/openstack/keystone-session.js';
import { createServiceClient } from '../../../src/openstack/service-client.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { GLANCE_ROOT, loadExchange, replay, type GlanceFixture, type RecordedExchange } from '../../helpers/fixtures.js';

const inner = createHttpTransport();
afterAll(() => inner.close());

/** A Glance client over the real transport (nock underneath), with a fixed token and the endpoint given. */
function glance() {
  const sent: HttpRequest[] = [];
  const transport: HttpTransport = { send: (request) => { sent.push(request); return inner.send(request); }, close: () => Promise.resolve() };
  const retry = { retries: 1, minDelayMs: 1, maxDelayMs: 1 };
  const session = createSession({ auth: { method: 'token', token: 'placeholder-token' }, transport, clock: fakeClock(), retry,
    endpoints: { image: { interfaces: ['public'], url: GLANCE_ROOT } } });
  const http = createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport, retry, normalizeEndpoint: glanceEndpointRoot });
  return { client: createGlanceClient(http), sent };
}

/** The image id in a recorded path (`/v2/images/{id}` or `/v2/images/{id}/…`). */
const imageIdOf = (exchange: RecordedExchange): string => exchange.request.path.split('/')[3] ?? '';
const bodyOf = <T>(exchange: RecordedExchange): T => exchange.body as T;

describe('GlanceClient.getImage', () => {
  it('getImage: 200 → the parsed image, one GET', async () => {
    const exchange = loadExchange('glance', 'image-active-site-a');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { client, sent } = glance();
    const image = await client.getImage(imageIdOf(exchange));
    expect(image).toMatchObject({ id: imageIdOf(exchange), status: 'active', diskFormat: 'raw', stores: ['site-a'], importTask: undefined });
    expect(sent).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it('getImage: 404 → FERRY_IMAGE_NOT_FOUND with the id and request id', async () => {
    const exchange = loadExchange('glance', 'image-404');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    await expect(glance().client.getImage(imageIdOf(exchange))).rejects.toMatchObject({ code: 'FERRY_IMAGE_NOT_FOUND',
      details: { imageId: imageIdOf(exchange), status: 404, requestId: exchange.headers['x-openstack-request-id'] } });
    expect(scope.isDone()).toBe(true);
  });

  it('getImage: 401 with a fixed token → FERRY_AUTH_FAILED', async () => {
    const exchange = loadExchange('glance', 'image-401');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    await expect(glance().client.getImage(imageIdOf(exchange))).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED', details: { status: 401 } });
    expect(scope.isDone()).toBe(true);
  });

  it('getImage: an id that would change the URL → FERRY_INVALID_IMAGE_REF, nothing sent', async () => {
    const { client, sent } = glance();
    await expect(client.getImage('../info/stores')).rejects.toMatchObject({ code: 'FERRY_INVALID_IMAGE_REF' });
    expect(sent).toEqual([]);
  });

  it('getImage: a body that breaks the schema → FERRY_BAD_RESPONSE naming the endpoint and the field', async () => {
    const exchange = loadExchange('glance', 'image-active-site-a');
    const broken = { ...exchange, body: { ...bodyOf<Record<string, unknown>>(exchange), status: 5 } };
    const scope = replay(nock(GLANCE_ROOT), broken);
    const endpoint = `GET ${GLANCE_ROOT}${exchange.request.path}`;
    await expect(glance().client.getImage(imageIdOf(exchange))).rejects.toMatchObject({ code: 'FERRY_BAD_RESPONSE',
      message: expect.stringMatching(new RegExp(`^${endpoint.replace(/[.?]/g, '\\$&')}: field 'status': expected .*, got number`)) as unknown,
      details: { endpoint } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('GlanceClient.findImage', () => {
  it('findImage: by id → one GET of that image', async () => {
    const exchange = loadExchange('glance', 'image-active-site-a');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { client, sent } = glance();
    await expect(client.findImage(imageIdOf(exchange).toUpperCase())).resolves.toMatchObject({ id: imageIdOf(exchange) });
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${GLANCE_ROOT}${exchange.request.path}`]);
    expect(scope.isDone()).toBe(true);
  });

  it('findImage: an ID Glance answers 404 for → undefined after that one GET; never looked up as a name (an image may be named like it)', async () => {
    const exchange = loadExchange('glance', 'image-404');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { client, sent } = glance();
    await expect(client.findImage(imageIdOf(exchange))).resolves.toBeUndefined();
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${GLANCE_ROOT}${exchange.request.path}`]);
    expect(scope.isDone()).toBe(true);
  });

  it('findImage: by name → a list with name= and limit=2; the one match', async () => {
    const page = loadExchange('glance', 'images-list-page2');
    const [only] = bodyOf<{ images: { id: string; name: string }[] }>(page).images;
    const scope = replay(nock(GLANCE_ROOT), page, { path: `/v2/images?limit=2&name=${only!.name}` });
    const { client, sent } = glance();
    await expect(client.findImage(only!.name)).resolves.toMatchObject({ id: only!.id, name: only!.name });
    expect(sent.map((r) => r.url)).toEqual([`${GLANCE_ROOT}/v2/images?limit=2&name=${only!.name}`]);
    expect(scope.isDone()).toBe(true);
  });

  it('findImage: a name two images share → FERRY_IMAGE_AMBIGUOUS listing both ids', async () => {
    const page = loadExchange('glance', 'images-list-page1');
    const ids = bodyOf<{ images: { id: string }[] }>(page).images.map((i) => i.id);
    const scope = replay(nock(GLANCE_ROOT), page, { path: '/v2/images?limit=2&name=ferry-fixture-page' });
    await expect(glance().client.findImage('ferry-fixture-page')).rejects.toMatchObject({ code: 'FERRY_IMAGE_AMBIGUOUS',
      details: { name: 'ferry-fixture-page', ids } });
    expect(ids).toHaveLength(2);
    expect(scope.isDone()).toBe(true);
  });

  it.each(['8554f597-4961-4557', '8554f597-4961-4557-9ad1-1fbfef5ebc4', ' \n '])(
    'findImage: a malformed id %j → FERRY_INVALID_IMAGE_REF, nothing sent', async (ref) => {
      const { client, sent } = glance();
      await expect(client.findImage(ref)).rejects.toMatchObject({ code: 'FERRY_INVALID_IMAGE_REF' });
      expect(sent).toEqual([]);
    });
});

describe('GlanceClient.listImages', () => {
  it('listImages: page 1 carries next; following its marker gives the last page', async () => {
    const page1 = loadExchange('glance', 'images-list-page1');
    const page2 = loadExchange('glance', 'images-list-page2');
    const scope = replay(nock(GLANCE_ROOT), page1);
    replay(scope, page2);
    const { client, sent } = glance();
    const first = await client.listImages({ limit: 2, tag: 'ferry-fixture-page' });
    expect(first.images.map((i) => i.name)).toEqual(['ferry-fixture-page-3', 'ferry-fixture-page-2']);
    const marker = new URL(first.next ?? '', GLANCE_ROOT).searchParams.get('marker') ?? '';
    expect(marker).toBe(first.images[1]?.id);
    const second = await client.listImages({ limit: 2, tag: 'ferry-fixture-page', marker });
    expect(second.images.map((i) => i.name)).toEqual(['ferry-fixture-page-1']);
    expect(second.next).toBeUndefined();
    expect(sent).toHaveLength(2);
    expect(scope.isDone()).toBe(true);
  });
});

describe('GlanceClient.requestCopy', () => {
  it('requestCopy: 202 → accepted with the request id; the body sent is exactly the copy-image request', async () => {
    const exchange = loadExchange('glance', 'import-202');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const raw: string[] = [];
    scope.on('request', (_request: unknown, _interceptor: unknown, body: string) => raw.push(body));
    const { client, sent } = glance();
    await expect(client.requestCopy(imageIdOf(exchange), { stores: ['site-b'] }))
      .resolves.toEqual({ kind: 'accepted', requestId: exchange.headers['x-openstack-request-id'] });
    expect(raw).toEqual(['{"method":{"name":"copy-image"},"stores":["site-b"]}']);
    expect(sent).toHaveLength(1);
    // the copy runs in the worker that accepts the request: never pin imports to a pooled connection
    expect(sent[0]?.connection).toBe('fresh');
    expect(scope.isDone()).toBe(true);
  });

  it('requestCopy: only the import asks for a fresh connection; reads stay pooled', async () => {
    const exchange = loadExchange('glance', 'image-active-site-a');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { client, sent } = glance();
    await client.getImage(imageIdOf(exchange));
    expect(sent.map((request) => request.connection)).toEqual([undefined]);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    { fixture: 'import-400-already-present', result: { kind: 'already-present', store: 'site-b' } },
    { fixture: 'import-409-active-task', result: { kind: 'busy', message: 'Image has active task' } },
    { fixture: 'import-409-new-operation', result: { kind: 'busy',
      message: expect.stringMatching(/^New operation on image '.*' is not permitted as prior operation is still in progress$/) as unknown } },
  ] as const)('requestCopy: recorded $fixture → $result.kind', async ({ fixture, result }) => {
    const exchange = loadExchange('glance', fixture);
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { client, sent } = glance();
    const { stores } = exchange.request.body as { stores: string[] };
    await expect(client.requestCopy(imageIdOf(exchange), { stores })).resolves.toEqual(result);
    expect(sent).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    { fixture: 'import-409-unknown-store', code: 'FERRY_STORE_NOT_FOUND', text: "Glance has no store 'nosuch'" },
    { fixture: 'import-409-not-active', code: 'FERRY_IMAGE_NOT_ACTIVE', text: 'is not active' },
    { fixture: 'import-404', code: 'FERRY_IMAGE_NOT_FOUND', text: 'Glance has no image' },
    { fixture: 'import-403-member', code: 'FERRY_FORBIDDEN', text: 'You are not authorized to complete copy_image action.' },
  ] satisfies { fixture: GlanceFixture; code: string; text: string }[])('requestCopy: recorded $fixture → $code, not retried', async ({ fixture, code, text }) => {
    const exchange = loadExchange('glance', fixture);
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { client, sent } = glance();
    const { stores } = exchange.request.body as { stores: string[] };
    await expect(client.requestCopy(imageIdOf(exchange), { stores })).rejects.toMatchObject({ code,
      message: expect.stringContaining(text) as unknown });
    expect(sent).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it('requestCopy: 403 → FERRY_FORBIDDEN whose hint names the copy_image policy and the role and policy file ferry ships', async () => {
    const exchange = loadExchange('glance', 'import-403-member');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const error = glance().client.requestCopy(imageIdOf(exchange), { stores: ['site-b'] });
    await expect(error).rejects.toMatchObject({ code: 'FERRY_FORBIDDEN', hint: expect.stringContaining('"copy_image"') as unknown,
      details: { policy: 'copy_image', status: 403, requestId: exchange.headers['x-openstack-request-id'] } });
    await expect(error).rejects.toHaveProperty('hint', expect.stringMatching(/role ferry .*packaging\/glance\/ferry-policy\.yaml.*docs\/security\.md/));
    await expect(error).rejects.not.toHaveProperty('hint', expect.stringContaining('role:member'));
    expect(scope.isDone()).toBe(true);
  });

  it('requestCopy: 403 "You do not own this image" (Glance 25: a non-owner took over an expired lock, which Glance then left to a task it never stored) → busy, deadLock, not FERRY_FORBIDDEN', async () => {
    // The body as Glance 25.1.0 answered ferry's role on the dev cloud (docs/copy.md, "A task ferry cannot see").
    const id = '26a8f4c8-8f7f-442e-8dec-463845431f2a';
    const scope = nock(GLANCE_ROOT).post(`/v2/images/${id}/import`)
      .reply(403, { message: 'You do not own this image<br /><br />\n\n\n', code: '403 Forbidden', title: 'Forbidden' });
    await expect(glance().client.requestCopy(id, { stores: ['site-b'] })).resolves.toEqual({ kind: 'busy', message: 'You do not own this image', deadLock: true });
    expect(scope.isDone()).toBe(true);
  });

  it('requestCopy: all stores, must-succeed off → that body (answered with the recorded 202)', async () => {
    const exchange = loadExchange('glance', 'import-202');
    const scope = replay(nock(GLANCE_ROOT), { ...exchange, request: { ...exchange.request,
      body: { method: { name: 'copy-image' }, all_stores: true, all_stores_must_succeed: false } } });
    await expect(glance().client.requestCopy(imageIdOf(exchange), { allStores: true, allStoresMustSucceed: false }))
      .resolves.toMatchObject({ kind: 'accepted' });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    { name: 'stores and all stores together', request: { stores: ['site-b'], allStores: true } },
    { name: 'no store', request: { stores: [] } },
    { name: 'no stores at all', request: {} },
    { name: 'a store twice', request: { stores: ['site-b', 'site-b'] } },
  ] satisfies { name: string; request: CopyRequest }[])('requestCopy: $name → FERRY_INVALID_OPTION, nothing sent', async ({ request }) => {
    const { client, sent } = glance();
    await expect(client.requestCopy('8554f597-4961-4557-9ad1-1fbfef5ebc46', request)).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION' });
    expect(sent).toEqual([]);
  });
});

describe('GlanceClient: discovery and tasks', () => {
  it('getStoresInfo: the recorded stores, central the default', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores'));
    const info = await glance().client.getStoresInfo();
    expect(info.stores.map((s) => s.id)).toEqual(['central', 'site-a', 'site-b', 'broken']);
    expect(info.defaultStore).toBe('central');
    expect(scope.isDone()).toBe(true);
  });

  it('getStoresDetail: types and pools', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const info = await glance().client.getStoresDetail();
    expect(info.stores.map(({ id, type, pool }) => [id, type, pool])).toEqual([
      ['central', 'file', undefined], ['site-a', 'rbd', 'images'], ['site-b', 'rbd', 'images'], ['broken', 'file', undefined]]);
    expect(scope.isDone()).toBe(true);
  });

  it('getStoresDetail: as a member → FERRY_FORBIDDEN with Glance\'s message', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail-403-member'));
    await expect(glance().client.getStoresDetail()).rejects.toMatchObject({ code: 'FERRY_FORBIDDEN',
      message: expect.stringContaining('stores_info_detail') as unknown });
    expect(scope.isDone()).toBe(true);
  });

  it('getImportInfo: copy-image is among the methods', async () => {
    const scope = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-import'));
    await expect(glance().client.getImportInfo()).resolves.toEqual({ methods: ['glance-direct', 'web-download', 'copy-image'] });
    expect(scope.isDone()).toBe(true);
  });

  it('listImageTasks: the recorded copy task', async () => {
    const exchange = loadExchange('glance', 'image-tasks');
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const [recorded] = bodyOf<{ tasks: { id: string }[] }>(exchange).tasks;
    const tasks = await glance().client.listImageTasks(imageIdOf(exchange));
    expect(tasks.map((t) => [t.id, t.status, t.stores, t.imageId])).toEqual([[recorded!.id, 'success', ['site-b'], imageIdOf(exchange)]]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('GlanceClient.addLocation', () => {
  // The 400 as Glance 25.1.0 on the dev cloud answered a PATCH adding a location twice; the two 403 wordings are
  // Glance's (its source), not recorded here: the dev cloud runs with show_multiple_locations on and admin only.
  const exchange = loadExchange('glance', 'image-active-site-a');
  const id = imageIdOf(exchange);
  const url = `rbd://5068a88c-13d5-4a0e-9927-daf7b7fec0fd/images/${id}/snap`;
  const patchBody = [{ op: 'add', path: '/locations/-', value: { url, metadata: { store: 'site-b' } } }];

  it('addLocation: PATCH add /locations/- with metadata.store and the json-patch media type → the image', async () => {
    const scope = nock(GLANCE_ROOT, { reqheaders: { 'content-type': 'application/openstack-images-v2.1-json-patch' } })
      .patch(`/v2/images/${id}`, patchBody).reply(200, bodyOf<Record<string, unknown>>(exchange));
    const { client } = glance();
    await expect(client.addLocation(id, { url, store: 'site-b' })).resolves.toMatchObject({ id });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    { status: 400, message: `The location ${url} already exists<br /><br />\n\n\n`, hint: /check the URL/ },
    { status: 403, message: "It's not allowed to add locations if locations are invisible.", hint: /show_multiple_locations = true/ },
    { status: 403, message: 'You are not authorized to complete add_image_location action.', hint: /add_image_location/, policy: 'add_image_location' },
    // Glance 25 (Zed): the rule is set_image_location, and its database layer lets only the owning project (or admin) change an image.
    { status: 403, message: 'You are not authorized to complete set_image_location action.<br /><br />\n\n\n',
      hint: /"set_image_location".*role ferry in the project that owns the image.*ferry-policy\.yaml/, policy: 'set_image_location' },
    { status: 403, message: 'You do not own this image<br /><br />\n\n\n', hint: /role ferry in the project that owns the image/, policy: 'set_image_location' },
  ])('addLocation: $status $message → FERRY_LOCATION_REFUSED with a hint naming the fix', async ({ status, message, hint, policy }) => {
    const scope = nock(GLANCE_ROOT).patch(`/v2/images/${id}`).reply(status, { message, code: `${status}`, title: 'refused' });
    const { client } = glance();
    const refused = client.addLocation(id, { url, store: 'site-b' });
    await expect(refused).rejects.toMatchObject({ code: 'FERRY_LOCATION_REFUSED', ...(policy === undefined ? {} : { details: { policy } }) });
    await expect(refused).rejects.toHaveProperty('hint', expect.stringMatching(hint));
    expect(scope.isDone()).toBe(true);
  });
});

describe('GlanceClient.deleteFromStore', () => {
  // Glance 25.1.0's answers on the dev cloud (scripts/devcloud/recorder/store-delete-cases.ts).
  const pathParts = (exchange: RecordedExchange): { store: string; id: string } => {
    const [, , , store = '', id = ''] = exchange.request.path.split('/');
    return { store, id };
  };

  it.each([
    { fixture: 'store-delete-204', outcome: { kind: 'removed' } },
    { fixture: 'store-delete-403-last-location', outcome: { kind: 'last-location', message: expect.stringMatching(/^Cannot delete image data from the only store/) } },
    { fixture: 'store-delete-404-not-in-store', outcome: { kind: 'not-in-store', message: expect.stringMatching(/is not stored in store site-b\.$/) } },
    { fixture: 'store-delete-409-in-use', outcome: { kind: 'in-use', message: expect.stringMatching(/in use through the backend store outside of Glance/) } },
    { fixture: 'store-delete-409-not-active', outcome: { kind: 'not-active', message: expect.stringMatching(/status is not 'active'/) } },
  ] as const)('deleteFromStore: $fixture → $outcome.kind, one DELETE', async ({ fixture, outcome }) => {
    const exchange = loadExchange('glance', fixture);
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { store, id } = pathParts(exchange);
    const { client, sent } = glance();
    await expect(client.deleteFromStore(id, store)).resolves.toEqual(outcome);
    expect(sent.map((request) => request.method)).toEqual(['DELETE']);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    { fixture: 'store-delete-404-image', code: 'FERRY_IMAGE_NOT_FOUND' },
    { fixture: 'store-delete-409-unknown-store', code: 'FERRY_STORE_NOT_FOUND' },
    { fixture: 'store-delete-403-member', code: 'FERRY_FORBIDDEN' },
  ] as const)('deleteFromStore: $fixture → $code', async ({ fixture, code }) => {
    const exchange = loadExchange('glance', fixture);
    const scope = replay(nock(GLANCE_ROOT), exchange);
    const { store, id } = pathParts(exchange);
    await expect(glance().client.deleteFromStore(id, store)).rejects.toMatchObject({ code });
    expect(scope.isDone()).toBe(true);
  });

  it('deleteFromStore: a refusal names the policy and what to do ("You do not own this image")', async () => {
    const exchange = loadExchange('glance', 'store-delete-403-member');
    replay(nock(GLANCE_ROOT), exchange);
    const { store, id } = pathParts(exchange);
    const refused = glance().client.deleteFromStore(id, store);
    await expect(refused).rejects.toMatchObject({ message: expect.stringMatching(/You do not own this image$/) as unknown,
      details: { policy: 'delete_image_location', status: 403 } });
    await expect(refused).rejects.toHaveProperty('hint', expect.stringMatching(/owning project .*delete_image_location.*docs\/evict\.md/));
  });

  it('deleteFromStore: a store name is a path segment: escaped, never a path of its own', async () => {
    const id = pathParts(loadExchange('glance', 'store-delete-204')).id;
    const scope = nock(GLANCE_ROOT).delete(`/v2/stores/a%2F..%2Fb/${id}`).reply(204);
    await expect(glance().client.deleteFromStore(id, 'a/../b')).resolves.toEqual({ kind: 'removed' });
    expect(scope.isDone()).toBe(true);
  });
});
