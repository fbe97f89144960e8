import { describe, expect, it } from 'vitest';
import { resolveWith, USER_CLOUDS } from './config-fixtures.js';

const K = 'http://127.0.0.1:15000/v3';
const PASSWORD_ENV = { OS_AUTH_URL: K, OS_USERNAME: 'demo', OS_PASSWORD: 'demo-secret', OS_PROJECT_NAME: 'demo' };

describe('resolveConfig credentials', () => {
  it.each([
    { case: 'an openrc with a password', env: PASSWORD_ENV, method: 'password', source: 'inferred from OS_PASSWORD' },
    { case: 'an application credential secret', env: { OS_AUTH_URL: K, OS_APPLICATION_CREDENTIAL_ID: 'c1', OS_APPLICATION_CREDENTIAL_SECRET: 's' },
      method: 'application_credential', source: 'inferred from OS_APPLICATION_CREDENTIAL_SECRET' },
    { case: 'a token without a password', env: { OS_TOKEN: 'tok' }, method: 'token', source: 'inferred from OS_TOKEN' },
    { case: 'OS_AUTH_TYPE=v3applicationcredential', env: { OS_AUTH_TYPE: 'v3applicationcredential', OS_AUTH_URL: K,
      OS_APPLICATION_CREDENTIAL_ID: 'c1', OS_APPLICATION_CREDENTIAL_SECRET: 's' }, method: 'application_credential', source: 'OS_AUTH_TYPE' },
    { case: 'OS_AUTH_TYPE=v3password', env: { ...PASSWORD_ENV, OS_AUTH_TYPE: 'v3password' }, method: 'password', source: 'OS_AUTH_TYPE' },
    { case: 'OS_AUTH_TYPE=v3token beats a password', env: { ...PASSWORD_ENV, OS_AUTH_TYPE: 'v3token', OS_TOKEN: 't' }, method: 'token',
      source: 'OS_AUTH_TYPE' },
    { case: 'a token next to a password', env: { ...PASSWORD_ENV, OS_TOKEN: 't' }, method: 'password', source: 'inferred from OS_PASSWORD' },
  ])('resolveConfig: the auth method of $case', ({ env, method, source }) => {
    const config = resolveWith({ env });
    expect(config.auth?.method).toBe(method);
    expect(config.sources['auth.method']).toBe(source);
  });

  it('resolveConfig: a password openrc becomes a password config with default domains', () => {
    const config = resolveWith({ env: PASSWORD_ENV });
    expect(config.auth).toEqual({ method: 'password', authUrl: K, username: 'demo', password: 'demo-secret',
      userDomain: { id: 'default' }, project: { name: 'demo', domain: { id: 'default' } } });
    expect(config.sources).toMatchObject({ 'auth.userDomain': 'default', 'auth.project.domain': 'default', 'auth.password': 'OS_PASSWORD' });
    expect(config.missingAuth).toEqual([]);
  });

  it.each([
    { case: 'an id and a name in the same layer: the id', env: { OS_PROJECT_ID: 'p-id', OS_PROJECT_NAME: 'p-name' }, flags: {},
      project: { id: 'p-id' }, source: 'OS_PROJECT_ID' },
    { case: 'a name in a higher layer beats an id below', env: { OS_PROJECT_ID: 'p-id' }, flags: { 'os-project-name': 'p-name' },
      project: { name: 'p-name' }, source: '--os-project-name' },
    { case: 'an id in a higher layer beats a name below', env: { OS_PROJECT_NAME: 'p-name' }, flags: { 'os-project-id': 'p-id' },
      project: { id: 'p-id' }, source: '--os-project-id' },
  ])('resolveConfig: project by $case', ({ env, flags, project, source }) => {
    const config = resolveWith({ flags, env: { OS_AUTH_URL: K, OS_USERNAME: 'u', OS_PASSWORD: 'p', ...env } });
    expect(config.auth).toMatchObject({ project });
    expect(config.sources['auth.project']).toBe(source);
  });

  it('resolveConfig: user and project domains by id or name', () => {
    const config = resolveWith({ env: { ...PASSWORD_ENV, OS_USER_DOMAIN_ID: 'd-user', OS_PROJECT_DOMAIN_NAME: 'Edge' } });
    expect(config.auth).toMatchObject({ userDomain: { id: 'd-user' }, project: { name: 'demo', domain: { name: 'Edge' } } });
  });

  it('resolveConfig: an application credential by name needs its owner', () => {
    const env = { OS_AUTH_URL: K, OS_APPLICATION_CREDENTIAL_NAME: 'demo-appcred', OS_APPLICATION_CREDENTIAL_SECRET: 's' };
    expect(resolveWith({ env }).missingAuth.map((p) => p.what)).toEqual(['user name (owner of the application credential)']);
    expect(resolveWith({ env: { ...env, OS_USERNAME: 'demo', OS_USER_DOMAIN_NAME: 'Default' } }).auth).toEqual({
      method: 'application_credential', authUrl: K, name: 'demo-appcred', secret: 's', user: { name: 'demo', domain: { name: 'Default' } },
    });
  });

  it('resolveConfig: a token with an auth URL keeps it (for the catalog)', () => {
    expect(resolveWith({ flags: { 'os-token': 't', 'os-auth-url': K } }).auth).toEqual({ method: 'token', token: 't', authUrl: K });
  });

  it.each([
    { case: 'nothing at all', env: {}, missing: ['auth URL', 'user name', 'password', 'project name or id'] },
    { case: 'an auth URL only', env: { OS_AUTH_URL: K }, missing: ['user name', 'password', 'project name or id'] },
    { case: 'a password openrc without project', env: { ...PASSWORD_ENV, OS_PROJECT_NAME: undefined }, missing: ['project name or id'] },
    { case: 'an application credential without secret', env: { OS_AUTH_TYPE: 'v3applicationcredential', OS_APPLICATION_CREDENTIAL_ID: 'c' },
      missing: ['auth URL', 'application credential secret'] },
    { case: 'OS_AUTH_TYPE=token alone', env: { OS_AUTH_TYPE: 'token' }, missing: ['token'] },
  ])('resolveConfig: missing credentials with $case', ({ env, missing }) => {
    const config = resolveWith({ env });
    expect(config.auth).toBeUndefined();
    expect(config.missingAuth.map((p) => p.what)).toEqual(missing);
    expect(Object.keys(config.sources).filter((k) => k.startsWith('auth.'))).toEqual([]);
  });

  it('resolveConfig: each missing piece lists every way to give it', () => {
    const project = resolveWith({ env: { OS_AUTH_URL: K } }).missingAuth.find((p) => p.what === 'project name or id');
    expect(project?.ways).toEqual(['--os-project-name', '--os-project-id', 'OS_PROJECT_NAME', 'OS_PROJECT_ID',
      'clouds.yaml auth.project_name', 'clouds.yaml auth.project_id']);
  });

  it('resolveConfig: an unknown auth type is rejected with the choices', () => {
    expect(() => resolveWith({ env: { OS_AUTH_TYPE: 'v3oidcpassword' } })).toThrow(
      "OS_AUTH_TYPE: expected one of password, v3password, v3applicationcredential, token, v3token, got 'v3oidcpassword'");
  });

  it('resolveConfig: clouds.yaml auth_type is read too', () => {
    const files = { [USER_CLOUDS]: 'clouds:\n  c:\n    auth_type: token\n    auth:\n      token: t\n      username: u\n      password: p\n' };
    expect(resolveWith({ flags: { 'os-cloud': 'c' }, files }).auth).toEqual({ method: 'token', token: 't' });
  });
});
