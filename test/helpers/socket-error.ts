/**
 * The error a socket fails with (`connect ECONNREFUSED`, `read ECONNRESET`), for nock's replyWithError: an Error with
 * the socket's code, as node:http emits it. (nock hands a plain `{ code }` object to a ClientRequest as no error at all.)
 */
export function socketError(code: 'ECONNREFUSED' | 'ECONNRESET'): Error {
  return Object.assign(new Error(code === 'ECONNREFUSED' ? 'connect ECONNREFUSED' : 'read ECONNRESET'), { code });
}
