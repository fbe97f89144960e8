import { describe, expect, it } from 'vitest';
import { ConfigIssues } from '../../../src/config/config-issues.js';
import { NOVA_CONF_OPTIONS, type NovaOptionId } from '../../../src/config/nova-conf-options.js';
import { readNovaConf } from '../../../src/config/read-nova-conf.js';
import { configFixture, NOVA_CONF } from './config-fixtures.js';

function read(text: string): { values: ReturnType<typeof readNovaConf>; issues: ConfigIssues } {
  const issues = new ConfigIssues();
  return { values: readNovaConf(text, NOVA_CONF, issues), issues };
}

function confWith(id: NovaOptionId, raw: string): string {
  const spec = NOVA_CONF_OPTIONS[id];
  return `[${spec.section}]\n${spec.option} = ${raw}\n`;
}

/** One valid and one invalid value for every nova.conf option ferry reads. */
const OPTION_CASES: readonly { id: NovaOptionId; valid: string; value: unknown; invalid?: string; expected?: string }[] = [
  { id: 'storeName', valid: 'site-b', value: 'site-b', invalid: 'site-a,site-b', expected: 'a Glance store id (letters, digits, _ . - only)' },
  { id: 'pollIntervalMs', valid: '15', value: 15_000, invalid: '0', expected: 'an integer ≥ 1' },
  { id: 'copyTimeoutMs', valid: '600', value: 600_000, invalid: '-1', expected: 'an integer ≥ 0 (0 = no timeout)' },
  { id: 'rbdPool', valid: 'vms', value: 'vms', invalid: '', expected: 'a non-empty string' },
  { id: 'cephConf', valid: '/etc/ceph/site-b.conf', value: '/etc/ceph/site-b.conf' },
  { id: 'rbdUser', valid: 'nova', value: 'nova' },
  { id: 'imagesType', valid: 'rbd', value: 'rbd', invalid: 'ceph', expected: 'one of raw, flat, qcow2, lvm, rbd, ploop, default' },
  { id: 'imagesTypeMapping', valid: 'raw:rbd, qcow2:qcow2', value: 'raw:rbd, qcow2:qcow2' },
  { id: 'virtType', valid: 'qemu', value: 'qemu', invalid: 'xen', expected: 'one of kvm, lxc, qemu, parallels' },
  { id: 'forceRawImages', valid: 'False', value: false, invalid: 'nope', expected: 'a boolean (true/false, yes/no, on/off, 1/0)' },
  { id: 'useCowImages', valid: 'off', value: false, invalid: '', expected: 'a boolean (true/false, yes/no, on/off, 1/0)' },
  { id: 'imageTypeExcludeList', valid: 'vhd, vhdx', value: ['vhd', 'vhdx'] },
  { id: 'imageTypePrefilter', valid: 'yes', value: true, invalid: 'enabled', expected: 'a boolean (true/false, yes/no, on/off, 1/0)' },
  { id: 'imageMetadataPrefilter', valid: '1', value: true, invalid: 'sure', expected: 'a boolean (true/false, yes/no, on/off, 1/0)' },
  { id: 'glanceEndpointOverride', valid: 'http://glance-b:9292', value: 'http://glance-b:9292', invalid: 'glance-b:9292', expected: 'an http(s) URL' },
  { id: 'glanceApiServers', valid: 'glance-b:9292, http://glance-c:9292', value: ['http://glance-b:9292', 'http://glance-c:9292'],
    invalid: 'ftp://glance', expected: 'a comma-separated list of http(s) URLs' },
  { id: 'glanceNumRetries', valid: '0', value: 0, invalid: 'three', expected: 'an integer ≥ 0' },
  { id: 'glanceRegionName', valid: 'RegionOne', value: 'RegionOne' },
  { id: 'glanceValidInterfaces', valid: 'internal, public', value: ['internal', 'public'], invalid: 'private',
    expected: 'a comma-separated list of public, internal, admin' },
  { id: 'glanceCafile', valid: '/etc/ssl/ca.pem', value: '/etc/ssl/ca.pem' },
  { id: 'glanceCertfile', valid: '/etc/ssl/nova.crt', value: '/etc/ssl/nova.crt' },
  { id: 'glanceKeyfile', valid: '/etc/ssl/nova.key', value: '/etc/ssl/nova.key' },
  { id: 'swtpmEnabled', valid: 'True', value: true, invalid: 'swtpm', expected: 'a boolean (true/false, yes/no, on/off, 1/0)' },
  { id: 'machineTypes', valid: 'x86_64=q35, aarch64=virt, x86_64=pc, armv7l', value: { x86_64: 'q35', aarch64: 'virt' } },
  { id: 'libvirtUri', valid: 'qemu+tcp://host-7/system', value: 'qemu+tcp://host-7/system' },
  { id: 'glanceInsecure', valid: 'true', value: true, invalid: 'insecure', expected: 'a boolean (true/false, yes/no, on/off, 1/0)' },
  { id: 'placementEndpointOverride', valid: 'https://placement-b:8778', value: 'https://placement-b:8778', invalid: 'placement-b',
    expected: 'an http(s) URL' },
  { id: 'placementRegionName', valid: 'RegionTwo', value: 'RegionTwo' },
  { id: 'placementValidInterfaces', valid: 'admin', value: ['admin'], invalid: 'internal, nope',
    expected: 'a comma-separated list of public, internal, admin' },
];

