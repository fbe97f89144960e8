import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpTransport, type HttpRequest, type HttpTransport } from '../../../src/openstack/http-transport.js';
import { sendWithRetry, type RetryPolicy } from '../../../src/openstack/send-with-retry.js';
import { GLANCE_ROOT, loadExchange, replay } from '../../helpers/fixtures.js';
import { socketError } from '../../helpers/socket-error.js';

const inner = createHttpTransport();
afterAll(() => inner.close());

/** Counts attempts: every send the retry loop makes. */
function counting(): HttpTransport & { readonly sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return { sent, send: (request) => { sent.push(request); return inner.send(request); }, close: () => Promise.resolve() };
}

const policy: RetryPolicy = { retries: 2, minDelayMs: 1, maxDelayMs: 1 };

// Placement's 503 while Keystone is down (keystone.md §9; no fixture file records a 503).
const unavailable = {
  message: 'The server is currently unavailable. Please try again at a later time.<br /><br />\nThe Keystone service is temporarily unavailable.\n\n',
  code: '503 Service Unavailable',
  title: 'Service Unavailable',
};

const image = loadExchange('glance', 'image-active-site-a');
const imageUrl = `${GLANCE_ROOT}${image.request.path}`;
const importCall = loadExchange('glance', 'import-202');
const importUrl = `${GLANCE_ROOT}${importCall.request.path}`;

describe('sendWithRetry: idempotent', () => {
  it('sendWithRetry: a GET answered 503 then 200 is retried once and returns the 200', async () => {
    const scope = nock(GLANCE_ROOT).get(image.request.path).reply(503, unavailable);
    replay(scope, image);
    const transport = counting();
    const retries: number[] = [];
    const response = await sendWithRetry(transport, { method: 'GET', url: imageUrl },
      { idempotent: true, policy, onRetry: ({ attempt }) => retries.push(attempt) });
    expect(response).toMatchObject({ status: 200, body: image.body });
    expect(transport.sent).toHaveLength(2);
    expect(retries).toEqual([1]);
    expect(scope.isDone()).toBe(true);
  });

  it('sendWithRetry: a GET whose connection is refused is retried', async () => {
    const scope = nock(GLANCE_ROOT).get(image.request.path).replyWithError(socketError('ECONNREFUSED'));
    replay(scope, image);
    const transport = counting();
    const response = await sendWithRetry(transport, { method: 'GET', url: imageUrl }, { idempotent: true, policy });
    expect(response.status).toBe(200);
    expect(transport.sent).toHaveLength(2);
    expect(scope.isDone()).toBe(true);
  });

  it('sendWithRetry: a 404 is returned at once, never retried', async () => {
    const notFound = loadExchange('glance', 'image-404');
    const scope = replay(nock(GLANCE_ROOT), notFound);
    const transport = counting();
    const response = await sendWithRetry(transport, { method: 'GET', url: `${GLANCE_ROOT}${notFound.request.path}` },
      { idempotent: true, policy });
    expect(response.status).toBe(404);
    expect(transport.sent).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it('sendWithRetry: when every attempt gets 503, the last 503 is returned to the caller', async () => {
    const scope = nock(GLANCE_ROOT)
      .get(image.request.path).reply(503, unavailable, { 'x-openstack-request-id': 'req-attempt-1' })
      .get(image.request.path).reply(503, unavailable, { 'x-openstack-request-id': 'req-attempt-2' })
      .get(image.request.path).reply(503, unavailable, { 'x-openstack-request-id': 'req-attempt-3' });
    const transport = counting();
    const response = await sendWithRetry(transport, { method: 'GET', url: imageUrl }, { idempotent: true, policy });
    expect(response).toMatchObject({ status: 503, requestId: 'req-attempt-3' });
    expect(transport.sent).toHaveLength(3);
    expect(scope.isDone()).toBe(true);
  });

  it('sendWithRetry: when every attempt is refused, the last FERRY_UNREACHABLE is thrown', async () => {
    const scope = nock(GLANCE_ROOT).get(image.request.path).times(3).replyWithError(socketError('ECONNREFUSED'));
    const transport = counting();
    await expect(sendWithRetry(transport, { method: 'GET', url: imageUrl }, { idempotent: true, policy }))
      .rejects.toMatchObject({ code: 'FERRY_UNREACHABLE', details: { notSent: true } });
    expect(transport.sent).toHaveLength(3);
    expect(scope.isDone()).toBe(true);
  });

  it('sendWithRetry: a request aborted in flight → FERRY_ABORTED, not retried', async () => {
    const scope = nock(GLANCE_ROOT).get(image.request.path).delay(5_000).reply(200, '{}');
    const transport = counting();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    await expect(sendWithRetry(transport, { method: 'GET', url: imageUrl, signal: controller.signal }, { idempotent: true, policy }))
      .rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    expect(transport.sent).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });
});

describe('sendWithRetry: not idempotent (the import POST)', () => {
  const post = { method: 'POST', url: importUrl, body: importCall.request.body } as const;

  it('sendWithRetry: a POST answered 503 is not retried; the 503 goes to the caller', async () => {
    const scope = nock(GLANCE_ROOT).post(importCall.request.path).reply(503, unavailable);
    const transport = counting();
    const response = await sendWithRetry(transport, post, { idempotent: false, policy });
    expect(response.status).toBe(503);
    expect(transport.sent).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });

  it('sendWithRetry: a POST whose connection was refused (never sent) is retried', async () => {
    const scope = nock(GLANCE_ROOT).post(importCall.request.path).replyWithError(socketError('ECONNREFUSED'));
    replay(scope, importCall);
    const transport = counting();
    const response = await sendWithRetry(transport, post, { idempotent: false, policy });
    expect(response.status).toBe(202);
    expect(transport.sent).toHaveLength(2);
    expect(scope.isDone()).toBe(true);
  });

  it('sendWithRetry: a POST whose connection was reset (maybe sent) is not retried', async () => {
    const scope = nock(GLANCE_ROOT).post(importCall.request.path).replyWithError(socketError('ECONNRESET'));
    const transport = counting();
    await expect(sendWithRetry(transport, post, { idempotent: false, policy }))
      .rejects.toMatchObject({ code: 'FERRY_UNREACHABLE', details: { cause: 'ECONNRESET', notSent: false } });
    expect(transport.sent).toHaveLength(1);
    expect(scope.isDone()).toBe(true);
  });
});
