import { describe, expect, it } from 'vitest';
import { httpErrorDetails, httpStatusError } from '../../../src/openstack/http-status-error.js';
import type { HttpResponse } from '../../../src/openstack/http-transport.js';
import { GLANCE_ROOT, loadExchange, type RecordedExchange } from '../../helpers/fixtures.js';

/** The transport's view of a recorded answer. */
function asResponse(exchange: RecordedExchange): HttpResponse {
  return { status: exchange.status, headers: exchange.headers, body: exchange.body ?? undefined,
    requestId: exchange.headers['x-openstack-request-id'] };
}

const context = (exchange: RecordedExchange, service = 'Glance') =>
  ({ method: exchange.request.method, url: `${GLANCE_ROOT}${exchange.request.path.split('?')[0] ?? ''}`, service });

// Placement's 503 while Keystone is down (keystone.md §9; no fixture file records a 503).
const unavailable: HttpResponse = { status: 503, headers: { 'content-type': 'application/json', 'x-openstack-request-id': 'req-503' },
  requestId: 'req-503', body: { message: 'The server is currently unavailable. Please try again at a later time.<br /><br />\nThe Keystone service is temporarily unavailable.\n\n',
    code: '503 Service Unavailable', title: 'Service Unavailable' } };

describe('httpStatusError', () => {
  it.each([
    { fixture: 'image-401', code: 'FERRY_AUTH_FAILED', hint: 'The token was refused' },
    { fixture: 'info-stores-detail-403-member', code: 'FERRY_FORBIDDEN', hint: "under Glance's policy" },
    { fixture: 'image-404', code: 'FERRY_HTTP', hint: 'The request was refused as sent' },
    { fixture: 'import-409-active-task', code: 'FERRY_HTTP', hint: 'The request was refused as sent' },
  ] as const)('httpStatusError: recorded glance/$fixture → $code', ({ fixture, code, hint }) => {
    const exchange = loadExchange('glance', fixture);
    const error = httpStatusError(asResponse(exchange), context(exchange));
    expect(error.code).toBe(code);
    expect(error.hint).toContain(hint);
  });

  it('httpStatusError: the message names the service, status, request and the server\'s own clean message', () => {
    const exchange = loadExchange('glance', 'info-stores-detail-403-member');
    const error = httpStatusError(asResponse(exchange), context(exchange));
    expect(error.message).toBe(`Glance answered 403 to GET ${GLANCE_ROOT}/v2/info/stores/detail: You are not authorized to complete stores_info_detail action.`);
  });

  it('httpStatusError: a 5xx is the service\'s fault, retryable, and the hint names the request id to look up', () => {
    const error = httpStatusError(unavailable, { method: 'GET', url: `${GLANCE_ROOT}/v2/images`, service: 'Placement' });
    expect(error).toMatchObject({ code: 'FERRY_HTTP', details: { status: 503, fault: 'service', retryable: true, requestId: 'req-503',
      serverMessage: 'The server is currently unavailable. Please try again at a later time.' } });
    expect(error.hint).toContain('req-503');
  });

  it('httpStatusError: a Placement 4xx carries the specific part of its detail', () => {
    const exchange = loadExchange('placement', 'traits-put-409-generation');
    const error = httpStatusError(asResponse(exchange), { method: 'PUT', url: `http://127.0.0.1:18779${exchange.request.path}`, service: 'Placement' });
    expect(error).toMatchObject({ code: 'FERRY_HTTP', details: { status: 409, fault: 'client', retryable: false,
      serverMessage: "Resource provider's generation already changed. Please update the generation and try again." } });
  });
});

describe('httpErrorDetails', () => {
  it('httpErrorDetails: method, URL, status, request id, message, fault, retryable; never headers or tokens', () => {
    const exchange = loadExchange('glance', 'image-401');
    const response = { ...asResponse(exchange), headers: { ...exchange.headers, 'x-subject-token': 'placeholder-token' } };
    const details = httpErrorDetails(response, context(exchange));
    expect(details).toEqual({
      method: 'GET', url: `${GLANCE_ROOT}${exchange.request.path}`, status: 401, requestId: exchange.headers['x-openstack-request-id'],
      serverMessage: expect.stringMatching(/^This server could not verify/) as unknown, fault: 'client', retryable: false,
    });
    expect(JSON.stringify(details)).not.toMatch(/placeholder-token|www-authenticate|content-type/i);
  });
});
