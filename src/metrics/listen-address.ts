import { isIP } from 'node:net';
import { FerryError } from '../errors/ferry-error.js';

/** Where a TCP listener binds: `host` is an IPv4 address, an IPv6 address (without brackets) or a host name. */
export interface ListenAddress {
  readonly host: string;
  /** 0: any free port (the listener logs the one it got). */
  readonly port: number;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const EXAMPLES = '127.0.0.1:9464, 0.0.0.0:9464 (every IPv4 interface), [::1]:9464 or [::]:9464';

/**
 * `HOST:PORT` as `--metrics-listen` takes it; an IPv6 host in brackets. The host is required: listening on every
 * interface must be asked for by name (0.0.0.0, [::]), never be what an empty host quietly means.
 */
export function parseListenAddress(value: string, from: string): ListenAddress {
  const invalid = (why: string): FerryError => new FerryError('FERRY_INVALID_OPTION',
    `${from} must be HOST:PORT, got ${JSON.stringify(value)}: ${why}`, `Pass e.g. ${EXAMPLES}.`, { option: from });
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(value);
  const plain = bracketed ? undefined : /^([^:[\]]*):([^:]*)$/.exec(value);
  const match = bracketed ?? plain;
  if (match === undefined || match === null) {
    if ((value.match(/:/g) ?? []).length > 1 && !value.startsWith('[')) throw invalid('an IPv6 address goes in brackets');
    if (/^\[[^\]]*\]$/.test(value)) throw invalid('no port');
    throw invalid(value.includes(':') ? 'not of the form HOST:PORT' : 'no port');
  }
  const [, host = '', portText = ''] = match;
  if (host === '') throw invalid('no host (name the interface; 0.0.0.0 or [::] for all)');
  if (bracketed ? isIP(host) !== 6 : !(isIP(host) === 4 || HOST_NAME.test(host))) {
    throw invalid(bracketed ? `'${host}' is not an IPv6 address` : `'${host}' is neither an IPv4 address nor a host name`);
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65_535) throw invalid(`the port must be a number from 0 to 65535, got '${portText}'`);
  return Object.freeze({ host, port: Number(portText) });
}

/** The address as `HOST:PORT` again (brackets around IPv6), for logs and reports. */
export function formatListenAddress(address: ListenAddress): string {
  return isIP(address.host) === 6 ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}
