// A private CA made for one test run with the openssl CLI: a server certificate for 127.0.0.1, a client certificate
// it signed, and a second CA the servers do not trust. Files live in a temporary directory the caller removes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateCa {
  readonly dir: string;
  readonly caFile: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A client certificate and key signed by another CA. */
  readonly strangerCert: string;
  readonly strangerKey: string;
  /** The client certificate and its key in one PEM file. */
  readonly clientBoth: string;
}

/** One openssl call (an RSA key and a certificate, or a signature). */
const OPENSSL_MS = 15_000;
/** createPrivateCa runs openssl 8 times: the hook that calls it needs this limit. */
export const PRIVATE_CA_MS = 8 * OPENSSL_MS;

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], timeout: OPENSSL_MS });
}

function issue(dir: string, name: string, subject: string, ca: string, extensions?: string): void {
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  const ext = extensions === undefined ? [] : ['-extfile', `${name}.ext`];
  if (extensions !== undefined) writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial',
    '-out', `${name}.pem`, '-days', '2', ...ext]);
}

export function createPrivateCa(): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-tls-'));
  for (const ca of ['ca', 'other-ca']) {
    openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${ca}.key`, '-out', `${ca}.pem`, '-days', '2',
      '-subj', `/CN=ferry test ${ca}`]);
  }
  issue(dir, 'server', '/CN=127.0.0.1', 'ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  issue(dir, 'client', '/CN=ferry-client', 'ca');
  issue(dir, 'stranger', '/CN=ferry-stranger', 'other-ca');
  const file = (name: string) => join(dir, name);
  writeFileSync(file('client-both.pem'), readFileSync(file('client.pem'), 'utf8') + readFileSync(file('client.key'), 'utf8'));
  return {
    dir, caFile: file('ca.pem'), serverCert: file('server.pem'), serverKey: file('server.key'),
    clientCert: file('client.pem'), clientKey: file('client.key'), strangerCert: file('stranger.pem'), strangerKey: file('stranger.key'),
    clientBoth: file('client-both.pem'),
  };
}

/** An https server on 127.0.0.1 answering every request with `body` as JSON; `requireClientCert`: mutual TLS. */
export async function startHttpsServer(ca: PrivateCa, requireClientCert: boolean, body: unknown): Promise<{ server: Server; url: string }> {
  const server = createServer({
    key: readFileSync(ca.serverKey), cert: readFileSync(ca.serverCert), ca: readFileSync(ca.caFile),
    requestCert: requireClientCert, rejectUnauthorized: requireClientCert,
  }, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `https://127.0.0.1:${address.port}` };
}
