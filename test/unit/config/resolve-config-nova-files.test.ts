import { describe, expect, it } from 'vitest';
import type { FerryError } from '../../../src/errors/ferry-error.js';
import { configFixture, NOVA_COMPUTE_CONF, NOVA_CONF, resolveWith, USER_CLOUDS } from './config-fixtures.js';

// nova-compute runs with --config-file nova.conf --config-file nova-compute.conf: a later file wins per option.
const PAIR = { [NOVA_CONF]: configFixture('nova-compute-edge.conf'), [NOVA_COMPUTE_CONF]: configFixture('nova-compute-edge-compute.conf') };
const N = `nova.conf (${NOVA_CONF})`;
const C = `nova.conf (${NOVA_COMPUTE_CONF})`;

function errorOf(run: () => unknown): FerryError {
  try {
    run();
  } catch (error) {
    return error as FerryError;
  }
  throw new Error('expected an error');
}

describe('resolveConfig with several nova.conf files', () => {
  it('resolveConfig: nova.conf + nova-compute.conf: the later file wins option by option, the rest stays', () => {
    const config = resolveWith({ flags: { 'nova-conf': [NOVA_CONF, NOVA_COMPUTE_CONF] }, files: PAIR });
    expect(config.host).toEqual({ imagesType: 'rbd', imagesTypeMapping: 'raw:rbd, qcow2:qcow2', useCowImages: true,
      forceRawImages: true, imageTypeExcludeList: ['vhd', 'vhdx', 'ploop'], virtType: 'qemu', swtpmEnabled: true,
      machineTypes: { x86_64: 'q35', aarch64: 'virt' } });
    expect(config.copy).toMatchObject({ store: 'site-b', pollIntervalMs: 5000, timeoutMs: 1_200_000 });
    expect(config.tls).toEqual({ caFile: '/etc/nova/ssl/ca.pem', certFile: '/etc/nova/ssl/nova-compute-b.crt',
      keyFile: '/etc/nova/ssl/nova-compute-b.key', verify: true });
    expect(config.origin.novaConfFiles).toEqual([NOVA_CONF, NOVA_COMPUTE_CONF]);
    expect(config.sources).toMatchObject({
      'host.virtType': `${C} [libvirt] virt_type`,
      'host.imagesType': `${N} [libvirt] images_type`,
      'host.forceRawImages': `${C} [DEFAULT] force_raw_images`,
      'host.swtpmEnabled': `${C} [libvirt] swtpm_enabled`,
      'copy.pollIntervalMs': `${C} [libvirt] images_rbd_glance_copy_poll_interval`,
      'copy.timeoutMs': `${N} [libvirt] images_rbd_glance_copy_timeout`,
      'tls.certFile': `${C} [glance] certfile`,
    });
  });

  it('resolveConfig: the same two files in the other order: nova.conf wins where both set an option', () => {
    const config = resolveWith({ flags: { 'nova-conf': [NOVA_COMPUTE_CONF, NOVA_CONF] }, files: PAIR });
    expect(config.host).toMatchObject({ virtType: 'kvm', forceRawImages: false, swtpmEnabled: true });
    expect(config.copy.pollIntervalMs).toBe(10_000);
  });

  it('resolveConfig: only the value that wins is validated, as by nova', () => {
    const files = { [NOVA_CONF]: '[libvirt]\nvirt_type = xen\n', [NOVA_COMPUTE_CONF]: '[libvirt]\nvirt_type = kvm\n' };
    expect(resolveWith({ flags: { 'nova-conf': [NOVA_CONF, NOVA_COMPUTE_CONF] }, files }).host.virtType).toBe('kvm');
    const error = errorOf(() => resolveWith({ flags: { 'nova-conf': [NOVA_COMPUTE_CONF, NOVA_CONF] }, files }));
    expect(error.message).toBe(`${N} [libvirt] virt_type: expected one of kvm, lxc, qemu, parallels, got 'xen'`);
  });

  it('resolveConfig: FERRY_NOVA_CONF holds several files separated by ":"', () => {
    const config = resolveWith({ env: { FERRY_NOVA_CONF: `${NOVA_CONF}:${NOVA_COMPUTE_CONF}` }, files: PAIR });
    expect(config.host.virtType).toBe('qemu');
    expect(config.origin.novaConfFiles).toEqual([NOVA_CONF, NOVA_COMPUTE_CONF]);
  });

  it('resolveConfig: a missing second file is named, with the flag that gave it', () => {
    const error = errorOf(() => resolveWith({ flags: { 'nova-conf': [NOVA_CONF, '/etc/nova/nova-compute.conf.d'] }, files: PAIR }));
    expect(error.code).toBe('FERRY_INVALID_OPTION');
    expect(error.message).toBe("--nova-conf: cannot read nova.conf '/etc/nova/nova-compute.conf.d' (missing or not readable; a file nova reads only when it exists is written -/etc/nova/nova-compute.conf.d)");
  });

  it('resolveConfig: -PATH is read when it exists and skipped when absent (Debian\'s nova-compute.conf)', () => {
    const both = resolveWith({ env: { FERRY_NOVA_CONF: `${NOVA_CONF}:-${NOVA_COMPUTE_CONF}` }, files: PAIR });
    expect(both.host.virtType).toBe('qemu');
    expect(both.origin.novaConfFiles).toEqual([NOVA_CONF, NOVA_COMPUTE_CONF]);
    const one = resolveWith({ env: { FERRY_NOVA_CONF: `${NOVA_CONF}:-/etc/nova/absent.conf` }, files: PAIR });
    expect(one.origin.novaConfFiles).toEqual([NOVA_CONF]);
  });

  it('resolveConfig: a syntax error in one file is reported with that file, and the other file still counts', () => {
    const files = { [NOVA_CONF]: '[libvirt]\nvirt_type = qemu\n', [NOVA_COMPUTE_CONF]: 'swtpm_enabled = true\n' };
    const error = errorOf(() => resolveWith({ flags: { 'nova-conf': [NOVA_CONF, NOVA_COMPUTE_CONF] }, files }));
    expect(error.message).toBe(`${C} line 1: an option comes before any [section]`);
  });
});

