import { describe, expect, it } from 'vitest';
import { formatListenAddress, parseListenAddress } from '../../../src/metrics/listen-address.js';

describe('parseListenAddress', () => {
  it.each([
    { value: '127.0.0.1:9464', host: '127.0.0.1', port: 9464 },
    { value: '0.0.0.0:9464', host: '0.0.0.0', port: 9464 },
    { value: 'localhost:9464', host: 'localhost', port: 9464 },
    { value: 'compute-7.example.net:65535', host: 'compute-7.example.net', port: 65_535 },
    { value: '[::1]:9464', host: '::1', port: 9464 },
    { value: '[::]:9464', host: '::', port: 9464 },
    { value: '[fd00:1::7]:9100', host: 'fd00:1::7', port: 9100 },
    { value: '127.0.0.1:0', host: '127.0.0.1', port: 0 },
  ])('parseListenAddress($value) → $host port $port', ({ value, host, port }) => {
    expect(parseListenAddress(value, '--metrics-listen')).toEqual({ host, port });
  });

  it.each([
    { value: '9464', why: /"9464": no port/ },
    { value: ':9464', why: /no host \(name the interface; 0\.0\.0\.0 or \[::\] for all\)/ },
    { value: '::1:9464', why: /an IPv6 address goes in brackets/ },
    { value: '[127.0.0.1]:9464', why: /'127\.0\.0\.1' is not an IPv6 address/ },
    { value: '[::1]', why: /no port/ },
    { value: '127.0.0.1:', why: /the port must be a number from 0 to 65535, got ''/ },
    { value: '127.0.0.1:65536', why: /got '65536'/ },
    { value: '127.0.0.1:http', why: /got 'http'/ },
    { value: '127.0.0.1:-1', why: /got '-1'/ },
    { value: 'bad_host:9464', why: /'bad_host' is neither an IPv4 address nor a host name/ },
    { value: '', why: /"": no port/ },
  ])('parseListenAddress($value): FERRY_INVALID_OPTION naming the flag and the fix', ({ value, why }) => {
    expect(() => parseListenAddress(value, '--metrics-listen')).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION',
      message: expect.stringMatching(new RegExp(`^--metrics-listen must be HOST:PORT, got .*${why.source}`)) as unknown,
      hint: expect.stringContaining('[::1]:9464') as unknown,
    }));
  });

  it.each([
    { address: { host: '127.0.0.1', port: 9464 }, text: '127.0.0.1:9464' },
    { address: { host: '::1', port: 9464 }, text: '[::1]:9464' },
    { address: { host: 'localhost', port: 1 }, text: 'localhost:1' },
  ])('formatListenAddress($text) round-trips', ({ address, text }) => {
    expect(formatListenAddress(address)).toBe(text);
    expect(parseListenAddress(text, 'x')).toEqual(address);
  });
});
