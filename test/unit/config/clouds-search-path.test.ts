import { describe, expect, it } from 'vitest';
import { cloudsSearchPath } from '../../../src/config/clouds-search-path.js';

const stems = (paths: readonly string[]): string[] => [...new Set(paths.map((p) => p.replace(/\.(yaml|yml|json)$/, '')))];

describe('cloudsSearchPath', () => {
  it('cloudsSearchPath: cwd, ~/.config/openstack, /etc/openstack, each .yaml, .yml, .json', () => {
    const path = cloudsSearchPath({ env: {}, cwd: '/srv/work', homeDir: '/home/op' });
    expect(path.clouds.slice(0, 3)).toEqual(['/srv/work/clouds.yaml', '/srv/work/clouds.yml', '/srv/work/clouds.json']);
    expect(stems(path.clouds)).toEqual(['/srv/work/clouds', '/home/op/.config/openstack/clouds', '/etc/openstack/clouds']);
    expect(stems(path.secure)).toEqual(['/srv/work/secure', '/home/op/.config/openstack/secure', '/etc/openstack/secure']);
  });

  it('cloudsSearchPath: OS_CLIENT_CONFIG_FILE and OS_CLIENT_SECURE_FILE come first, relative to cwd', () => {
    const path = cloudsSearchPath({
      env: { OS_CLIENT_CONFIG_FILE: 'conf/my-clouds.yaml', OS_CLIENT_SECURE_FILE: '/run/secrets/secure.yaml' },
      cwd: '/srv/work', homeDir: '/home/op',
    });
    expect(path.clouds[0]).toBe('/srv/work/conf/my-clouds.yaml');
    expect(path.secure[0]).toBe('/run/secrets/secure.yaml');
  });

  it('cloudsSearchPath: XDG_CONFIG_HOME is searched before ~/.config; empty variables are unset', () => {
    const path = cloudsSearchPath({ env: { XDG_CONFIG_HOME: '/xdg', OS_CLIENT_CONFIG_FILE: '' }, cwd: '/w', homeDir: '/h' });
    expect(stems(path.clouds)).toEqual(['/w/clouds', '/xdg/openstack/clouds', '/h/.config/openstack/clouds', '/etc/openstack/clouds']);
  });

  it('cloudsSearchPath: a cwd that is one of the other directories is searched once', () => {
    const path = cloudsSearchPath({ env: {}, cwd: '/etc/openstack', homeDir: '/h' });
    expect(stems(path.clouds)).toEqual(['/etc/openstack/clouds', '/h/.config/openstack/clouds']);
  });

  // Issue 34: as root, or in a systemd service, a clouds.yaml or secure.yaml of the working directory was read first and
  // merged: whoever could write the directory an operator ran `sudo ferry evict` from (a shared checkout, /tmp) chose
  // the Keystone its password went to. openstacksdk searches the working directory for everyone; ferry does not for these.
  it.each([
    { name: 'root (effective uid 0)', euid: 0, env: {} },
    { name: 'a systemd service (INVOCATION_ID set), any user', euid: 998, env: { INVOCATION_ID: '6b3a1c0e2f5d4e9a8b7c6d5e4f3a2b1c' } },
  ])('cloudsSearchPath: as $name the working directory is not searched, for clouds.yaml nor secure.yaml', ({ euid, env }) => {
    const path = cloudsSearchPath({ env, cwd: '/srv/work', homeDir: '/root', euid });
    expect(stems(path.clouds)).toEqual(['/root/.config/openstack/clouds', '/etc/openstack/clouds']);
    expect(stems(path.secure)).toEqual(['/root/.config/openstack/secure', '/etc/openstack/secure']);
  });

  it('cloudsSearchPath: as root, a relative XDG_CONFIG_HOME (kept through sudo -E, say) is not searched: it is the working directory again; an absolute one is', () => {
    expect(stems(cloudsSearchPath({ env: { XDG_CONFIG_HOME: '.' }, cwd: '/srv/work', homeDir: '/root', euid: 0 }).clouds))
      .toEqual(['/root/.config/openstack/clouds', '/etc/openstack/clouds']);
    expect(stems(cloudsSearchPath({ env: { XDG_CONFIG_HOME: '/xdg' }, cwd: '/srv/work', homeDir: '/root', euid: 0 }).clouds))
      .toEqual(['/xdg/openstack/clouds', '/root/.config/openstack/clouds', '/etc/openstack/clouds']);
  });

  it('cloudsSearchPath: as root, OS_CLIENT_CONFIG_FILE still names the file (relative to the working directory: an explicit choice)', () => {
    const path = cloudsSearchPath({ env: { OS_CLIENT_CONFIG_FILE: 'clouds.yaml' }, cwd: '/srv/work', homeDir: '/root', euid: 0 });
    expect(path.clouds[0]).toBe('/srv/work/clouds.yaml');
    expect(stems(path.clouds.slice(1))).toEqual(['/root/.config/openstack/clouds', '/etc/openstack/clouds']);
  });

  it('cloudsSearchPath: another user outside a service (or no uid: not POSIX) searches it first, as openstacksdk does', () => {
    for (const euid of [1000, undefined]) {
      const path = cloudsSearchPath({ env: { INVOCATION_ID: '' }, cwd: '/srv/work', homeDir: '/home/op', euid });
      expect(stems(path.clouds)[0]).toBe('/srv/work/clouds');
    }
  });
});
