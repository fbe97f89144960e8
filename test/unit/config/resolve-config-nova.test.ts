import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS } from '../../../src/config/config-defaults.js';
import { CWD, FIXTURE_FILES, NOVA_CONF, resolveWith } from './config-fixtures.js';

const N = `nova.conf (${NOVA_CONF})`;
const withNova = (conf: string, flags: Readonly<Record<string, string | boolean | undefined>> = {}) =>
  resolveWith({ flags: { 'nova-conf': NOVA_CONF, ...flags }, files: { [NOVA_CONF]: conf } });

describe('resolveConfig with nova.conf', () => {
  it('resolveConfig: the edge compute nova.conf fills copy, ceph, host, scheduler and endpoints', () => {
    const config = resolveWith({ flags: { 'nova-conf': NOVA_CONF }, files: FIXTURE_FILES });
    expect(config.copy).toEqual({ store: 'site-b', pollIntervalMs: 10_000, minPollDelayMs: 100, maxPollDelayMs: 10_000,
      timeoutMs: 1_200_000, staleLockAfterMs: 600_000, takeOverExpired: true, transfer: 'glance', sourceCephConfs: {}, rbdQuietMs: 180_000 });
    expect(config.ceph).toEqual({ confFile: '/etc/ceph/site-b.conf', user: 'nova-site-b', pool: 'vms' });
    expect(config.host).toEqual({ imagesType: 'rbd', imagesTypeMapping: 'raw:rbd, qcow2:qcow2', useCowImages: true,
      forceRawImages: false, imageTypeExcludeList: ['vhd', 'vhdx', 'ploop'], virtType: 'kvm', swtpmEnabled: false, machineTypes: {} });
    expect(config.scheduler).toEqual({ imageTypePrefilter: true, imageMetadataPrefilter: true });
    expect(config.http.retries).toBe(5);
    expect(config.endpoints).toEqual({
      interface: 'public',
      overrides: { image: 'http://glance-site-b.internal:9292' },
      image: { url: 'http://glance-site-b.internal:9292', interfaces: ['internal', 'public'], region: 'RegionOne' },
      placement: { interfaces: ['internal'], region: 'RegionOne' },
    });
    expect(config.origin).toEqual({ novaConfFiles: [NOVA_CONF] });
    expect(config.sources).toMatchObject({
      'host.imagesType': `${N} [libvirt] images_type`,
      'host.forceRawImages': `${N} [DEFAULT] force_raw_images`,
      'host.imageTypeExcludeList': `${N} [compute] image_type_exclude_list`,
      'scheduler.imageTypePrefilter': `${N} [scheduler] query_placement_for_image_type_support`,
      'scheduler.imageMetadataPrefilter': `${N} [scheduler] image_metadata_prefilter`,
      'endpoints.image.interfaces': `${N} [glance] valid_interfaces`,
      'endpoints.placement.region': `${N} [placement] region_name`,
      'http.retries': `${N} [glance] num_retries`,
    });
  });

  it('resolveConfig: none of the credentials in nova.conf are used', () => {
    const config = resolveWith({ flags: { 'nova-conf': NOVA_CONF }, files: FIXTURE_FILES });
    expect(config.auth).toBeUndefined();
  });

  it.each([
    { conf: '[libvirt]\nimages_rbd_glance_copy_timeout = 0\n', flags: {}, source: `${N} [libvirt] images_rbd_glance_copy_timeout` },
    { conf: '', flags: { timeout: '0' }, source: '--timeout' },
  ])('resolveConfig: a copy timeout of 0 ("no timeout") becomes the cap, from $source', ({ conf, flags, source }) => {
    const config = withNova(conf, flags);
    expect(config.copy.timeoutMs).toBe(CONFIG_DEFAULTS.copy.noTimeoutCapMs);
    expect(config.sources['copy.timeoutMs']).toBe(`${source} = 0 (no timeout: capped at 86400 s)`);
  });

  it.each([
    { interval: '15', min: 100, max: 15_000, minSource: 'default' },
    { interval: '1', min: 100, max: 1000, minSource: 'default' },
    { interval: '0.05', min: 50, max: 50, minSource: 'copy.pollIntervalMs (shorter than the default first delay)' },
  ])('resolveConfig: poll interval $interval s → waiter delays $min..$max ms', ({ interval, min, max, minSource }) => {
    const config = resolveWith({ flags: { 'poll-interval': interval } });
    expect(config.copy).toMatchObject({ minPollDelayMs: min, maxPollDelayMs: max, pollIntervalMs: max });
    expect(config.sources['copy.maxPollDelayMs']).toBe('copy.pollIntervalMs');
    expect(config.sources['copy.minPollDelayMs']).toBe(minSource);
  });

  it('resolveConfig: the first of [glance] api_servers is the Glance endpoint when endpoint_override is unset', () => {
    const config = withNova('[glance]\napi_servers = glance-b:9292, http://glance-c:9292\n');
    expect(config.endpoints.overrides.image).toBe('http://glance-b:9292');
    expect(config.sources['endpoints.overrides.image']).toBe(`${N} [glance] api_servers`);
  });

  it('resolveConfig: [glance] endpoint_override beats api_servers', () => {
    const config = withNova('[glance]\napi_servers = http://old:9292\nendpoint_override = http://new:9292\n');
    expect(config.endpoints.overrides.image).toBe('http://new:9292');
  });

  it('resolveConfig: [glance] cafile and insecure set TLS when nothing above them does', () => {
    const config = withNova('[glance]\ncafile = /etc/ssl/glance-ca.pem\ninsecure = true\n');
    expect(config.tls).toEqual({ caFile: '/etc/ssl/glance-ca.pem', verify: false });
  });

  it('resolveConfig: an empty images_rbd_glance_store_name leaves copying off', () => {
    const config = withNova('[libvirt]\nimages_rbd_glance_store_name =\n');
    expect(config.copy.store).toBeUndefined();
    expect(config.sources['copy.store']).toBeUndefined();
  });

  it('resolveConfig: --store beats nova.conf', () => {
    expect(withNova('[libvirt]\nimages_rbd_glance_store_name = site-b\n', { store: 'site-c' }).copy.store).toBe('site-c');
  });

  it('resolveConfig: a relative --nova-conf is read from the working directory', () => {
    const config = resolveWith({ flags: { 'nova-conf': 'etc/nova.conf' }, files: { [`${CWD}/etc/nova.conf`]: '[libvirt]\nvirt_type = qemu\n' } });
    expect(config.host.virtType).toBe('qemu');
    expect(config.origin.novaConfFiles).toEqual([`${CWD}/etc/nova.conf`]);
  });

  it('resolveConfig: --debug lowers the default log level; an explicit level still wins', () => {
    expect(resolveWith({ flags: { debug: true } }).log).toEqual({ level: 'debug', debug: true });
    expect(resolveWith({ flags: { debug: true } }).sources['log.level']).toBe('log.debug');
    expect(resolveWith({ flags: { debug: true }, env: { FERRY_LOG_LEVEL: 'trace' } }).log).toEqual({ level: 'trace', debug: true });
  });
});