describe('resolveConfig: nova\'s [glance] / [placement] valid_interfaces default', () => {
  it('resolveConfig: with a nova.conf that does not set them, nova\'s internal,public applies to both services', () => {
    const config = resolveWith({ flags: { 'nova-conf': NOVA_CONF }, files: { [NOVA_CONF]: '[libvirt]\nvirt_type = kvm\n' } });
    expect(config.endpoints.image.interfaces).toEqual(['internal', 'public']);
    expect(config.endpoints.placement.interfaces).toEqual(['internal', 'public']);
    expect(config.endpoints.interface).toBe('public');
    expect(config.sources['endpoints.image.interfaces']).toBe("nova's default [glance] valid_interfaces = internal,public (no nova.conf sets it)");
  });

  it('resolveConfig: without nova.conf the openstack CLI\'s public stays the default', () => {
    expect(resolveWith().endpoints.image.interfaces).toEqual(['public']);
  });

  it('resolveConfig: clouds.yaml interface still beats nova\'s default', () => {
    const config = resolveWith({ flags: { 'os-cloud': 'c', 'nova-conf': NOVA_CONF },
      files: { [USER_CLOUDS]: 'clouds:\n  c:\n    interface: public\n', [NOVA_CONF]: '[DEFAULT]\n' } });
    expect(config.endpoints.image.interfaces).toEqual(['public']);
  });
});

describe('resolveConfig: client certificate and key', () => {
  it.each([
    { layer: 'flags', input: { flags: { 'os-cert': 'c.pem', 'os-key': 'k.pem' } }, cert: '/srv/work/c.pem', key: '/srv/work/k.pem', source: '--os-cert' },
    { layer: 'variables', input: { env: { OS_CERT: '/etc/ssl/c.pem', OS_KEY: '/etc/ssl/k.pem' } }, cert: '/etc/ssl/c.pem', key: '/etc/ssl/k.pem', source: 'OS_CERT' },
    { layer: 'clouds.yaml', input: { flags: { 'os-cloud': 'c' }, files: { [USER_CLOUDS]: 'clouds:\n  c:\n    cert: /etc/ssl/yc.pem\n    key: /etc/ssl/yk.pem\n' } },
      cert: '/etc/ssl/yc.pem', key: '/etc/ssl/yk.pem', source: `clouds.yaml (${USER_CLOUDS}) clouds.c.cert` },
  ])('resolveConfig: --os-cert/--os-key from $layer', ({ input, cert, key, source }) => {
    const config = resolveWith(input);
    expect(config.tls).toMatchObject({ certFile: cert, keyFile: key });
    expect(config.sources['tls.certFile']).toBe(source);
  });

  it('resolveConfig: a certificate alone (key inside the same PEM) is accepted', () => {
    expect(resolveWith({ env: { OS_CERT: '/etc/ssl/both.pem' } }).tls).toEqual({ certFile: '/etc/ssl/both.pem', verify: true });
  });

  it('resolveConfig: cert and key come as a pair: OS_CERT without OS_KEY does not borrow nova.conf\'s keyfile', () => {
    const config = resolveWith({ env: { OS_CERT: '/etc/ssl/both.pem' }, flags: { 'nova-conf': [NOVA_CONF, NOVA_COMPUTE_CONF] }, files: PAIR });
    expect(config.tls).toEqual({ caFile: '/etc/nova/ssl/ca.pem', certFile: '/etc/ssl/both.pem', verify: true });
  });

  it.each([
    { where: 'a flag', input: { flags: { 'os-key': '/etc/ssl/k.pem' } }, code: 'FERRY_INVALID_OPTION', label: '--os-key' },
    { where: 'nova.conf', input: { flags: { 'nova-conf': NOVA_CONF }, files: { [NOVA_CONF]: '[glance]\nkeyfile = /etc/k.pem\n' } },
      code: 'FERRY_INVALID_CONFIG', label: `${N} [glance] keyfile` },
  ])('resolveConfig: a key without a certificate ($where) is a problem', ({ input, code, label }) => {
    const error = errorOf(() => resolveWith(input));
    expect(error.code).toBe(code);
    expect(error.message).toBe(`${label}: a client key without a client certificate; give the certificate too `
      + '(--os-cert, OS_CERT, clouds.yaml cert or nova.conf [glance] certfile)');
  });
});
