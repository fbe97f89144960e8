import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../../src/config/ferry-config.js';
import { glanceEndpointRoot, GLANCE_OWN_TOKEN_CHECK_PATH } from '../../../src/glance/glance-client.js';
import { createHttpTransport } from '../../../src/openstack/http-transport.js';
import { createSession, type SessionOptions } from '../../../src/openstack/keystone-session.js';
import { createServiceClient } from '../../../src/openstack/service-client.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { GLANCE_ROOT, keystoneTime, KEYSTONE_ROOT, loadExchange, RECORDED_AUTH, replay, tokenExchange } from '../../helpers/fixtures.js';

const transport = createHttpTransport();
afterAll(() => transport.close());
const retry = { retries: 1, minDelayMs: 1, maxDelayMs: 1 };

function glanceHttp(auth: AuthConfig = RECORDED_AUTH.admin, endpoints: SessionOptions['endpoints'] = {}) {
  const clock = fakeClock();
  const session = createSession({ auth, endpoints, transport, clock, retry });
  return { session, clock, http: createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport, retry,
    normalizeEndpoint: glanceEndpointRoot }) };
}

/** Keystone answers, in order, with these placeholder tokens (recorded body, expiring in an hour). */
function keystoneIssues(...tokens: string[]): nock.Scope {
  const scope = nock(KEYSTONE_ROOT);
  const expiresAt = keystoneTime(fakeClock().wallNow() + 3_600_000);
  for (const token of tokens) replay(scope, tokenExchange('token-password-admin', expiresAt), { headers: { 'x-subject-token': token } });
  return scope;
}

const image = loadExchange('glance', 'image-active-site-a');
const refused = loadExchange('glance', 'image-401');
const asGet = { method: 'GET', path: image.request.path } as const;

describe('createServiceClient: re-authentication', () => {
  it('createServiceClient: a 401 from Glance → one new token from Keystone → the retry with it succeeds', async () => {
    const keystone = keystoneIssues('placeholder-token-1', 'placeholder-token-2');
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' } }), refused, { path: image.request.path });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-2' } }), image);
    const { http, session } = glanceHttp();
    const response = await http.request(asGet);
    expect(response).toMatchObject({ status: 200, body: image.body, endpoint: `GET ${GLANCE_ROOT}${image.request.path}` });
    expect(session.tokenRequests).toBe(2);
    expect(keystone.isDone()).toBe(true);
    expect(nock.isDone()).toBe(true);
  });

  it('createServiceClient: the first request carries the first token', async () => {
    const keystone = keystoneIssues('placeholder-token-1');
    const glance = replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' } }), image);
    await expect(glanceHttp().http.request(asGet)).resolves.toMatchObject({ status: 200 });
    expect(keystone.isDone()).toBe(true);
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: a second 401 → FERRY_AUTH_FAILED, after exactly one re-authentication; no token in the error', async () => {
    const keystone = keystoneIssues('placeholder-token-1', 'placeholder-token-2');
    const glance = nock(GLANCE_ROOT);
    replay(glance, refused, { path: image.request.path });
    replay(glance, refused, { path: image.request.path });
    const { http, session } = glanceHttp();
    const error = http.request(asGet);
    await expect(error).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED',
      details: { method: 'GET', url: `${GLANCE_ROOT}${image.request.path}`, status: 401, fault: 'client' } });
    const thrown: unknown = await error.catch((e: unknown) => e);
    expect(JSON.stringify(thrown)).not.toContain('placeholder-token');
    expect(session.tokenRequests).toBe(2);
    expect(keystone.isDone()).toBe(true);
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: with a fixed token (cannot re-authenticate) a 401 is FERRY_AUTH_FAILED at once', async () => {
    const glance = replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-fixed' } }), refused,
      { path: image.request.path });
    const { http } = glanceHttp({ method: 'token', token: 'placeholder-token-fixed' }, { image: { interfaces: ['public'], url: GLANCE_ROOT } });
    await expect(http.request(asGet)).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED', details: { status: 401 } });
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: a 401 the caller accepts is returned without re-authentication', async () => {
    const keystone = keystoneIssues('placeholder-token-1');
    const glance = replay(nock(GLANCE_ROOT), refused, { path: image.request.path });
    const { http, session } = glanceHttp();
    await expect(http.request({ ...asGet, accept: [200, 401] })).resolves.toMatchObject({ status: 401 });
    expect(session.tokenRequests).toBe(1);
    expect(keystone.isDone()).toBe(true);
    expect(glance.isDone()).toBe(true);
  });
});

