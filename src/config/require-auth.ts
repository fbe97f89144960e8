import { FerryError } from '../errors/ferry-error.js';
import type { AuthConfig, FerryConfig } from './ferry-config.js';

export interface RequireAuthOptions {
  /**
   * The services the command will call. A token without an auth URL has no catalog to find them in, so each needs
   * an explicit endpoint (--glance-endpoint, --placement-endpoint).
   */
  readonly services?: readonly ('image' | 'placement')[];
}

const OVERRIDE_FLAG = { image: '--glance-endpoint', placement: '--placement-endpoint' } as const;

/**
 * The credentials of a command that needs a cloud, or FERRY_INVALID_OPTION saying what is missing and every way to
 * give it. Never names a secret's value.
 */
export function requireAuth(config: FerryConfig, options: RequireAuthOptions = {}): AuthConfig {
  const { auth } = config;
  if (auth === undefined) {
    const cloud = config.origin.cloud === undefined
      ? ''
      : ` (cloud '${config.origin.cloud}' from ${config.origin.cloudsFile ?? config.origin.secureFile ?? 'clouds.yaml'})`;
    const lines = config.missingAuth.map((p) => `  - ${p.what}: ${orList(p.ways)}`);
    throw new FerryError('FERRY_INVALID_OPTION',
      `OpenStack credentials are missing or incomplete${cloud}. Missing:\n${lines.join('\n')}`,
      'Name a cloud of clouds.yaml with --os-cloud NAME or OS_CLOUD (looked up in ./, ~/.config/openstack/ and '
      + '/etc/openstack/), source an openrc file (OS_* variables), or pass the --os-* flags. Other methods: '
      + 'OS_AUTH_TYPE=v3applicationcredential with OS_APPLICATION_CREDENTIAL_ID and OS_APPLICATION_CREDENTIAL_SECRET; '
      + 'or --os-token with --glance-endpoint / --placement-endpoint, which needs no Keystone at all. '
      + 'See docs/configuration.md.',
      { missing: config.missingAuth.map((p) => p.what), ...(config.origin.cloud === undefined ? {} : { cloud: config.origin.cloud }) });
  }
  if (auth.method === 'token' && auth.authUrl === undefined) {
    const unreachable = (options.services ?? []).filter((service) => config.endpoints[service].url === undefined);
    if (unreachable.length > 0) {
      throw new FerryError('FERRY_INVALID_OPTION',
        `A token without an auth URL gives no service catalog, and no endpoint is set for ${unreachable.join(' and ')}`,
        `Pass ${unreachable.map((s) => OVERRIDE_FLAG[s]).join(' and ')} (or FERRY_GLANCE_ENDPOINT / `
        + 'FERRY_PLACEMENT_ENDPOINT), or add --os-auth-url so ferry can read the catalog.',
        { services: unreachable });
    }
  }
  return auth;
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1] ?? ''}`;
}
