// Nock scaffolding for the Placement client: a token session with a fixed endpoint (no Keystone), answers recorded
// from Placement 8.0.0 on the dev cloud (fixtures/placement, via test/helpers/fixtures.ts).
import nock from 'nock';
import { afterEach } from 'vitest';
import { createHttpTransport, type HttpTransport } from '../../../src/openstack/http-transport.js';
import { createSession } from '../../../src/openstack/keystone-session.js';
import { createServiceClient } from '../../../src/openstack/service-client.js';
import { createPlacementClient, type PlacementClient } from '../../../src/placement/placement-client.js';
import { loadExchange, replay, type PlacementFixture, type ReplayOptions } from '../../helpers/fixtures.js';

export const BASE = 'http://placement.test:8778';

/** The provider the fixtures were recorded with (ferry-fixture-host-a). */
export const FIXTURE_PROVIDER = '25db01ca-dd34-4756-8c28-470a7caf4920';

/** A provider body: `GET /resource_providers/{uuid}` answers with the same fields `POST /resource_providers` recorded. */
export function providerBody(): Record<string, unknown> {
  return loadExchange('placement', 'provider-create').body as Record<string, unknown>;
}

export function placementClient(options: { microversion?: string } = {}): { placement: PlacementClient; transport: HttpTransport } {
  const transport = createHttpTransport();
  const session = createSession({
    auth: { method: 'token', token: 'unit-token' },
    endpoints: { placement: { url: BASE, interfaces: ['public'] } },
    transport,
  });
  const http = createServiceClient({ serviceType: 'placement', serviceName: 'Placement', session, transport,
    retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1 } });
  return { placement: createPlacementClient(http, options), transport };
}

/**
 * For a test file: a factory of Placement clients whose transports are closed after each test. Call once, at the top.
 */
export function closingPlacementClients(): (options?: { microversion?: string }) => PlacementClient {
  const transports: HttpTransport[] = [];
  afterEach(async () => {
    for (const transport of transports.splice(0)) await transport.close();
  });
  return (options = {}) => {
    const made = placementClient(options);
    transports.push(made.transport);
    return made.placement;
  };
}

/** `GET /` with the recorded root (max 1.39), or announcing `maxVersion` instead. */
export function placementRoot(maxVersion?: string): nock.Scope {
  const root = loadExchange('placement', 'root');
  if (maxVersion === undefined) return replay(nock(BASE), root);
  const versions = [{ id: 'v1.0', max_version: maxVersion, min_version: '1.0', status: 'CURRENT', links: [] }];
  return replay(nock(BASE), { ...root, body: { versions } });
}

/** A scope whose interceptors only match requests sent at `microversion`. */
export function at(microversion = '1.39'): nock.Scope {
  return nock(BASE, { reqheaders: { 'openstack-api-version': `placement ${microversion}` } });
}

/** The recorded answer `name`, served once at 1.39 (or on `scope`). */
export function answer(name: PlacementFixture, options: ReplayOptions & { scope?: nock.Scope } = {}): nock.Scope {
  return replay(options.scope ?? at(), loadExchange('placement', name), options);
}