describe('createServiceClient: accept lists and URLs', () => {
  const notFound = loadExchange('glance', 'image-404');
  const fixed = { method: 'token', token: 'placeholder-token-fixed' } as const;

  it('createServiceClient: a status in the accept list is returned, not thrown', async () => {
    const glance = replay(nock(GLANCE_ROOT), notFound);
    const { http } = glanceHttp(fixed, { image: { interfaces: ['public'], url: GLANCE_ROOT } });
    await expect(http.request({ method: 'GET', path: notFound.request.path, accept: [200, 404] }))
      .resolves.toMatchObject({ status: 404, requestId: notFound.headers['x-openstack-request-id'] });
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: without an accept list a 404 becomes FERRY_HTTP with the server\'s message', async () => {
    const glance = replay(nock(GLANCE_ROOT), notFound);
    const { http } = glanceHttp(fixed, { image: { interfaces: ['public'], url: GLANCE_ROOT } });
    await expect(http.request({ method: 'GET', path: notFound.request.path })).rejects.toMatchObject({ code: 'FERRY_HTTP',
      message: expect.stringContaining('No image found with ID') as unknown, details: { status: 404 } });
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: a 2xx outside the accept list is an error too', async () => {
    const glance = replay(nock(GLANCE_ROOT), image);
    const { http } = glanceHttp(fixed, { image: { interfaces: ['public'], url: GLANCE_ROOT } });
    await expect(http.request({ ...asGet, accept: [404] })).rejects.toMatchObject({ code: 'FERRY_HTTP', details: { status: 200 } });
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: query parameters in order, undefined ones left out; a /v2 endpoint suffix is dropped', async () => {
    const page = loadExchange('glance', 'images-list-page1');
    const glance = replay(nock(GLANCE_ROOT), page);
    const { http } = glanceHttp(fixed, { image: { interfaces: ['public'], url: `${GLANCE_ROOT}/v2/` } });
    const response = await http.request({ method: 'GET', path: '/v2/images', query: { limit: 2, marker: undefined, tag: 'ferry-fixture-page' } });
    expect(response.endpoint).toBe(`GET ${GLANCE_ROOT}/v2/images`);
    expect(glance.isDone()).toBe(true);
  });
});

describe('createServiceClient: acting for a user', () => {
  const USER = 'placeholder-user-token';
  const stores = loadExchange('glance', 'info-stores');
  const notFound = loadExchange('glance', 'image-404');
  function actingHttp() {
    const { session, http: own } = glanceHttp();
    const acting = createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport, retry,
      normalizeEndpoint: glanceEndpointRoot, actingFor: { userToken: () => USER, ownTokenCheckPath: GLANCE_OWN_TOKEN_CHECK_PATH } });
    return { session, own, acting };
  }

  it('createServiceClient: the user\'s token as X-Auth-Token, ferry\'s own as X-Service-Token; a 404 is the caller\'s to read', async () => {
    const keystone = keystoneIssues('placeholder-token-1');
    const glance = replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': USER, 'x-service-token': 'placeholder-token-1' } }), notFound);
    await expect(actingHttp().acting.request({ method: 'GET', path: notFound.request.path, accept: [200, 404] })).resolves.toMatchObject({ status: 404 });
    expect(keystone.isDone()).toBe(true);
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: without actingFor no X-Service-Token is sent', async () => {
    keystoneIssues('placeholder-token-1');
    const glance = replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' }, badheaders: ['x-service-token'] }), image);
    await expect(actingHttp().own.request(asGet)).resolves.toMatchObject({ status: 200 });
    expect(glance.isDone()).toBe(true);
  });

  it('createServiceClient: 401 with the user\'s token while ferry\'s own token alone is accepted → FERRY_AUTH_FAILED, refused user, without a new Keystone login; no token in the error', async () => {
    const keystone = keystoneIssues('placeholder-token-1');
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': USER, 'x-service-token': 'placeholder-token-1' } }), refused, { path: image.request.path });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' }, badheaders: ['x-service-token'] }), stores);
    const { acting, session } = actingHttp();
    const thrown: unknown = await acting.request(asGet).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: 'FERRY_AUTH_FAILED', message: expect.stringContaining('ferry\'s own token is accepted') as unknown,
      details: { method: 'GET', url: `${GLANCE_ROOT}${image.request.path}`, status: 401, refused: 'user' } });
    expect(JSON.stringify(thrown)).not.toContain('placeholder');
    expect((thrown as Error).message).not.toContain('placeholder');
    // A bad user token costs ferry no Keystone login: whoever may write the agent's socket cannot force one per request.
    expect(session.tokenRequests).toBe(1);
    expect(keystone.isDone()).toBe(true);
    expect(nock.isDone()).toBe(true);
  });

  it('createServiceClient: ten requests with a bad user token → still one Keystone login', async () => {
    keystoneIssues('placeholder-token-1');
    for (let i = 0; i < 10; i += 1) {
      replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': USER } }), refused, { path: image.request.path });
      replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' }, badheaders: ['x-service-token'] }), stores);
    }
    const { acting, session } = actingHttp();
    for (let i = 0; i < 10; i += 1) {
      await expect(acting.request(asGet)).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED', details: { refused: 'user' } });
    }
    expect(session.tokenRequests).toBe(1);
    expect(nock.isDone()).toBe(true);
  });

  it('createServiceClient: ferry\'s own token refused too (expired) → one new Keystone login, the request repeated with it succeeds', async () => {
    keystoneIssues('placeholder-token-1', 'placeholder-token-2');
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': USER, 'x-service-token': 'placeholder-token-1' } }), refused, { path: image.request.path });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' }, badheaders: ['x-service-token'] }), refused,
      { path: GLANCE_OWN_TOKEN_CHECK_PATH });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': USER, 'x-service-token': 'placeholder-token-2' } }), image);
    const { acting, session } = actingHttp();
    await expect(acting.request(asGet)).resolves.toMatchObject({ status: 200, body: image.body });
    expect(session.tokenRequests).toBe(2);
    expect(nock.isDone()).toBe(true);
  });

  it('createServiceClient: 401 with the user\'s token and 401 to ferry\'s own token alone, also after a new login → FERRY_AUTH_FAILED, refused ferry', async () => {
    keystoneIssues('placeholder-token-1', 'placeholder-token-2');
    const glance = nock(GLANCE_ROOT);
    replay(glance, refused, { path: image.request.path });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' }, badheaders: ['x-service-token'] }), refused,
      { path: GLANCE_OWN_TOKEN_CHECK_PATH });
    replay(glance, refused, { path: image.request.path });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-2' }, badheaders: ['x-service-token'] }), refused,
      { path: GLANCE_OWN_TOKEN_CHECK_PATH });
    const { acting, session } = actingHttp();
    await expect(acting.request(asGet)).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED', details: { status: 401, refused: 'ferry' } });
    expect(session.tokenRequests).toBe(2);
    expect(nock.isDone()).toBe(true);
  });

  it('createServiceClient: a refused user token (ferry\'s own accepted) moves to the next waiting user\'s, which is answered; no new Keystone login', async () => {
    keystoneIssues('placeholder-token-1');
    const users = ['placeholder-user-a', 'placeholder-user-b'];
    const { session } = glanceHttp();
    const acting = createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport, retry, normalizeEndpoint: glanceEndpointRoot,
      actingFor: { userToken: () => users[0]!, ownTokenCheckPath: GLANCE_OWN_TOKEN_CHECK_PATH, nextUserToken: () => { users.shift(); return users.length > 0; } } });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-user-a' } }), refused, { path: image.request.path });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-token-1' }, badheaders: ['x-service-token'] }), stores);
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-user-b', 'x-service-token': 'placeholder-token-1' } }), image);
    await expect(acting.request(asGet)).resolves.toMatchObject({ status: 200, body: image.body });
    expect(session.tokenRequests).toBe(1);
    expect(nock.isDone()).toBe(true);
  });

  it('createServiceClient: every user token refused → FERRY_AUTH_FAILED refused user, after at most 16 of them (bounded)', async () => {
    keystoneIssues('placeholder-token-1');
    let asked = 0;
    const { session } = glanceHttp();
    const acting = createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport, retry, normalizeEndpoint: glanceEndpointRoot,
      actingFor: { userToken: () => `placeholder-user-${asked}`, ownTokenCheckPath: GLANCE_OWN_TOKEN_CHECK_PATH, nextUserToken: () => { asked += 1; return true; } } });
    const refusing = nock(GLANCE_ROOT).persist().get(image.request.path).reply(refused.status, JSON.stringify(refused.body), { 'content-type': 'application/json' });
    const own = nock(GLANCE_ROOT).persist().get(GLANCE_OWN_TOKEN_CHECK_PATH).reply(200, JSON.stringify(stores.body), { 'content-type': 'application/json' });
    try {
      await expect(acting.request(asGet)).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED', details: { refused: 'user' } });
      expect(asked).toBe(15);
      expect(session.tokenRequests).toBe(1);
    } finally {
      refusing.persist(false);
      own.persist(false);
      nock.cleanAll();
    }
  });

  it('createServiceClient: the user\'s token is read per request (the copy\'s waiter may change between two)', async () => {
    keystoneIssues('placeholder-token-1');
    let user = 'placeholder-user-a';
    const { session } = glanceHttp();
    const acting = createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport, retry,
      normalizeEndpoint: glanceEndpointRoot, actingFor: { userToken: () => user, ownTokenCheckPath: GLANCE_OWN_TOKEN_CHECK_PATH } });
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-user-a' } }), image);
    replay(nock(GLANCE_ROOT, { reqheaders: { 'x-auth-token': 'placeholder-user-b' } }), image);
    await acting.request(asGet);
    user = 'placeholder-user-b';
    await acting.request(asGet);
    expect(nock.isDone()).toBe(true);
  });
});
