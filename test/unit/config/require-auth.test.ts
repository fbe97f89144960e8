import { describe, expect, it } from 'vitest';
import { requireAuth } from '../../../src/config/require-auth.js';
import { FIXTURE_FILES, resolveWith, USER_CLOUDS } from './config-fixtures.js';

describe('requireAuth', () => {
  it('requireAuth: returns complete credentials', () => {
    const config = resolveWith({ env: { OS_TOKEN: 't', OS_AUTH_URL: 'http://k:5000' } });
    expect(requireAuth(config, { services: ['image', 'placement'] })).toEqual({ method: 'token', token: 't', authUrl: 'http://k:5000' });
  });

  it('requireAuth: with nothing given, lists every piece and every way to give it', () => {
    expect(() => requireAuth(resolveWith())).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION',
      message: 'OpenStack credentials are missing or incomplete. Missing:\n'
        + '  - auth URL: --os-auth-url, OS_AUTH_URL or clouds.yaml auth.auth_url\n'
        + '  - user name: --os-username, OS_USERNAME or clouds.yaml auth.username\n'
        + '  - password: --os-password, OS_PASSWORD or clouds.yaml auth.password\n'
        + '  - project name or id: --os-project-name, --os-project-id, OS_PROJECT_NAME, OS_PROJECT_ID, '
        + 'clouds.yaml auth.project_name or clouds.yaml auth.project_id',
      hint: expect.stringContaining('--os-cloud NAME or OS_CLOUD') as unknown,
    }));
  });

  it('requireAuth: names the cloud whose entry is incomplete', () => {
    const files = { [USER_CLOUDS]: 'clouds:\n  edge:\n    auth:\n      auth_url: http://k:5000\n' };
    expect(() => requireAuth(resolveWith({ flags: { 'os-cloud': 'edge' }, files }))).toThrow(
      `OpenStack credentials are missing or incomplete (cloud 'edge' from ${USER_CLOUDS}). Missing:\n  - user name:`);
  });

  it('requireAuth: never shows the secrets that were given', () => {
    const config = resolveWith({ env: { OS_PASSWORD: 'Pa55-Hidden', OS_APPLICATION_CREDENTIAL_SECRET: undefined } });
    expect(() => requireAuth(config)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('Pa55-Hidden') as unknown }));
  });

  it.each([
    { services: ['image'] as const, missing: 'image', flag: '--glance-endpoint' },
    { services: ['image', 'placement'] as const, missing: 'placement', flag: '--placement-endpoint' },
  ])('requireAuth: a token without auth URL needs an endpoint for $missing', ({ services, missing, flag }) => {
    const config = resolveWith({ env: { OS_TOKEN: 't' }, flags: missing === 'placement' ? { 'glance-endpoint': 'http://g:9292' } : {} });
    expect(() => requireAuth(config, { services })).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION',
      message: `A token without an auth URL gives no service catalog, and no endpoint is set for ${missing}`,
      hint: expect.stringContaining(flag) as unknown,
    }));
  });

  it('requireAuth: a token with explicit endpoints needs no Keystone', () => {
    const config = resolveWith({ flags: { 'os-cloud': 'token-direct' }, files: FIXTURE_FILES });
    expect(requireAuth(config, { services: ['image', 'placement'] })).toEqual({ method: 'token', token: 'gAAAAABrAeYkT4sCsqwgG-fixture-token' });
  });
});
