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
});