describe('readNovaConf', () => {
  it('readNovaConf: the option table covers every nova.conf option ferry reads', () => {
    expect(OPTION_CASES.map((c) => c.id).sort()).toEqual(Object.keys(NOVA_CONF_OPTIONS).sort());
  });

  it.each(OPTION_CASES)('readNovaConf: $id accepts $valid', ({ id, valid, value }) => {
    const { values, issues } = read(confWith(id, valid));
    expect(issues.count).toBe(0);
    const spec = NOVA_CONF_OPTIONS[id];
    expect(values[id]).toEqual({ value, source: { kind: 'file', label: `nova.conf (${NOVA_CONF}) [${spec.section}] ${spec.option}` } });
  });

  it.each(OPTION_CASES.filter((c) => c.invalid !== undefined))('readNovaConf: $id rejects $invalid', ({ id, invalid, expected }) => {
    const { values, issues } = read(confWith(id, invalid ?? ''));
    const spec = NOVA_CONF_OPTIONS[id];
    expect(values[id]).toBeUndefined();
    expect(() => issues.throwIfAny()).toThrow(
      `nova.conf (${NOVA_CONF}) [${spec.section}] ${spec.option}: expected ${expected ?? ''}, got '${invalid ?? ''}'`);
  });

  it('readNovaConf: the message of the brief, word for word', () => {
    const { issues } = read('[libvirt]\nimages_rbd_glance_copy_poll_interval = fast\n');
    expect(() => issues.throwIfAny()).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_CONFIG',
      message: "nova.conf (/etc/nova/nova.conf) [libvirt] images_rbd_glance_copy_poll_interval: expected an integer ≥ 1, got 'fast'",
    }));
  });

  it.each(['images_rbd_glance_store_name', 'images_rbd_ceph_conf', 'rbd_user', 'images_type_mapping', 'hw_machine_type', 'connection_uri'])(
    "readNovaConf: [libvirt] %s = '' means not set", (option) => {
      const { values, issues } = read(`[libvirt]\n${option} =\n`);
      expect(issues.count).toBe(0);
      expect(Object.keys(values)).toEqual(['glanceValidInterfaces', 'placementValidInterfaces']);
    });

  it('readNovaConf: reads the edge compute fixture, ignoring every unrelated option', () => {
    const { values, issues } = read(configFixture('nova-compute-edge.conf'));
    expect(issues.count).toBe(0);
    const plain = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.value]));
    expect(plain).toEqual({
      storeName: 'site-b', pollIntervalMs: 10_000, copyTimeoutMs: 1_200_000, rbdPool: 'vms',
      cephConf: '/etc/ceph/site-b.conf', rbdUser: 'nova-site-b', imagesType: 'rbd', imagesTypeMapping: 'raw:rbd, qcow2:qcow2',
      virtType: 'kvm', forceRawImages: false, useCowImages: true, imageTypeExcludeList: ['vhd', 'vhdx', 'ploop'],
      imageTypePrefilter: true, imageMetadataPrefilter: true, glanceEndpointOverride: 'http://glance-site-b.internal:9292',
      glanceNumRetries: 5, glanceRegionName: 'RegionOne', glanceValidInterfaces: ['internal', 'public'], glanceInsecure: false,
      placementRegionName: 'RegionOne', placementValidInterfaces: ['internal'],
    });
  });

  it('readNovaConf: every bad value is reported, not just the first', () => {
    const { issues } = read('[libvirt]\nimages_type = ceph\nvirt_type = xen\n[glance]\nnum_retries = -1\n');
    expect(issues.count).toBe(3);
  });

  it.each(['$state_path/ceph.conf', '${state_path}/ceph.conf'])(
    'readNovaConf: an oslo.config substitution (%s) is an error, not a wrong path', (raw) => {
      const { values, issues } = read(`[libvirt]\nimages_rbd_ceph_conf = ${raw}\n`);
      expect(values.cephConf).toBeUndefined();
      expect(() => issues.throwIfAny()).toThrow('[libvirt] images_rbd_ceph_conf: ferry does not expand oslo.config substitutions');
    });

  it('readNovaConf: $$ is a literal $', () => {
    expect(read('[libvirt]\nrbd_user = nova$$1\n').values.rbdUser?.value).toBe('nova$1');
  });

  it('readNovaConf: a syntax error names the file and line, not the line text', () => {
    const { issues } = read('[placement]\npassword = x\nSuperSecret\n');
    expect(() => issues.throwIfAny()).toThrow(expect.objectContaining({
      message: expect.stringMatching(/^nova\.conf \(\/etc\/nova\/nova\.conf\) line 3: a line is neither '\[section\]'/) as unknown,
    }));
    expect(() => issues.throwIfAny()).toThrow(expect.objectContaining({ message: expect.not.stringContaining('SuperSecret') as unknown }));
  });

  it('readNovaConf: options in the wrong section are not read', () => {
    expect(read('[DEFAULT]\nimages_rbd_pool = vms\n').values.rbdPool).toBeUndefined();
  });
});
