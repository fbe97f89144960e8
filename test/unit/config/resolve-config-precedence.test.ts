import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { FerryConfig } from '../../../src/config/ferry-config.js';
import { CONFIG_DEFAULTS } from '../../../src/config/config-defaults.js';
import { NOVA_CONF, resolveWith, USER_CLOUDS } from './config-fixtures.js';

type Layer = 'flag' | 'env' | 'clouds' | 'nova' | 'default';
const ORDER: readonly Layer[] = ['flag', 'env', 'clouds', 'nova', 'default'];

interface Setting {
  readonly key: string;
  readonly read: (config: FerryConfig) => unknown;
  readonly flag?: { readonly name: string; readonly raw: string | true; readonly value: unknown };
  readonly env?: { readonly name: string; readonly raw: string; readonly value: unknown };
  readonly clouds?: { readonly path: string; readonly raw: string; readonly value: unknown };
  readonly nova?: { readonly section: string; readonly option: string; readonly raw: string; readonly value: unknown };
  /** undefined: the setting has no default and no source when nothing sets it. */
  readonly fallback?: unknown;
  /** The fallback's source when it is not 'default' (nova's own default, which applies because a nova.conf is read). */
  readonly fallbackSource?: string;
}

/** Every setting that more than one layer can give, with a distinct value per layer. */
const SETTINGS: readonly Setting[] = [
  { key: 'copy.store', read: (c) => c.copy.store, flag: { name: 'store', raw: 'flag-store', value: 'flag-store' },
    env: { name: 'FERRY_STORE', raw: 'env-store', value: 'env-store' },
    nova: { section: 'libvirt', option: 'images_rbd_glance_store_name', raw: 'nova-store', value: 'nova-store' } },
  { key: 'copy.pollIntervalMs', read: (c) => c.copy.pollIntervalMs, flag: { name: 'poll-interval', raw: '2', value: 2000 },
    env: { name: 'FERRY_POLL_INTERVAL', raw: '3.5', value: 3500 },
    nova: { section: 'libvirt', option: 'images_rbd_glance_copy_poll_interval', raw: '4', value: 4000 }, fallback: 15_000 },
  { key: 'copy.timeoutMs', read: (c) => c.copy.timeoutMs, flag: { name: 'timeout', raw: '60', value: 60_000 },
    env: { name: 'FERRY_TIMEOUT', raw: '120', value: 120_000 },
    nova: { section: 'libvirt', option: 'images_rbd_glance_copy_timeout', raw: '300', value: 300_000 }, fallback: 600_000 },
  { key: 'copy.staleLockAfterMs', read: (c) => c.copy.staleLockAfterMs, flag: { name: 'stale-lock-after', raw: '600', value: 600_000 },
    env: { name: 'FERRY_STALE_LOCK_AFTER', raw: '1800', value: 1_800_000 }, fallback: 600_000 },
  { key: 'ceph.confFile', read: (c) => c.ceph.confFile, flag: { name: 'ceph-conf', raw: 'site.conf', value: '/srv/work/site.conf' },
    env: { name: 'FERRY_CEPH_CONF', raw: '/etc/ceph/env.conf', value: '/etc/ceph/env.conf' },
    nova: { section: 'libvirt', option: 'images_rbd_ceph_conf', raw: '/etc/ceph/nova.conf', value: '/etc/ceph/nova.conf' } },
  { key: 'ceph.user', read: (c) => c.ceph.user, flag: { name: 'rbd-user', raw: 'flag-user', value: 'flag-user' },
    env: { name: 'FERRY_RBD_USER', raw: 'env-user', value: 'env-user' },
    nova: { section: 'libvirt', option: 'rbd_user', raw: 'nova-user', value: 'nova-user' } },
  { key: 'ceph.pool', read: (c) => c.ceph.pool, flag: { name: 'rbd-pool', raw: 'flag-pool', value: 'flag-pool' },
    env: { name: 'FERRY_RBD_POOL', raw: 'env-pool', value: 'env-pool' },
    nova: { section: 'libvirt', option: 'images_rbd_pool', raw: 'vms', value: 'vms' }, fallback: 'rbd' },
  { key: 'ceph.fsid', read: (c) => c.ceph.fsid,
    flag: { name: 'fsid', raw: '11111111-2222-3333-4444-555555555555', value: '11111111-2222-3333-4444-555555555555' },
    env: { name: 'FERRY_FSID', raw: 'AAAAAAAA-2222-3333-4444-555555555555', value: 'aaaaaaaa-2222-3333-4444-555555555555' } },
  { key: 'copy.transfer', read: (c) => c.copy.transfer, flag: { name: 'transfer', raw: 'rbd', value: 'rbd' },
    env: { name: 'FERRY_TRANSFER', raw: 'auto', value: 'auto' }, clouds: { path: 'ferry.transfer', raw: 'rbd', value: 'rbd' }, fallback: 'glance' },
  { key: 'copy.sourceCephConfs', read: (c) => c.copy.sourceCephConfs,
    flag: { name: 'source-ceph-conf', raw: 'site-a=a.conf', value: { 'site-a': '/srv/work/a.conf' } },
    env: { name: 'FERRY_SOURCE_CEPH_CONF', raw: 'site-a=/etc/ceph/a.conf:site-c=/etc/ceph/c.conf',
      value: { 'site-a': '/etc/ceph/a.conf', 'site-c': '/etc/ceph/c.conf' } },
    clouds: { path: 'ferry.source_ceph_conf', raw: 'site-a=/etc/ceph/a.conf,site-c=/etc/ceph/c.conf',
      value: { 'site-a': '/etc/ceph/a.conf', 'site-c': '/etc/ceph/c.conf' } }, fallback: {} },
  { key: 'copy.sourceRbdUser', read: (c) => c.copy.sourceRbdUser, flag: { name: 'source-rbd-user', raw: 'reader', value: 'reader' },
    env: { name: 'FERRY_SOURCE_RBD_USER', raw: 'env-reader', value: 'env-reader' },
    clouds: { path: 'ferry.source_rbd_user', raw: 'yaml-reader', value: 'yaml-reader' } },
  { key: 'copy.rbdQuietMs', read: (c) => c.copy.rbdQuietMs, flag: { name: 'rbd-quiet-time', raw: '90', value: 90_000 },
    env: { name: 'FERRY_RBD_QUIET_TIME', raw: '120', value: 120_000 }, clouds: { path: 'ferry.rbd_quiet_time', raw: '300', value: 300_000 },
    fallback: 180_000 },
  { key: 'http.requestTimeoutMs', read: (c) => c.http.requestTimeoutMs, flag: { name: 'request-timeout', raw: '5', value: 5000 },
    env: { name: 'FERRY_REQUEST_TIMEOUT', raw: '6', value: 6000 }, clouds: { path: 'api_timeout', raw: '7.5', value: 7500 },
    fallback: 30_000 },
  { key: 'http.connectTimeoutMs', read: (c) => c.http.connectTimeoutMs, flag: { name: 'connect-timeout', raw: '1', value: 1000 },
    env: { name: 'FERRY_CONNECT_TIMEOUT', raw: '2', value: 2000 }, fallback: 10_000 },
  { key: 'http.retries', read: (c) => c.http.retries, flag: { name: 'retries', raw: '0', value: 0 },
    env: { name: 'FERRY_RETRIES', raw: '1', value: 1 }, nova: { section: 'glance', option: 'num_retries', raw: '2', value: 2 },
    fallback: 3 },
  { key: 'endpoints.interface', read: (c) => c.endpoints.interface, flag: { name: 'os-interface', raw: 'admin', value: 'admin' },
    env: { name: 'OS_INTERFACE', raw: 'internalURL', value: 'internal' }, clouds: { path: 'interface', raw: 'admin', value: 'admin' },
    fallback: 'public' },
  { key: 'endpoints.region', read: (c) => c.endpoints.region, flag: { name: 'os-region-name', raw: 'r-flag', value: 'r-flag' },
    env: { name: 'OS_REGION_NAME', raw: 'r-env', value: 'r-env' }, clouds: { path: 'region_name', raw: 'r-clouds', value: 'r-clouds' } },
  { key: 'endpoints.overrides.image', read: (c) => c.endpoints.overrides.image,
    flag: { name: 'glance-endpoint', raw: 'http://g-flag:9292', value: 'http://g-flag:9292' },
    env: { name: 'FERRY_GLANCE_ENDPOINT', raw: 'http://g-env:9292', value: 'http://g-env:9292' },
    clouds: { path: 'image_endpoint_override', raw: 'http://g-clouds:9292', value: 'http://g-clouds:9292' },
    nova: { section: 'glance', option: 'endpoint_override', raw: 'http://g-nova:9292', value: 'http://g-nova:9292' } },
  { key: 'endpoints.overrides.placement', read: (c) => c.endpoints.overrides.placement,
    flag: { name: 'placement-endpoint', raw: 'http://p-flag', value: 'http://p-flag' },
    env: { name: 'FERRY_PLACEMENT_ENDPOINT', raw: 'http://p-env', value: 'http://p-env' },
    clouds: { path: 'placement_endpoint_override', raw: 'http://p-clouds', value: 'http://p-clouds' },
    nova: { section: 'placement', option: 'endpoint_override', raw: 'http://p-nova', value: 'http://p-nova' } },
  { key: 'endpoints.image.interfaces', read: (c) => c.endpoints.image.interfaces,
    flag: { name: 'os-interface', raw: 'admin', value: ['admin'] }, env: { name: 'OS_INTERFACE', raw: 'internal', value: ['internal'] },
    clouds: { path: 'interface', raw: 'admin', value: ['admin'] },
    nova: { section: 'glance', option: 'valid_interfaces', raw: 'admin, public', value: ['admin', 'public'] },
    fallback: ['internal', 'public'], fallbackSource: "nova's default [glance] valid_interfaces = internal,public (no nova.conf sets it)" },
  { key: 'endpoints.placement.region', read: (c) => c.endpoints.placement.region,
    flag: { name: 'os-region-name', raw: 'r-flag', value: 'r-flag' }, env: { name: 'OS_REGION_NAME', raw: 'r-env', value: 'r-env' },
    clouds: { path: 'region_name', raw: 'r-clouds', value: 'r-clouds' },
    nova: { section: 'placement', option: 'region_name', raw: 'r-nova', value: 'r-nova' } },
  { key: 'tls.caFile', read: (c) => c.tls.caFile, flag: { name: 'os-cacert', raw: 'ca.pem', value: '/srv/work/ca.pem' },
    env: { name: 'OS_CACERT', raw: '/etc/ssl/env.pem', value: '/etc/ssl/env.pem' },
    clouds: { path: 'cacert', raw: '/etc/ssl/clouds.pem', value: '/etc/ssl/clouds.pem' },
    nova: { section: 'glance', option: 'cafile', raw: '/etc/ssl/nova.pem', value: '/etc/ssl/nova.pem' } },
  { key: 'tls.verify', read: (c) => c.tls.verify, flag: { name: 'insecure', raw: true, value: false },
    env: { name: 'OS_INSECURE', raw: 'no', value: true }, clouds: { path: 'verify', raw: 'false', value: false },
    nova: { section: 'glance', option: 'insecure', raw: 'false', value: true }, fallback: true },
  { key: 'log.level', read: (c) => c.log.level, flag: { name: 'log-level', raw: 'error', value: 'error' },
    env: { name: 'FERRY_LOG_LEVEL', raw: 'trace', value: 'trace' }, fallback: 'warn' },
  { key: 'log.debug', read: (c) => c.log.debug, flag: { name: 'debug', raw: true, value: true },
    env: { name: 'FERRY_DEBUG', raw: 'false', value: false }, fallback: false },
];

