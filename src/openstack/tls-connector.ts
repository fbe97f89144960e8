import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { buildConnector as BuildConnector } from 'undici';
import { FerryError } from '../errors/ferry-error.js';
import { buildConnector } from './undici-parts.js';

export interface TlsFiles {
  readonly caFile?: string | undefined;
  /** Client certificate (PEM); may hold the private key too. */
  readonly certFile?: string | undefined;
  /** Private key (PEM) of certFile; undefined = the key is in certFile. */
  readonly keyFile?: string | undefined;
  readonly verifyTls: boolean;
  readonly connectTimeoutMs: number;
}

/**
 * `closed-after-handshake`: a TLS connection the server closed without sending a byte of answer, and without an alert
 * ferry could see — what a server does when it refuses a client certificate without telling why (Node's https server
 * does exactly this for an untrusted one).
 */
export const CLOSED_AFTER_HANDSHAKE = 'closed-after-handshake';

/** What a TLS connector offers the transport: undici's `connect` function, and what a failed socket's TLS saw. */
export interface TlsConnector {
  readonly connect: BuildConnector.connector;
  /**
   * For the error of a failed request: the TLS alert (`ERR_SSL_…`) its socket received, found by the socket's local
   * address; CLOSED_AFTER_HANDSHAKE (above); or undefined.
   */
  alertFor(error: unknown): string | undefined;
  /** Whether a client certificate is configured (for messages). */
  readonly hasClientCertificate: boolean;
}

const MAX_REMEMBERED_SOCKETS = 256;

/**
 * undici's connector with ferry's TLS files, which also remembers the TLS alert each socket failed with. Under TLS
 * 1.3 a server that demands a client certificate completes the handshake and then sends the `certificate required`
 * alert; undici reports only "other side closed" for the request, so the alert is looked up here, by the socket's
 * local address and port, which undici's error carries. Files are read and checked (PEM, key matches certificate)
 * now: a bad file is FERRY_INVALID_OPTION before any request.
 */
export function createTlsConnector(options: TlsFiles): TlsConnector {
  const tls = {
    rejectUnauthorized: options.verifyTls,
    ...(options.caFile === undefined ? {} : { ca: readPem(options.caFile, 'caFile', 'CA bundle', CA_HINT) }),
    ...(options.certFile === undefined ? {} : {
      cert: readPem(options.certFile, 'certFile', 'client certificate', CERT_HINT),
      key: readPem(options.keyFile ?? options.certFile, options.keyFile === undefined ? 'certFile' : 'keyFile', 'client key', CERT_HINT),
    }),
  };
  checkContext(tls, options);
  const base = buildConnector({ ...tls, timeout: options.connectTimeoutMs });
  /** By `localAddress:localPort` of each TLS socket: the alert it failed with, or '' while none. Oldest dropped first. */
  const alerts = new Map<string, string>();
  const remember = (key: string, value: string): void => {
    if (!alerts.has(key) && alerts.size >= MAX_REMEMBERED_SOCKETS) alerts.delete(alerts.keys().next().value ?? '');
    alerts.set(key, value);
  };
  return {
    hasClientCertificate: options.certFile !== undefined,
    connect(connectOptions, callback) {
      base(connectOptions, (...args) => {
        const socket = args[1];
        if (socket !== null && socket !== undefined && connectOptions.protocol === 'https:') {
          // Known now: once the socket is closed its local port reads undefined.
          const key = `${socket.localAddress ?? ''}:${socket.localPort ?? ''}`;
          remember(key, '');
          socket.on('error', (error: NodeJS.ErrnoException) => {
            if (typeof error.code === 'string' && error.code.startsWith('ERR_SSL_')) remember(key, error.code);
          });
        }
        callback(...args);
      });
    },
    alertFor(error) {
      const socket = findSocketInfo(error);
      if (socket === undefined) return undefined;
      const key = `${socket.localAddress}:${socket.localPort}`;
      const alert = alerts.get(key);
      alerts.delete(key);
      if (alert === undefined) return undefined;
      if (alert !== '') return alert;
      return socket.code === 'UND_ERR_SOCKET' && socket.bytesRead === 0 ? CLOSED_AFTER_HANDSHAKE : undefined;
    },
  };
}

const CA_HINT = 'Point --os-cacert (or OS_CACERT, clouds.yaml cacert, nova.conf [glance] cafile) at a readable PEM file.';
const CERT_HINT = 'Point --os-cert / --os-key (or OS_CERT / OS_KEY, clouds.yaml cert / key, nova.conf [glance] certfile / keyfile) '
  + 'at the PEM certificate and its private key.';

function readPem(path: string, option: 'caFile' | 'certFile' | 'keyFile', what: string, hint: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new FerryError('FERRY_INVALID_OPTION', `cannot read the ${what} ${path}: ${(error as Error).message}`, hint,
      { [option]: path }, { cause: error });
  }
}

/** OpenSSL parses the files now, so a wrong or mismatched file is named before any request instead of failing each one. */
function checkContext(tls: { ca?: string; cert?: string; key?: string }, options: TlsFiles): void {
  try {
    createSecureContext(tls);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const mismatch = code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH';
    const files = [options.caFile, options.certFile, options.keyFile].filter((f) => f !== undefined).join(', ');
    throw new FerryError('FERRY_INVALID_OPTION',
      mismatch ? `the client key ${options.keyFile ?? options.certFile ?? ''} does not belong to the certificate ${options.certFile ?? ''}`
        : `the TLS files (${files}) are not usable PEM: ${(error as Error).message}`,
      mismatch ? CERT_HINT : `${CA_HINT} ${CERT_HINT}`, { files, cause: code }, { cause: error });
  }
}

interface SocketInfo {
  readonly localAddress: string;
  readonly localPort: number;
  /** The code of the error that carried the socket (`UND_ERR_SOCKET`). */
  readonly code: unknown;
  /** Bytes of answer the socket had received (over its whole life: 0 on a reused keep-alive socket is impossible). */
  readonly bytesRead: unknown;
}

/** undici's SocketError carries `socket: { localAddress, localPort, … }`, somewhere in fetch's cause chain. */
function findSocketInfo(error: unknown): SocketInfo | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const socket = (current as { socket?: unknown }).socket;
    if (typeof socket === 'object' && socket !== null) {
      const { localAddress, localPort, bytesRead } = socket as { localAddress?: unknown; localPort?: unknown; bytesRead?: unknown };
      const code = (current as { code?: unknown }).code;
      if (typeof localAddress === 'string' && typeof localPort === 'number') return { localAddress, localPort, code, bytesRead };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
