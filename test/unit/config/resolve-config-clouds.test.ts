import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve-config.js';
import { CWD, FIXTURE_FILES, HOME, resolveWith, USER_CLOUDS, USER_SECURE } from './config-fixtures.js';

const cloudsLabel = `clouds.yaml (${USER_CLOUDS})`;
const secureLabel = `secure.yaml (${USER_SECURE})`;

describe('resolveConfig with clouds.yaml', () => {
  it.each([
    {
      cloud: 'central',
      auth: {
        method: 'password', authUrl: 'http://10.20.0.10:5000/v3', username: 'admin', password: 'Admin#Secret',
        userDomain: { name: 'Default' }, project: { name: 'admin', domain: { name: 'Default' } },
      },
      endpoints: { interface: 'public', region: 'RegionOne' },
      tls: { verify: true },
    },
    {
      cloud: 'site-b-appcred',
      auth: { method: 'application_credential', authUrl: 'http://10.20.0.10:5000/v3', id: '938583ab3aa941c489debef747708265',
        secret: '5d30n-1mPY4c-fixture-secret' },
      endpoints: { interface: 'internal' },
      tls: { caFile: '/etc/ssl/certs/site-b-ca.pem', verify: true },
    },
    {
      cloud: 'site-b-appcred-by-name',
      auth: { method: 'application_credential', authUrl: 'http://10.20.0.10:5000/v3', name: 'demo-appcred',
        user: { name: 'demo', domain: { id: 'default' } }, secret: 'by-name-fixture-secret' },
      endpoints: { interface: 'public' },
      tls: { verify: true },
    },
    {
      cloud: 'token-direct',
      auth: { method: 'token', token: 'gAAAAABrAeYkT4sCsqwgG-fixture-token' },
      endpoints: { interface: 'public', overrides: { image: 'http://127.0.0.1:19393', placement: 'http://127.0.0.1:18779' } },
      tls: { verify: false },
    },
    {
      cloud: 'multi-region',
      auth: { method: 'password', authUrl: 'https://keystone.example.org:5000', username: 'demo', password: 'demo-secret',
        userDomain: { name: 'Default' }, project: { id: '0123456789', domain: { name: 'Default' } } },
      endpoints: { interface: 'public', region: 'site-a' },
      tls: { verify: true },
    },
  ])('resolveConfig: cloud $cloud', ({ cloud, auth, endpoints, tls }) => {
    const config = resolveWith({ flags: { 'os-cloud': cloud }, files: FIXTURE_FILES });
    expect(config.auth).toEqual(auth);
    expect(config.endpoints).toMatchObject(endpoints);
    expect(config.tls).toEqual(tls);
    expect(config.origin).toEqual({ cloud, cloudsFile: USER_CLOUDS, secureFile: USER_SECURE });
    expect(config.sources['origin.cloud']).toBe('--os-cloud');
  });

  it('resolveConfig: secure.yaml values are merged in and named as their source', () => {
    const config = resolveWith({ env: { OS_CLOUD: 'central' }, files: FIXTURE_FILES });
    expect(config.sources).toMatchObject({
      'origin.cloud': 'OS_CLOUD',
      'auth.password': `${secureLabel} clouds.central.auth.password`,
      'auth.username': `${cloudsLabel} clouds.central.auth.username`,
      'auth.method': `inferred from ${secureLabel} clouds.central.auth.password`,
    });
  });

  it('resolveConfig: secure.yaml wins over clouds.yaml for the same key', () => {
    const files = {
      [USER_CLOUDS]: 'clouds:\n  c:\n    auth:\n      auth_url: http://k\n      token: from-clouds\n',
      [USER_SECURE]: 'clouds:\n  c:\n    auth:\n      token: from-secure\n',
    };
    expect(resolveWith({ flags: { 'os-cloud': 'c' }, files }).auth).toEqual({ method: 'token', token: 'from-secure', authUrl: 'http://k' });
  });

  it('resolveConfig: a cloud defined only in secure.yaml is found', () => {
    const files = { [USER_SECURE]: 'clouds:\n  hidden:\n    auth:\n      token: t\n' };
    expect(resolveWith({ flags: { 'os-cloud': 'hidden' }, files }).auth).toEqual({ method: 'token', token: 't' });
  });

  it('resolveConfig: ./clouds.yaml is found before ~/.config/openstack/clouds.yaml; secure.yaml is searched on its own', () => {
    const files = { ...FIXTURE_FILES, [`${CWD}/clouds.yaml`]: 'clouds:\n  central:\n    auth:\n      auth_url: http://local:5000\n' };
    const config = resolveWith({ flags: { 'os-cloud': 'central' }, files });
    expect(config.origin).toEqual({ cloud: 'central', cloudsFile: `${CWD}/clouds.yaml`, secureFile: USER_SECURE });
    // The local file has no user or project; the password still comes from ~/.config/openstack/secure.yaml.
    expect(config.missingAuth.map((p) => p.what)).toEqual(['user name', 'project name or id']);
  });

  it('resolveConfig: OS_CLIENT_CONFIG_FILE names the file', () => {
    const files = { '/opt/site/clouds-site-b.yaml': 'clouds:\n  b:\n    auth:\n      token: t\n' };
    const config = resolveWith({ env: { OS_CLIENT_CONFIG_FILE: '/opt/site/clouds-site-b.yaml', OS_CLOUD: 'b' }, files });
    expect(config.origin.cloudsFile).toBe('/opt/site/clouds-site-b.yaml');
  });

  it('resolveConfig: the only cloud of clouds.yaml is used when nothing names one and no OS_* credentials are set', () => {
    const files = { [USER_CLOUDS]: 'clouds:\n  solo:\n    auth:\n      token: t\n' };
    const config = resolveWith({ env: { OS_REGION_NAME: 'RegionOne' }, files });
    expect(config.origin.cloud).toBe('solo');
    expect(config.sources['origin.cloud']).toBe(`the only cloud in ${cloudsLabel}`);
  });

  it('resolveConfig: OS_* credentials in the environment make the lone cloud unused (openstacksdk)', () => {
    const files = { [USER_CLOUDS]: 'clouds:\n  solo:\n    auth:\n      token: t\n' };
    expect(resolveWith({ env: { OS_TOKEN: 'env-token' }, files }).origin.cloud).toBeUndefined();
  });

  it('resolveConfig: with several clouds and none named, none is used', () => {
    const config = resolveWith({ files: FIXTURE_FILES });
    expect(config.origin).toEqual({});
    expect(config.auth).toBeUndefined();
  });

  it('resolveConfig: flags and variables override clouds.yaml key by key', () => {
    const config = resolveWith({
      flags: { 'os-cloud': 'central', osProjectName: 'demo' },
      env: { OS_USERNAME: 'demo', OS_REGION_NAME: 'RegionTwo' },
      files: FIXTURE_FILES,
    });
    expect(config.auth).toMatchObject({ username: 'demo', password: 'Admin#Secret', project: { name: 'demo' } });
    expect(config.endpoints.region).toBe('RegionTwo');
    expect(config.sources).toMatchObject({ 'auth.project': '--os-project-name', 'auth.username': 'OS_USERNAME',
      'endpoints.region': 'OS_REGION_NAME' });
  });

  it('resolveConfig: a regions list makes its first entry the default region', () => {
    const config = resolveWith({ flags: { 'os-cloud': 'multi-region' }, files: FIXTURE_FILES });
    expect(config.endpoints.region).toBe('site-a');
    expect(config.sources['endpoints.region']).toBe(`${cloudsLabel} clouds.multi-region.regions.0`);
  });

  it('resolveConfig: a region outside the cloud\'s regions list is an error naming the choices', () => {
    expect(() => resolveWith({ flags: { 'os-cloud': 'multi-region', 'os-region-name': 'site-c' }, files: FIXTURE_FILES }))
      .toThrow("--os-region-name: expected one of the regions of cloud 'multi-region' (site-a, site-b), got 'site-c'");
  });

  it('resolveConfig: clouds.yaml keys api_timeout, insecure and verify', () => {
    const files = { [USER_CLOUDS]: 'clouds:\n  c:\n    api_timeout: 12\n    insecure: true\n' };
    const config = resolveWith({ flags: { 'os-cloud': 'c' }, files });
    expect(config.http.requestTimeoutMs).toBe(12_000);
    expect(config.tls.verify).toBe(false);
    expect(config.sources['tls.verify']).toBe(`${cloudsLabel} clouds.c.insecure`);
  });

  it('resolveConfig: auth.domain_name stands for both user and project domain', () => {
    const config = resolveWith({ flags: { 'os-cloud': 'multi-region' }, files: FIXTURE_FILES });
    expect(config.sources['auth.userDomain']).toBe(`${cloudsLabel} clouds.multi-region.auth.domain_name`);
  });

  it('resolveConfig: no file is read when no cloud is asked for and OS_* credentials are set', () => {
    const read: string[] = [];
    resolveConfig({ flags: {}, env: { OS_AUTH_URL: 'http://k' }, cwd: CWD, homeDir: HOME, readFile: (path) => {
      read.push(path);
      return undefined;
    } });
    expect(read).toEqual([]);
  });

  it('resolveConfig as root: a clouds.yaml and secure.yaml in the working directory are not read; ~/.config/openstack\'s are', () => {
    const planted: Record<string, string> = { [`${CWD}/clouds.yaml`]: 'clouds:\n  central:\n    auth:\n      auth_url: http://attacker.example:5000/v3\n',
      [`${CWD}/secure.yaml`]: 'clouds:\n  central:\n    auth:\n      auth_url: http://attacker.example:5000/v3\n' };
    const files: Record<string, string | undefined> = { ...FIXTURE_FILES, ...planted };
    const asRoot = resolveConfig({ flags: { 'os-cloud': 'central' }, env: {}, cwd: CWD, homeDir: HOME, euid: 0, readFile: (path) => files[path] });
    expect(asRoot.origin).toEqual({ cloud: 'central', cloudsFile: USER_CLOUDS, secureFile: USER_SECURE });
    expect(asRoot.auth).toMatchObject({ authUrl: 'http://10.20.0.10:5000/v3' });
    const asUser = resolveConfig({ flags: { 'os-cloud': 'central' }, env: {}, cwd: CWD, homeDir: HOME, euid: 1000, readFile: (path) => files[path] });
    expect(asUser.origin).toMatchObject({ cloudsFile: `${CWD}/clouds.yaml` });
  });
});
