import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../../src/config/ferry-config.js';
import { createHttpTransport } from '../../../src/openstack/http-transport.js';
import { createSession, type SessionOptions } from '../../../src/openstack/keystone-session.js';
import { selectEndpoint, type ServiceCatalog } from '../../../src/openstack/service-catalog.js';
import { fakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { GLANCE_ROOT, keystoneTime, KEYSTONE_ROOT, loadExchange, RECORDED_AUTH, replay, tokenExchange,
  type KeystoneFixture } from '../../helpers/fixtures.js';
import { socketError } from '../../helpers/socket-error.js';

const transport = createHttpTransport();
afterAll(() => transport.close());

const HOUR = 3_600_000;
const retry = { retries: 1, minDelayMs: 1, maxDelayMs: 1 };

function session(auth: AuthConfig, clock: FakeClock, endpoints: SessionOptions['endpoints'] = {}) {
  return createSession({ auth, endpoints, transport, clock, retry });
}

/** A recorded token answer with a placeholder X-Subject-Token, expiring `lifetimeMs` after the fake clock's now. */
function replayToken(scope: nock.Scope, clock: FakeClock, token: string, lifetimeMs = HOUR,
  name: KeystoneFixture = 'token-password-admin'): nock.Scope {
  return replay(scope, tokenExchange(name, keystoneTime(clock.wallNow() + lifetimeMs)), { headers: { 'x-subject-token': token } });
}

/** Collects the JSON bodies nock received. */
function receivedBodies(scope: nock.Scope): unknown[] {
  const bodies: unknown[] = [];
  scope.on('request', (_request: unknown, _interceptor: unknown, body: string) => bodies.push(JSON.parse(body)));
  return bodies;
}

describe('createSession: token requests', () => {
  it('createSession: password → the recorded request body, project-scoped; the token comes from X-Subject-Token', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    const bodies = receivedBodies(scope);
    await expect(session(RECORDED_AUTH.admin, clock).token()).resolves.toBe('placeholder-token-1');
    expect(bodies).toEqual([loadExchange('keystone', 'token-password-admin').request.body]);
    expect(bodies[0]).toMatchObject({ auth: { scope: { project: { name: 'admin', domain: { id: 'default' } } } } });
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: projectId() is the project the token is scoped to (one token request for both); a plain token has none', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    const admin = session(RECORDED_AUTH.admin, clock);
    await expect(admin.projectId()).resolves.toBe('58e7212814a0491c9b864d64b784fb3e');
    await expect(admin.token()).resolves.toBe('placeholder-token-1');
    expect(admin.tokenRequests).toBe(1);
    expect(scope.isDone()).toBe(true);
    await expect(session({ method: 'token', token: 'given' }, clock).projectId()).resolves.toBeUndefined();
  });

  it('createSession: application credential → the recorded request body, with no scope', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1', HOUR, 'token-appcred');
    const bodies = receivedBodies(scope);
    await expect(session(RECORDED_AUTH.appcred, clock).token()).resolves.toBe('placeholder-token-1');
    expect(bodies).toEqual([loadExchange('keystone', 'token-appcred').request.body]);
    expect((bodies[0] as { auth: object }).auth).not.toHaveProperty('scope');
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: a token is reused for its lifetime: one POST for many calls', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    const keystone = session(RECORDED_AUTH.admin, clock);
    for (const advanceMs of [0, 1_000, 10 * 60_000, 40 * 60_000]) {
      clock.advance(advanceMs);
      await expect(keystone.token()).resolves.toBe('placeholder-token-1');
      await expect(keystone.endpointFor('image')).resolves.toBe(GLANCE_ROOT);
    }
    expect(keystone.tokenRequests).toBe(1);
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: refreshed once when less than 120 s are left (keystoneauth\'s margin), then reused', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    const keystone = session(RECORDED_AUTH.admin, clock);
    await expect(keystone.token()).resolves.toBe('placeholder-token-1');
    clock.advance(HOUR - 121_000);
    await expect(keystone.token()).resolves.toBe('placeholder-token-1');
    expect(keystone.tokenRequests).toBe(1);
    clock.advance(2_000);
    replayToken(scope, clock, 'placeholder-token-2');
    await expect(keystone.token()).resolves.toBe('placeholder-token-2');
    await expect(keystone.token()).resolves.toBe('placeholder-token-2');
    clock.advance(30 * 60_000);
    await expect(keystone.token()).resolves.toBe('placeholder-token-2');
    expect(keystone.tokenRequests).toBe(2);
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: a 60 s token is refreshed at half its life, not on every call', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1', 60_000);
    const keystone = session(RECORDED_AUTH.admin, clock);
    await keystone.token();
    clock.advance(29_000);
    await expect(keystone.token()).resolves.toBe('placeholder-token-1');
    clock.advance(2_000);
    replayToken(scope, clock, 'placeholder-token-2', 60_000);
    await expect(keystone.token()).resolves.toBe('placeholder-token-2');
    expect(keystone.tokenRequests).toBe(2);
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: concurrent first calls share one POST (single flight)', async () => {
    const clock = fakeClock();
    const scope = replay(nock(KEYSTONE_ROOT), tokenExchange('token-password-admin', keystoneTime(clock.wallNow() + HOUR)),
      { headers: { 'x-subject-token': 'placeholder-token-1' }, delayMs: 20 });
    const keystone = session(RECORDED_AUTH.admin, clock);
    const results = await Promise.all([keystone.token(), keystone.token(), keystone.endpointFor('image'), keystone.token(),
      keystone.endpointFor('placement')]);
    expect(results).toEqual(['placeholder-token-1', 'placeholder-token-1', GLANCE_ROOT, 'placeholder-token-1', 'http://127.0.0.1:18779']);
    expect(keystone.tokenRequests).toBe(1);
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: a failed token request is not cached: the next call asks again', async () => {
    const clock = fakeClock();
    const scope = replay(nock(KEYSTONE_ROOT), loadExchange('keystone', 'token-bad-password'), { matchBody: false });
    replayToken(scope, clock, 'placeholder-token-1');
    const keystone = session(RECORDED_AUTH.admin, clock);
    await expect(keystone.token()).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED' });
    await expect(keystone.token()).resolves.toBe('placeholder-token-1');
    expect(keystone.tokenRequests).toBe(2);
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: invalidate() drops the token: the next call asks Keystone again', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    replayToken(scope, clock, 'placeholder-token-2');
    const keystone = session(RECORDED_AUTH.admin, clock);
    await keystone.token();
    expect(keystone.invalidate()).toBe(true);
    await expect(keystone.token()).resolves.toBe('placeholder-token-2');
    expect(scope.isDone()).toBe(true);
  });
});

