// Setting up the real Placement for an integration test as an admin would (providers, inventories, traits, custom
// traits, allocations), with plain requests at 1.39, and undoing all of it afterwards.
import { randomUUID } from 'node:crypto';
import type { Cloud } from '../../src/cloud/cloud.js';

const V = 'placement 1.39';

export interface TestProvider {
  readonly uuid: string;
  readonly name: string;
}

export interface Inventory {
  readonly total: number;
  readonly reserved?: number;
  readonly allocation_ratio?: number;
  readonly max_unit?: number;
}

export interface PlacementAdmin {
  /** One request; the status (any of 200, 201, 204, 404, 409 is accepted, others throw). */
  request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<number>;
  /** A root provider named `name`, with its inventory (generation 0 → 1) and, when given, traits (→ 2). */
  createProvider(name: string, options?: { readonly inventory?: Readonly<Record<string, Inventory>>; readonly traits?: readonly string[] }): Promise<TestProvider>;
  /** Creates a custom trait, deleted again by cleanup. */
  createTrait(name: string): Promise<void>;
  /** Allocates `resources` on `provider` for a new consumer (an instance), freed again by cleanup. */
  allocate(provider: string, resources: Readonly<Record<string, number>>): Promise<void>;
  /** Allocations, then providers, then custom traits: the order Placement needs (a used trait or provider is a 409). */
  cleanup(): Promise<void>;
}

export function placementAdmin(cloud: Cloud): PlacementAdmin {
  const providers: string[] = [];
  const traits: string[] = [];
  const consumers: string[] = [];
  const admin: PlacementAdmin = {
    async request(method, path, body) {
      const response = await cloud.placementHttp.request({ method, path, headers: { 'openstack-api-version': V },
        ...(body === undefined ? {} : { body }), accept: [200, 201, 204, 404, 409] });
      return response.status;
    },
    async createProvider(name, options = {}) {
      const provider = { uuid: randomUUID(), name };
      expectStatus(await admin.request('POST', '/resource_providers', provider), [200], `create provider ${name}`);
      providers.push(provider.uuid);
      let generation = 0;
      if (options.inventory !== undefined) {
        expectStatus(await admin.request('PUT', `/resource_providers/${provider.uuid}/inventories`,
          { resource_provider_generation: generation, inventories: options.inventory }), [200], `inventory of ${name}`);
        generation += 1;
      }
      if (options.traits !== undefined && options.traits.length > 0) {
        expectStatus(await admin.request('PUT', `/resource_providers/${provider.uuid}/traits`,
          { resource_provider_generation: generation, traits: options.traits }), [200], `traits of ${name}`);
      }
      return provider;
    },
    async createTrait(name) {
      expectStatus(await admin.request('PUT', `/traits/${name}`), [201, 204], `create trait ${name}`);
      traits.push(name);
    },
    async allocate(provider, resources) {
      const consumer = randomUUID();
      expectStatus(await admin.request('PUT', `/allocations/${consumer}`, {
        allocations: { [provider]: { resources } }, project_id: randomUUID(), user_id: randomUUID(),
        consumer_generation: null, consumer_type: 'INSTANCE',
      }), [204], `allocation on ${provider}`);
      consumers.push(consumer);
    },
    async cleanup() {
      for (const consumer of consumers.splice(0)) await admin.request('DELETE', `/allocations/${consumer}`);
      for (const uuid of providers.splice(0).reverse()) await admin.request('DELETE', `/resource_providers/${uuid}`);
      for (const name of traits.splice(0)) await admin.request('DELETE', `/traits/${name}`);
    },
  };
  return admin;
}

function expectStatus(status: number, expected: readonly number[], what: string): void {
  if (!expected.includes(status)) throw new Error(`${what}: Placement answered ${status}, expected ${expected.join(' or ')}`);
}
