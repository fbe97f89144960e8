import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';

export const catalogSchema = z.array(z.object({
  type: z.string(),
  name: z.string().optional(),
  endpoints: z.array(z.object({
    interface: z.string(),
    url: z.string(),
    region_id: z.string().nullish(),
    region: z.string().nullish(),
  })),
}));

export type ServiceCatalog = z.infer<typeof catalogSchema>;

export interface EndpointSelection {
  /** Tried in order (nova's valid_interfaces); the first with an endpoint wins. */
  readonly interfaces: readonly string[];
  readonly region?: string | undefined;
}

/** Pick one endpoint URL for a service type from a Keystone catalog, like keystoneauth does. Pure. */
export function selectEndpoint(catalog: ServiceCatalog, serviceType: string, selection: EndpointSelection): string {
  const services = catalog.filter((entry) => entry.type === serviceType);
  const inRegion = services.flatMap((service) => service.endpoints)
    .filter((endpoint) => selection.region === undefined
      || endpoint.region_id === selection.region || endpoint.region === selection.region);
  const chosen = selection.interfaces
    .map((wanted) => inRegion.find((endpoint) => endpoint.interface === wanted))
    .find((endpoint) => endpoint !== undefined);
  if (chosen === undefined) {
    const offered = services.flatMap((s) => s.endpoints.map((e) => `${e.interface}@${e.region_id ?? e.region ?? '-'}`));
    const wanted = `${selection.interfaces.join(' or ')} endpoint${selection.region ? ` in region ${selection.region}` : ''}`;
    throw new FerryError('FERRY_ENDPOINT_NOT_FOUND',
      services.length === 0
        ? `the service catalog has no '${serviceType}' service`
        : `the '${serviceType}' service has no ${wanted} (catalog offers: ${offered.join(', ') || 'none'})`,
      `Choose another interface/region (--os-interface, --os-region-name) or give the endpoint explicitly (${overrideFlag(serviceType)}).`,
      { serviceType, interfaces: selection.interfaces, region: selection.region, offered });
  }
  return chosen.url.replace(/\/+$/, '');
}

function overrideFlag(serviceType: string): string {
  return serviceType === 'image' ? '--glance-endpoint' : serviceType === 'placement' ? '--placement-endpoint' : `an endpoint override for ${serviceType}`;
}
