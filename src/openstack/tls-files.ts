import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { FerryError } from '../errors/ferry-error.js';

export interface TlsFiles {
  readonly caFile?: string | undefined;
  /** Client certificate (PEM); may hold the private key too. */
  readonly certFile?: string | undefined;
  /** Private key (PEM) of certFile; undefined = the key is in certFile. */
  readonly keyFile?: string | undefined;
  readonly verifyTls: boolean;
}

/**
 * `closed-after-handshake`: a TLS connection the server closed without sending a byte of answer, and without an alert
 * ferry could see — what a server does when it refuses a client certificate without telling why (Node's https server
 * does exactly this for an untrusted one).
 */
export const CLOSED_AFTER_HANDSHAKE = 'closed-after-handshake';

/** What node:https takes for ferry's TLS files: the CA bundle, the client certificate and key, and whether to verify. */
export interface TlsOptions {
  readonly rejectUnauthorized: boolean;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/**
 * ferry's TLS files, read and checked (PEM, the key matches the certificate) now: a bad file is FERRY_INVALID_OPTION
 * before any request, instead of failing each one.
 */
export function readTlsFiles(options: TlsFiles): TlsOptions {
  const tls = {
    rejectUnauthorized: options.verifyTls,
    ...(options.caFile === undefined ? {} : { ca: readPem(options.caFile, 'caFile', 'CA bundle', CA_HINT) }),
    ...(options.certFile === undefined ? {} : {
      cert: readPem(options.certFile, 'certFile', 'client certificate', CERT_HINT),
      key: readPem(options.keyFile ?? options.certFile, options.keyFile === undefined ? 'certFile' : 'keyFile', 'client key', CERT_HINT),
    }),
  };
  checkContext(tls, options);
  return tls;
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