function setPath(target: Record<string, unknown>, path: string, value: string): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1] ?? ''] = value;
}

function inputFor(setting: Setting, from: Layer) {
  const included = (layer: Layer): boolean => ORDER.indexOf(layer) >= ORDER.indexOf(from);
  const flags: Record<string, string | boolean> = { 'os-cloud': 'test', 'nova-conf': NOVA_CONF };
  const env: Record<string, string> = {};
  const cloud: Record<string, unknown> = {};
  let nova = '[DEFAULT]\n';
  if (setting.flag && included('flag')) flags[setting.flag.name] = setting.flag.raw;
  if (setting.env && included('env')) env[setting.env.name] = setting.env.raw;
  if (setting.clouds && included('clouds')) setPath(cloud, setting.clouds.path, setting.clouds.raw);
  if (setting.nova && included('nova')) nova += `[${setting.nova.section}]\n${setting.nova.option} = ${setting.nova.raw}\n`;
  return { flags, env, files: { [USER_CLOUDS]: stringify({ clouds: { test: cloud } }), [NOVA_CONF]: nova } };
}

function expectedFrom(setting: Setting, from: Layer): { value: unknown; source: string | undefined } {
  switch (from) {
    case 'flag': return { value: setting.flag?.value, source: `--${setting.flag?.name ?? ''}` };
    case 'env': return { value: setting.env?.value, source: setting.env?.name };
    case 'clouds': return { value: setting.clouds?.value, source: `clouds.yaml (${USER_CLOUDS}) clouds.test.${setting.clouds?.path ?? ''}` };
    case 'nova': return { value: setting.nova?.value, source: `nova.conf (${NOVA_CONF}) [${setting.nova?.section ?? ''}] ${setting.nova?.option ?? ''}` };
    case 'default': return { value: setting.fallback, source: setting.fallback === undefined ? undefined : setting.fallbackSource ?? 'default' };
  }
}

