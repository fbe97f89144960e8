import { isFerryError } from '../errors/ferry-error.js';
import type { CallOptions, PlacementClient } from './placement-client.js';
import { providerNotFound } from './placement-refusal.js';
import type { ResourceProvider } from './resource-provider.js';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A provider by UUID or by name. A UUID-shaped reference is tried as a UUID first, then as a name: Ironic nodes'
 * providers are named after the node UUID, and any name may look like one. FERRY_PROVIDER_NOT_FOUND when neither
 * matches.
 */
export async function resolveProvider(placement: PlacementClient, ref: string, call: CallOptions = {}): Promise<ResourceProvider> {
  const wanted = ref.trim();
  if (UUID.test(wanted)) {
    try {
      return await placement.getProvider(wanted, call);
    } catch (error) {
      if (!isFerryError(error, 'FERRY_PROVIDER_NOT_FOUND')) throw error;
    }
  }
  const byName = wanted === '' ? undefined : await placement.findProviderByName(wanted, call);
  if (byName === undefined) throw providerNotFound(`'${ref}' (neither a provider UUID nor a provider name)`, undefined);
  return byName;
}
