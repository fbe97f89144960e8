import pLimit from 'p-limit';
import type { CallOptions, PlacementClient } from '../placement/placement-client.js';
import { PROVIDER_LOOKUP_DEFAULTS } from './read-provider-names.js';

/** Which of the asked-about traits each host has, and how ferry found out. */
export interface HostTraits {
  /** Host UUID → its traits. `per-host`: every trait it has; `per-trait`: only those among the asked ones. */
  readonly traits: ReadonlyMap<string, ReadonlySet<string>>;
  /** `per-host`: one `GET /resource_providers/{uuid}/traits` per host; `per-trait`: one `GET /resource_providers?required=T` per trait. */
  readonly strategy: 'per-host' | 'per-trait' | 'none';
  readonly requests: number;
}

/**
 * The traits of `hosts` that matter for `names` (the request's traits), in as few requests as possible:
 * min(#hosts, #traits). Few hosts: read each host's traits. Many hosts (every compute node of a cloud): ask, per
 * trait, which providers have it: the answer is exact for the asked traits, which is all explainCandidate reads.
 */
export async function readHostTraits(placement: PlacementClient, hosts: readonly string[], names: readonly string[],
  call: CallOptions = {}): Promise<HostTraits> {
  const traits = new Map<string, Set<string>>(hosts.map((uuid) => [uuid, new Set<string>()]));
  const unique = [...new Set(names)].sort();
  if (hosts.length === 0 || unique.length === 0) return { traits, strategy: 'none', requests: 0 };
  const limit = pLimit(PROVIDER_LOOKUP_DEFAULTS.concurrency);
  if (hosts.length <= unique.length) {
    await Promise.all(hosts.map((uuid) => limit(async () => {
      traits.set(uuid, new Set((await placement.getProviderTraits(uuid, call)).traits));
    })));
    return { traits, strategy: 'per-host', requests: hosts.length };
  }
  await Promise.all(unique.map((name) => limit(async () => {
    for (const provider of await placement.listProviders({ required: [name] }, call)) traits.get(provider.uuid)?.add(name);
  })));
  return { traits, strategy: 'per-trait', requests: unique.length };
}
