import { describe, expect, it } from 'vitest';
import { isFerryError, type FerryError } from '../../../src/errors/ferry-error.js';
import { CWD, HOME, NOVA_CONF, resolveWith, USER_CLOUDS, type VirtualInput } from './config-fixtures.js';

function errorOf(input: VirtualInput): FerryError {
  let caught: unknown;
  try {
    resolveWith(input);
  } catch (error) {
    caught = error;
  }
  if (!isFerryError(caught)) throw new Error('resolveConfig did not throw a FerryError');
  return caught;
}

const clouds = (yaml: string): VirtualInput => ({ flags: { 'os-cloud': 'c' }, files: { [USER_CLOUDS]: yaml } });
const CL = `clouds.yaml (${USER_CLOUDS})`;

describe('resolveConfig errors', () => {
  it.each([
    { case: 'a bad flag', input: { flags: { 'poll-interval': 'fast' } }, code: 'FERRY_INVALID_OPTION',
      message: "--poll-interval: expected a number of seconds > 0, got 'fast'" },
    { case: 'a bad camelCase flag', input: { flags: { pollInterval: '-3' } }, code: 'FERRY_INVALID_OPTION',
      message: "--poll-interval: expected a number of seconds > 0, got '-3'" },
    { case: 'a value flag given bare', input: { flags: { store: true } }, code: 'FERRY_INVALID_OPTION',
      message: '--store: expected a Glance store id (letters, digits, _ . - only), got true' },
    { case: 'a bad variable', input: { env: { OS_AUTH_URL: 'keystone:5000' } }, code: 'FERRY_INVALID_OPTION',
      message: "OS_AUTH_URL: expected an http(s) URL, got 'keystone:5000'" },
    { case: 'a bad boolean variable', input: { env: { OS_INSECURE: 'sometimes' } }, code: 'FERRY_INVALID_OPTION',
      message: "OS_INSECURE: expected a boolean (true/false, yes/no, on/off, 1/0), got 'sometimes'" },
    { case: 'a bad fsid', input: { env: { FERRY_FSID: 'abc' } }, code: 'FERRY_INVALID_OPTION',
      message: "FERRY_FSID: expected a Ceph fsid (a UUID such as 6f0a2c1e-3b5d-4e8f-9a7b-1c2d3e4f5a6b), got 'abc'" },
    { case: 'a bad clouds.yaml value', input: clouds('clouds:\n  c:\n    auth:\n      auth_url: keystone\n'), code: 'FERRY_INVALID_CONFIG',
      message: `${CL} clouds.c.auth.auth_url: expected an http(s) URL, got 'keystone'` },
    { case: 'a bad clouds.yaml verify', input: clouds('clouds:\n  c:\n    verify: perhaps\n'), code: 'FERRY_INVALID_CONFIG',
      message: `${CL} clouds.c.verify: expected a boolean (true/false, yes/no, on/off, 1/0), got 'perhaps'` },
    { case: 'auth that is not a mapping', input: clouds('clouds:\n  c:\n    auth: [a, b]\n'), code: 'FERRY_INVALID_CONFIG',
      message: `${CL} clouds.c.auth: expected a mapping, got a list` },
    { case: 'a cloud that is not a mapping', input: clouds('clouds:\n  c: just-a-name\n'), code: 'FERRY_INVALID_CONFIG',
      message: `${CL} clouds.c: expected a mapping, got 'just-a-name'` },
    { case: 'clouds that is a list', input: clouds('clouds:\n  - c\n'), code: 'FERRY_INVALID_CONFIG',
      message: `${CL} clouds: expected a mapping of cloud names to settings, got a list` },
    { case: 'a file that is not a mapping', input: clouds('just text\n'), code: 'FERRY_INVALID_CONFIG',
      message: `${CL}: expected a mapping with a 'clouds' key, got 'just text'` },
    { case: 'per-region values', input: clouds('clouds:\n  c:\n    regions:\n      - name: r1\n        values: {interface: internal}\n'),
      code: 'FERRY_INVALID_CONFIG',
      message: `${CL} clouds.c.regions.0: expected a list of region names (per-region 'values' are not supported), got a mapping` },
    { case: 'malformed YAML', input: clouds('clouds:\n  c:\n    auth: {auth_url: http://k\n'), code: 'FERRY_INVALID_CONFIG',
      message: `${CL} line 4, column 1: the YAML is malformed (BAD_INDENT: check the indentation around this line)` },
    { case: 'an unknown cloud', input: { env: { OS_CLOUD: 'nowhere' }, files: { [USER_CLOUDS]: 'clouds:\n  a: {}\n  b: {}\n' } },
      code: 'FERRY_INVALID_OPTION', message: `OS_CLOUD: cloud 'nowhere' is not defined in ${CL}; clouds defined there: a, b` },
    { case: 'no clouds.yaml at all', input: { flags: { 'os-cloud': 'x' } }, code: 'FERRY_INVALID_OPTION',
      message: `--os-cloud: cloud 'x' was requested, but no clouds.yaml was found (searched ${CWD}/clouds.{yaml,yml,json}, `
        + `${HOME}/.config/openstack/clouds.{yaml,yml,json}, /etc/openstack/clouds.{yaml,yml,json})` },
    { case: 'an unreadable nova.conf', input: { flags: { 'nova-conf': 'nova.conf' } }, code: 'FERRY_INVALID_OPTION',
      message: `--nova-conf: cannot read nova.conf '${CWD}/nova.conf' (missing or not readable; a file nova reads only when it exists is written -${CWD}/nova.conf)` },
    { case: 'a bad nova.conf value', input: { env: { FERRY_NOVA_CONF: NOVA_CONF }, files: { [NOVA_CONF]: '[glance]\nnum_retries = many\n' } },
      code: 'FERRY_INVALID_CONFIG', message: `nova.conf (${NOVA_CONF}) [glance] num_retries: expected an integer ≥ 0, got 'many'` },
    { case: 'nova copy timeout below 0', input: { flags: { 'nova-conf': NOVA_CONF }, files: { [NOVA_CONF]: '[libvirt]\nimages_rbd_glance_copy_timeout = -5\n' } },
      code: 'FERRY_INVALID_CONFIG',
      message: `nova.conf (${NOVA_CONF}) [libvirt] images_rbd_glance_copy_timeout: expected an integer ≥ 0 (0 = no timeout), got '-5'` },
  ])('resolveConfig: $case', ({ input, code, message }) => {
    const error = errorOf(input);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.hint).not.toBe('');
  });

  it('resolveConfig: all problems at once; a flag among them makes it FERRY_INVALID_OPTION', () => {
    const error = errorOf({ flags: { 'nova-conf': NOVA_CONF, retries: 'x' }, files: { [NOVA_CONF]: '[libvirt]\nvirt_type = xen\n' } });
    expect(error.code).toBe('FERRY_INVALID_OPTION');
    expect(error.message).toBe(`2 configuration problems:\n  - nova.conf (${NOVA_CONF}) [libvirt] virt_type: expected one of kvm, lxc, `
      + "qemu, parallels, got 'xen'\n  - --retries: expected an integer ≥ 0, got 'x'");
    expect(error.details).toEqual({ problems: [
      { source: `nova.conf (${NOVA_CONF}) [libvirt] virt_type`, message: expect.stringContaining('virt_type') as unknown },
      { source: '--retries', message: expect.stringContaining('--retries') as unknown },
    ] });
  });

  it('resolveConfig: a URL with a password in it is shown without it', () => {
    expect(errorOf({ env: { OS_AUTH_URL: 'ftp://admin:Pa55@keystone/' } }).message)
      .toBe("OS_AUTH_URL: expected an http(s) URL, got 'ftp://<user-info>@keystone/'");
  });

  const SECRET = 'S3cret-Never-Shown';
  it.each([
    { case: 'a bare --os-password', input: { flags: { 'os-password': true, retries: 'x' } } },
    { case: 'a password that is a mapping', input: clouds(`clouds:\n  c:\n    auth:\n      password: {x: ${SECRET}}\n`) },
    { case: 'a secret that is a list', input: clouds(`clouds:\n  c:\n    auth:\n      application_credential_secret: [${SECRET}]\n`) },
    { case: 'a YAML error on the password line', input: clouds(`clouds:\n  c:\n    auth:\n      password: [${SECRET}\n`) },
    { case: 'a nova.conf syntax error on a password line', input: { flags: { 'nova-conf': NOVA_CONF },
      files: { [NOVA_CONF]: `[placement]\n${SECRET}\n` } } },
    { case: 'other problems next to valid secrets', input: { flags: { 'os-password': SECRET, 'os-token': SECRET, timeout: 'x' },
      env: { OS_APPLICATION_CREDENTIAL_SECRET: SECRET } } },
    { case: 'a secret in a bad URL', input: { env: { OS_AUTH_URL: `keystone://u:${SECRET}@h` } } },
  ])('resolveConfig: no secret in the error for $case', ({ input }) => {
    const error = errorOf(input);
    expect(JSON.stringify({ message: error.message, hint: error.hint, details: error.details })).not.toContain(SECRET);
    expect(error.message).not.toContain('[object Object]');
  });

  it('resolveConfig: a secret given in a wrong shape says so without showing it', () => {
    expect(errorOf({ flags: { 'os-password': true } }).message)
      .toBe('--os-password: expected a non-empty string, got a value that is not shown (secret)');
  });
});