describe('createSession: failures', () => {
  it('createSession: Keystone 401 → FERRY_AUTH_FAILED naming the user and project, never the password; not retried', async () => {
    const clock = fakeClock();
    const exchange = loadExchange('keystone', 'token-bad-password');
    const scope = replay(nock(KEYSTONE_ROOT), exchange);
    const keystone = session(RECORDED_AUTH.badPassword, clock);
    const error = keystone.token();
    await expect(error).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED',
      message: "Keystone refused the credentials of user 'admin' in project 'admin'",
      details: { url: `${KEYSTONE_ROOT}/v3/auth/tokens`, status: 401, requestId: exchange.headers['x-openstack-request-id'] } });
    const thrown: unknown = await error.catch((e: unknown) => e);
    expect(JSON.stringify(thrown) + String(thrown)).not.toContain('not-the-password');
    expect(keystone.tokenRequests).toBe(1);
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: an application credential refused → names the credential id, never the secret', async () => {
    const clock = fakeClock();
    // Keystone answers a wrong app-cred secret with the same body as a wrong password (keystone.md §9).
    const scope = replay(nock(KEYSTONE_ROOT), loadExchange('keystone', 'token-bad-password'), { matchBody: false });
    const error = session({ ...RECORDED_AUTH.appcred, secret: 'wrong-secret' }, clock).token();
    await expect(error).rejects.toMatchObject({ code: 'FERRY_AUTH_FAILED',
      message: `Keystone refused the credentials of application credential '${RECORDED_AUTH.appcred.id}'` });
    const thrown: unknown = await error.catch((e: unknown) => e);
    expect(JSON.stringify(thrown) + String(thrown)).not.toContain('wrong-secret');
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: Keystone unreachable → FERRY_UNREACHABLE naming the auth URL and how to change it, after the retries', async () => {
    const scope = nock(KEYSTONE_ROOT).post('/v3/auth/tokens').times(2).replyWithError(socketError('ECONNREFUSED'));
    const error = session(RECORDED_AUTH.admin, fakeClock()).token();
    await expect(error).rejects.toMatchObject({ code: 'FERRY_UNREACHABLE',
      message: expect.stringMatching(/^Keystone is unreachable at http:\/\/127\.0\.0\.1:15000\/v3: /) as unknown,
      hint: expect.stringContaining('--os-auth-url') as unknown, details: { notSent: true } });
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: a 201 without X-Subject-Token → FERRY_BAD_RESPONSE', async () => {
    const clock = fakeClock();
    const scope = replay(nock(KEYSTONE_ROOT), tokenExchange('token-password-admin'));
    await expect(session(RECORDED_AUTH.admin, clock).token()).rejects.toMatchObject({ code: 'FERRY_BAD_RESPONSE',
      details: { field: 'X-Subject-Token' } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('createSession: endpoints', () => {
  it.each([
    { name: 'public', selection: { interfaces: ['public'] }, type: 'image', expected: GLANCE_ROOT },
    { name: 'internal missing, then public', selection: { interfaces: ['internal', 'public'] }, type: 'image', expected: GLANCE_ROOT },
    { name: 'public in RegionOne', selection: { interfaces: ['public'], region: 'RegionOne' }, type: 'placement',
      expected: 'http://127.0.0.1:18779' },
    { name: 'identity keeps its /v3', selection: { interfaces: ['public'] }, type: 'identity', expected: `${KEYSTONE_ROOT}/v3` },
  ])('createSession: endpointFor from the recorded catalog: $name', async ({ selection, type, expected }) => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    await expect(session(RECORDED_AUTH.admin, clock, { [type]: selection }).endpointFor(type)).resolves.toBe(expected);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    { name: 'no internal endpoint', selection: { interfaces: ['internal'] }, type: 'image',
      message: "the 'image' service has no internal endpoint (catalog offers: public@RegionOne)", offered: ['public@RegionOne'] },
    { name: 'no endpoint in the region', selection: { interfaces: ['internal', 'public'], region: 'RegionTwo' }, type: 'image',
      message: "the 'image' service has no internal or public endpoint in region RegionTwo (catalog offers: public@RegionOne)",
      offered: ['public@RegionOne'] },
    { name: 'no such service', selection: { interfaces: ['public'] }, type: 'volumev3',
      message: "the service catalog has no 'volumev3' service", offered: [] },
  ])('createSession: endpointFor → FERRY_ENDPOINT_NOT_FOUND: $name', async ({ selection, type, message, offered }) => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    await expect(session(RECORDED_AUTH.admin, clock, { [type]: selection }).endpointFor(type)).rejects.toMatchObject({
      code: 'FERRY_ENDPOINT_NOT_FOUND', message, details: { serviceType: type, offered } });
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: the not-found hint names the override flag', async () => {
    const clock = fakeClock();
    const scope = replayToken(nock(KEYSTONE_ROOT), clock, 'placeholder-token-1');
    await expect(session(RECORDED_AUTH.admin, clock, { image: { interfaces: ['admin'] } }).endpointFor('image'))
      .rejects.toMatchObject({ hint: expect.stringContaining('--glance-endpoint') as unknown });
    expect(scope.isDone()).toBe(true);
  });

  it('createSession: an explicit URL needs no catalog and no token request; trailing slashes go', async () => {
    const keystone = session(RECORDED_AUTH.admin, fakeClock(), { image: { interfaces: ['public'], url: 'http://glance.example:9292/' } });
    await expect(keystone.endpointFor('image')).resolves.toBe('http://glance.example:9292');
    expect(keystone.tokenRequests).toBe(0);
  });

  it('createSession: a fixed token is used as is, cannot be refreshed, and without an endpoint says --glance-endpoint', async () => {
    const keystone = session({ method: 'token', token: 'placeholder-token-fixed' }, fakeClock());
    await expect(keystone.token()).resolves.toBe('placeholder-token-fixed');
    expect(keystone.invalidate()).toBe(false);
    await expect(keystone.endpointFor('image')).rejects.toMatchObject({ code: 'FERRY_ENDPOINT_NOT_FOUND',
      message: 'no image endpoint: a plain token carries no service catalog',
      hint: expect.stringContaining('--glance-endpoint URL') as unknown });
    await expect(keystone.endpointFor('placement')).rejects.toMatchObject({ code: 'FERRY_ENDPOINT_NOT_FOUND',
      hint: expect.stringContaining('--placement-endpoint URL') as unknown });
    expect(keystone.tokenRequests).toBe(0);
  });
});

describe('selectEndpoint: interface order', () => {
  // The recorded catalog has only public endpoints; this copy adds an internal one to the image service.
  const recorded = (loadExchange('keystone', 'token-password-admin').body as { token: { catalog: ServiceCatalog } }).token.catalog;
  const internal = { interface: 'internal', url: 'http://glance-internal.example:9292/', region_id: 'RegionOne', region: 'RegionOne' };
  const catalog: ServiceCatalog = recorded.map((service) =>
    (service.type === 'image' ? { ...service, endpoints: [...service.endpoints, internal] } : service));

  it.each([
    { interfaces: ['internal', 'public'], expected: 'http://glance-internal.example:9292' },
    { interfaces: ['public', 'internal'], expected: GLANCE_ROOT },
    { interfaces: ['admin', 'internal'], expected: 'http://glance-internal.example:9292' },
  ])('selectEndpoint: $interfaces → the first one offered', ({ interfaces, expected }) => {
    expect(selectEndpoint(catalog, 'image', { interfaces })).toBe(expected);
  });
});