const CASES = SETTINGS.flatMap((setting) => ORDER
  .filter((layer) => layer === 'default' || setting[layer] !== undefined)
  .map((from) => ({ key: setting.key, from, setting })));

describe('resolveConfig precedence', () => {
  it.each(CASES)('resolveConfig: $key from $from (and every layer below it)', ({ setting, from }) => {
    const config = resolveWith(inputFor(setting, from));
    const expected = expectedFrom(setting, from);
    expect(setting.read(config)).toEqual(expected.value);
    expect(config.sources[setting.key]).toBe(expected.source);
  });

  it('resolveConfig: with nothing set, every default comes from CONFIG_DEFAULTS', () => {
    const config = resolveWith();
    expect(config.copy).toEqual({
      pollIntervalMs: CONFIG_DEFAULTS.copy.pollIntervalMs, minPollDelayMs: CONFIG_DEFAULTS.copy.minPollDelayMs,
      maxPollDelayMs: CONFIG_DEFAULTS.copy.pollIntervalMs, timeoutMs: CONFIG_DEFAULTS.copy.timeoutMs,
      staleLockAfterMs: CONFIG_DEFAULTS.copy.staleLockAfterMs,
      takeOverExpired: CONFIG_DEFAULTS.copy.takeOverExpired,
      transfer: CONFIG_DEFAULTS.copy.transfer, sourceCephConfs: CONFIG_DEFAULTS.copy.sourceCephConfs, rbdQuietMs: CONFIG_DEFAULTS.copy.rbdQuietMs,
    });
    expect(config.ceph).toEqual({ pool: 'rbd' });
    expect(config.http).toEqual(CONFIG_DEFAULTS.http);
    expect(config.host).toEqual(CONFIG_DEFAULTS.host);
    expect(config.scheduler).toEqual(CONFIG_DEFAULTS.scheduler);
    expect(config.tls).toEqual({ verify: true });
    expect(config.log).toEqual(CONFIG_DEFAULTS.log);
    expect(config.endpoints).toEqual({ interface: 'public', overrides: {}, image: { interfaces: ['public'] }, placement: { interfaces: ['public'] } });
    expect(config.auth).toBeUndefined();
    expect(config.origin).toEqual({});
  });

  it('resolveConfig: the result is deeply frozen', () => {
    const config = resolveWith();
    expect(Object.isFrozen(config.copy)).toBe(true);
    expect(Object.isFrozen(config.endpoints.image.interfaces)).toBe(true);
    expect(Object.isFrozen(config.sources)).toBe(true);
  });
});
