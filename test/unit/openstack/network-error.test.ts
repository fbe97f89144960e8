import { describe, expect, it } from 'vitest';
import { PHASE_TIMEOUT } from '../../../src/openstack/http-exchange.js';
import { networkError } from '../../../src/openstack/network-error.js';

// What a request fails with: node:http's own error (the socket's code: ECONNREFUSED, ECONNRESET 'socket hang up',
// OpenSSL's), or the phase error http-exchange destroyed it with (its timers run against real servers in
// http-transport.test.ts and tls.test.ts).
const socketError = (code: string, message: string): Error => Object.assign(new Error(message), { code });
const phaseTimeout = (code: string): Error => socketError(code, 'timed out');
const context = { method: 'POST', url: 'http://127.0.0.1:19393/v2/images/8554f597-4961-4557-9ad1-1fbfef5ebc46/import' };

describe('networkError', () => {
  it.each([
    { name: 'connect timeout', error: phaseTimeout(PHASE_TIMEOUT.connect),
      code: 'FERRY_TIMEOUT_CONNECT', cause: PHASE_TIMEOUT.connect, notSent: true },
    { name: 'response timeout', error: phaseTimeout(PHASE_TIMEOUT.response),
      code: 'FERRY_TIMEOUT_RESPONSE', cause: PHASE_TIMEOUT.response, notSent: false },
    { name: 'body timeout', error: phaseTimeout(PHASE_TIMEOUT.bodyIdle),
      code: 'FERRY_TIMEOUT_BODY', cause: PHASE_TIMEOUT.bodyIdle, notSent: false },
    { name: 'connection refused', error: socketError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:19393'),
      code: 'FERRY_UNREACHABLE', cause: 'ECONNREFUSED', notSent: true },
    { name: 'unknown host', error: socketError('ENOTFOUND', 'getaddrinfo ENOTFOUND glance.invalid'),
      code: 'FERRY_UNREACHABLE', cause: 'ENOTFOUND', notSent: true },
    { name: 'connection reset', error: socketError('ECONNRESET', 'read ECONNRESET'),
      code: 'FERRY_UNREACHABLE', cause: 'ECONNRESET', notSent: false },
    { name: 'closed by the server', error: socketError('ECONNRESET', 'socket hang up'),
      code: 'FERRY_UNREACHABLE', cause: 'ECONNRESET', notSent: false },
  ])('networkError: $name → $code, notSent $notSent', ({ error, code, cause, notSent }) => {
    expect(networkError(error, context)).toMatchObject({ code, cause: error,
      details: { method: 'POST', url: context.url, cause, retryable: true, notSent } });
  });

  it('networkError: the message names the host, the request and the socket error', () => {
    const error = networkError(socketError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:19393'), context);
    expect(error.message).toBe(`cannot reach 127.0.0.1:19393 (POST ${context.url}): connect ECONNREFUSED 127.0.0.1:19393`);
  });

  it('networkError: a response timeout says the service accepted the request, and suggests a longer timeout', () => {
    const error = networkError(phaseTimeout(PHASE_TIMEOUT.response), context);
    expect(error.message).toBe(`127.0.0.1:19393 accepted POST ${context.url} but sent no answer in time`);
    expect(error.hint).toContain('raise the request timeout');
  });

  it('networkError: an AbortError → FERRY_ABORTED, not retryable', () => {
    const error = networkError(new DOMException('This operation was aborted', 'AbortError'), context);
    expect(error).toMatchObject({ code: 'FERRY_ABORTED', details: { method: 'POST', url: context.url } });
    expect(error.details.retryable).toBeUndefined();
  });

  it('networkError: any error once the signal is aborted → FERRY_ABORTED', () => {
    const error = networkError(socketError('ECONNRESET', 'read ECONNRESET'), { ...context, signal: AbortSignal.abort() });
    expect(error.code).toBe('FERRY_ABORTED');
  });

  it.each([
    { name: 'untrusted CA', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', kind: 'server-certificate', hint: /--os-cacert FILE/ },
    { name: 'expired certificate', code: 'CERT_HAS_EXPIRED', kind: 'certificate-dates', hint: /Renew the service's certificate/ },
    { name: 'wrong host name', code: 'ERR_TLS_CERT_ALTNAME_INVALID', kind: 'certificate-name', hint: /host name the certificate names/ },
    { name: 'https to a plain-http port', code: 'ERR_SSL_WRONG_VERSION_NUMBER', kind: 'handshake', hint: /speaks https on this port/ },
  ])('networkError: $name ($code) → FERRY_TLS, not retryable', ({ code, kind, hint }) => {
    const error = networkError(socketError(code, 'tls'), { method: 'GET', url: 'https://glance.example:9292/v2/images' });
    expect(error).toMatchObject({ code: 'FERRY_TLS', details: { tls: kind, cause: code, retryable: false, notSent: true } });
    expect(error.hint).toMatch(hint);
  });

  it.each([
    { given: false, alert: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', code: 'FERRY_TLS', hint: /^Give the client certificate and its key: --os-cert FILE/ },
    { given: true, alert: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', code: 'FERRY_TLS', hint: /^Give a client certificate the service trusts/ },
    { given: true, alert: 'closed-after-handshake', code: 'FERRY_TLS', hint: /^Give a client certificate the service trusts/ },
    { given: false, alert: 'closed-after-handshake', code: 'FERRY_UNREACHABLE', hint: /If the service requires a client certificate, give it: --os-cert FILE/ },
  ])('networkError: socket closed with $alert, client certificate given: $given → $code', ({ given, alert, code, hint }) => {
    const closed = socketError('ECONNRESET', 'socket hang up');
    const error = networkError(closed, { method: 'GET', url: 'https://placement.example/', tlsAlert: alert, clientCertificate: given });
    expect(error.code).toBe(code);
    expect(error.hint).toMatch(hint);
  });
});
