/**
 * One entry of nova's config files as ferry is given them (FERRY_NOVA_CONF, `--nova-conf`, the agent unit's
 * `ferry-nova-conf-subset` arguments): a leading `-` makes the file optional — read when it exists, skipped when it does
 * not — as systemd's `EnvironmentFile=-`, and as Debian 12's nova-compute reads `/etc/nova/nova-compute.conf` only
 * when it exists (its init script passes that `--config-file` then). Without the `-`, a missing file is an error: a
 * typo must not leave the agent with nova's defaults.
 */
export interface NovaConfPath {
  readonly path: string;
  readonly optional: boolean;
}

export function parseNovaConfPath(entry: string): NovaConfPath {
  return entry.startsWith('-') ? { path: entry.slice(1), optional: true } : { path: entry, optional: false };
}

/** A `:`-separated list (FERRY_NOVA_CONF's form), empty entries dropped. */
export function parseNovaConfList(list: string): NovaConfPath[] {
  return list.split(':').filter((entry) => entry !== '' && entry !== '-').map(parseNovaConfPath);
}

/** What the package's agent unit reads by default: Debian 12's nova-compute order. */
export const PACKAGED_NOVA_CONF = '/etc/nova/nova.conf:-/etc/nova/nova-compute.conf';
