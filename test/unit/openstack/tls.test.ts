// TLS against real loopback https servers with a private CA made for this run (not nock: the handshake is the point,
// so nock is switched off here; its pass-through socket would stand between ferry's agent and the server).
// One server only needs its certificate trusted; the other also requires a client certificate signed by the CA.
import { rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFerryError, type FerryError } from '../../../src/errors/ferry-error.js';
import { createHttpTransport, type HttpTransportOptions } from '../../../src/openstack/http-transport.js';
import { loadExchange } from '../../helpers/fixtures.js';
import { createPrivateCa, PRIVATE_CA_MS, startHttpsServer, type PrivateCa } from '../../helpers/private-ca.js';
import { runFerry } from '../../helpers/run-ferry.js';

let ca: PrivateCa;
let plain: { server: Server; url: string };
let mutual: { server: Server; url: string };
let glance: { server: Server; url: string };
const IMAGE = loadExchange('glance', 'image-active-site-a').body as { id: string };

beforeAll(async () => {
  nock.restore();
  ca = createPrivateCa();
  plain = await startHttpsServer(ca, false, { versions: 'plain' });
  mutual = await startHttpsServer(ca, true, { versions: 'mutual' });
  glance = await startHttpsServer(ca, true, IMAGE);
}, PRIVATE_CA_MS + 10_000);

afterAll(async () => {
  await Promise.all([plain, mutual, glance].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  rmSync(ca.dir, { recursive: true, force: true });
  nock.activate();
});

async function get(url: string, options: HttpTransportOptions): Promise<unknown> {
  const transport = createHttpTransport({ connectTimeoutMs: 5000, responseTimeoutMs: 5000, ...options });
  try {
    return (await transport.send({ method: 'GET', url: `${url}/v2/images` })).body;
  } finally {
    await transport.close();
  }
}

async function failure(url: string, options: HttpTransportOptions): Promise<FerryError> {
  const outcome = await get(url, options).then((body) => ({ body }), (error: unknown) => ({ error }));
  if (!('error' in outcome) || !isFerryError(outcome.error)) throw new Error(`expected a FerryError, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe('TLS (loopback https, private CA)', () => {
  it('TLS: a certificate from an untrusted CA → FERRY_TLS with a hint naming --os-cacert and cacert, not FERRY_UNREACHABLE', async () => {
    const error = await failure(plain.url, {});
    expect(error.code).toBe('FERRY_TLS');
    expect(error.message).toMatch(/^TLS with 127\.0\.0\.1:\d+ failed \(GET https:\/\/127\.0\.0\.1:\d+\/v2\/images\): its certificate is not signed by a CA ferry trusts: /);
    expect(error.hint).toContain('--os-cacert FILE');
    expect(error.hint).toContain('`cacert` in clouds.yaml');
    expect(error.details).toMatchObject({ tls: 'server-certificate', cause: 'SELF_SIGNED_CERT_IN_CHAIN', retryable: false });
  });

  it('TLS: with the CA bundle (--os-cacert) the same server answers', async () => {
    expect(await get(plain.url, { caFile: ca.caFile })).toEqual({ versions: 'plain' });
  });

  it('TLS: --insecure skips the check', async () => {
    expect(await get(plain.url, { verifyTls: false })).toEqual({ versions: 'plain' });
  });

  it('TLS: a server that requires a client certificate, none given → FERRY_TLS naming --os-cert and --os-key', async () => {
    const error = await failure(mutual.url, { caFile: ca.caFile });
    expect(error.code).toBe('FERRY_TLS');
    expect(error.message).toMatch(/: the service requires a client certificate, and none was given: the server sent the TLS alert ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED$/);
    expect(error.hint).toBe('Give the client certificate and its key: --os-cert FILE and --os-key FILE (or OS_CERT / OS_KEY, '
      + '`cert` / `key` in clouds.yaml, nova.conf [glance] certfile / keyfile).');
    expect(error.details).toMatchObject({ tls: 'client-certificate', retryable: false });
  });

  it('TLS: with the client certificate and key it answers; also with both in one PEM file', async () => {
    expect(await get(mutual.url, { caFile: ca.caFile, certFile: ca.clientCert, keyFile: ca.clientKey })).toEqual({ versions: 'mutual' });
    expect(await get(mutual.url, { caFile: ca.caFile, certFile: ca.clientBoth })).toEqual({ versions: 'mutual' });
  });

  it('TLS: a client certificate from another CA → FERRY_TLS: the service refused it', async () => {
    const error = await failure(mutual.url, { caFile: ca.caFile, certFile: ca.strangerCert, keyFile: ca.strangerKey });
    expect(error.code).toBe('FERRY_TLS');
    expect(error.message).toContain('the service refused the client certificate');
    expect(error.hint).toContain('--os-cert FILE and --os-key FILE');
  });

  it('TLS: a key that does not belong to the certificate is FERRY_INVALID_OPTION before any request', () => {
    expect(() => createHttpTransport({ certFile: ca.clientCert, keyFile: ca.strangerKey })).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION', message: `the client key ${ca.strangerKey} does not belong to the certificate ${ca.clientCert}` }));
  });

  it('TLS: an unreadable CA bundle is FERRY_INVALID_OPTION naming it', () => {
    expect(() => createHttpTransport({ caFile: `${ca.dir}/missing.pem` })).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION', message: expect.stringMatching(/^cannot read the CA bundle .*missing\.pem: ENOENT/) as unknown }));
  });

  it('TLS: the connector keeps the connect timeout: a server that never answers the handshake → FERRY_TIMEOUT_CONNECT', async () => {
    const accepted: Socket[] = [];
    const silent = createNetServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const error = await failure(`https://127.0.0.1:${port}`, { connectTimeoutMs: 200, caFile: ca.caFile });
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    expect(error.code).toBe('FERRY_TIMEOUT_CONNECT');
  });

  it('TLS: plain http to an https port is not called a certificate problem (FERRY_UNREACHABLE)', async () => {
    const error = await failure(plain.url.replace('https:', 'http:'), {});
    expect(error.code).toBe('FERRY_UNREACHABLE');
  });
});

describe('ferry CLI over TLS (a Glance that requires a client certificate)', () => {
  const args = () => ['status', IMAGE.id, '--os-token', 'test-token', '--glance-endpoint', glance.url, '--json'];

  it('ferry status: untrusted certificate → exit 19, FERRY_TLS naming --os-cacert', async () => {
    const run = await runFerry(args());
    expect(run.code).toBe(19);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; hint: string } };
    expect(error.code).toBe('FERRY_TLS');
    expect(error.hint).toContain('--os-cacert FILE');
  });

  it('ferry status: OS_CACERT but no client certificate → exit 19 naming --os-cert / --os-key', async () => {
    const run = await runFerry(args(), { env: { OS_CACERT: ca.caFile } });
    expect(run.code).toBe(19);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_TLS', hint: expect.stringContaining('--os-cert FILE and --os-key FILE') as unknown } });
  });

  it('ferry status: --os-cacert, --os-cert and --os-key → the image', async () => {
    const run = await runFerry([...args(), '--os-cacert', ca.caFile, '--os-cert', ca.clientCert, '--os-key', ca.clientKey]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ image: IMAGE.id });
  });

  it('ferry status: the same files from nova.conf [glance] cafile / certfile / keyfile', async () => {
    const novaConf = `${ca.dir}/nova.conf`;
    writeFileSync(novaConf, `[glance]\ncafile = ${ca.caFile}\ncertfile = ${ca.clientCert}\nkeyfile = ${ca.clientKey}\n`);
    const run = await runFerry([...args(), '--nova-conf', novaConf]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });
});

