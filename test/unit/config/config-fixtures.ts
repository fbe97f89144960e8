// Shared inputs of the config tests: the fixture files of fixtures/config, and resolveConfig over a virtual file
// system (paths → texts), so no test reads the real ~/.config/openstack or /etc.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlagValues } from '../../../src/config/config-layers.js';
import type { FerryConfig } from '../../../src/config/ferry-config.js';
import { resolveConfig } from '../../../src/config/resolve-config.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'config');

export function configFixture(name: 'clouds.yaml' | 'secure.yaml' | 'nova-compute-edge.conf' | 'nova-compute-edge-compute.conf'): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export const HOME = '/home/op';
export const CWD = '/srv/work';
export const USER_CLOUDS = `${HOME}/.config/openstack/clouds.yaml`;
export const USER_SECURE = `${HOME}/.config/openstack/secure.yaml`;
export const NOVA_CONF = '/etc/nova/nova.conf';
export const NOVA_COMPUTE_CONF = '/etc/nova/nova-compute.conf';

export interface VirtualInput {
  readonly flags?: FlagValues;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly files?: Readonly<Record<string, string>>;
}

export function resolveWith(input: VirtualInput = {}): FerryConfig {
  const files = input.files ?? {};
  return resolveConfig({
    flags: input.flags ?? {},
    env: input.env ?? {},
    cwd: CWD,
    homeDir: HOME,
    readFile: (path) => files[path],
  });
}

/** The fixture clouds.yaml and secure.yaml in ~/.config/openstack, and the edge nova.conf in /etc/nova. */
export const FIXTURE_FILES: Readonly<Record<string, string>> = {
  [USER_CLOUDS]: configFixture('clouds.yaml'),
  [USER_SECURE]: configFixture('secure.yaml'),
  [NOVA_CONF]: configFixture('nova-compute-edge.conf'),
};
