import { describe, expect, it } from 'vitest';
import { normalizeFlagName } from '../../../src/config/config-layers.js';
import { resolveWith } from './config-fixtures.js';

describe('ConfigLayers', () => {
  it.each([
    { name: 'os-auth-url', expected: 'os-auth-url' }, { name: 'osAuthUrl', expected: 'os-auth-url' },
    { name: '--os-auth-url', expected: 'os-auth-url' }, { name: 'insecure', expected: 'insecure' },
  ])('normalizeFlagName($name)', ({ name, expected }) => {
    expect(normalizeFlagName(name)).toBe(expected);
  });

  it('ConfigLayers: a bare flag set to false or undefined is not given', () => {
    const config = resolveWith({ flags: { insecure: false, debug: undefined }, env: { OS_INSECURE: 'true' } });
    expect(config.tls.verify).toBe(false);
    expect(config.sources['tls.verify']).toBe('OS_INSECURE');
  });

  it('ConfigLayers: an empty variable is unset', () => {
    const config = resolveWith({ env: { OS_REGION_NAME: '', FERRY_STORE: '' } });
    expect(config.endpoints.region).toBeUndefined();
    expect(config.copy.store).toBeUndefined();
  });

  it('ConfigLayers: a repeated flag counts once, with its last value', () => {
    expect(resolveWith({ flags: { store: ['site-a', 'site-b'] } }).copy.store).toBe('site-b');
  });

  it('ConfigLayers: unknown flags are ignored', () => {
    expect(resolveWith({ flags: { image: 'cirros', 'dry-run': true } }).copy.store).toBeUndefined();
  });
});
