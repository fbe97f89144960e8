import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { traitsReportJsonSchema } from '../../../src/contract/traits-report-document.js';
import { createPlacementClient, type PlacementClient } from '../../../src/placement/placement-client.js';
import { readTraitCatalogue } from '../../../src/placement/read-trait-catalogue.js';
import { reportTraits } from '../../../src/placement/report-traits.js';
import type { HostCapabilitiesInput, HostTraitReport } from '../../../src/traits/host-traits.js';
import type { TraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { ADMIN_CLOUD, cloudEnv, countingTransport, devCloud, markReached, type CountingTransport } from '../../helpers/devcloud.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { hostTraitReport, recordedXml, type HostStorage } from '../../helpers/host-trait-report.js';
import { loadDomcaps } from '../../unit/traits/domcaps-fixtures.js';

// Real Placement 8.0.0 behind Keystone (the dev cloud). Every provider and custom trait made here has a per-run name
// and is deleted in afterAll.
const RUN = randomUUID().slice(0, 8);
const FOREIGN = `CUSTOM_FOREIGN_${RUN.toUpperCase()}`;
const KEPT_CUSTOM = `CUSTOM_IT_KEEP_${RUN.toUpperCase()}`;
const V = 'placement 1.39';

let transport: CountingTransport;
let cloud: Cloud;
let placement: PlacementClient;
let catalogue: TraitCatalogue;
const providers: string[] = [];

async function admin(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<number> {
  const response = await cloud.placementHttp.request({ method, path, headers: { 'openstack-api-version': V },
    ...(body === undefined ? {} : { body }), accept: [200, 201, 204, 404, 409] });
  return response.status;
}

async function createProvider(label: string, traits: readonly string[] = []): Promise<{ uuid: string; name: string }> {
  const provider = { uuid: randomUUID(), name: `it-traits-${RUN}-${label}` };
  expect(await admin('POST', '/resource_providers', provider)).toBe(200);
  providers.push(provider.uuid);
  if (traits.length > 0) {
    expect(await admin('PUT', `/resource_providers/${provider.uuid}/traits`, { resource_provider_generation: 0, traits })).toBe(200);
  }
  return provider;
}

beforeAll(async () => {
  transport = countingTransport();
  // Admin: Placement's stock rules give every call of `traits report` to admin only (docs/security.md, "Placement").
  cloud = await devCloud({ cloud: ADMIN_CLOUD, transport });
  placement = createPlacementClient(cloud.placementHttp);
  for (const name of [FOREIGN, KEPT_CUSTOM]) expect(await admin('PUT', `/traits/${name}`)).toBe(201);
  catalogue = await readTraitCatalogue(placement);
});

afterAll(async () => {
  for (const uuid of providers) await admin('DELETE', `/resource_providers/${uuid}`);
  for (const name of [FOREIGN, KEPT_CUSTOM]) await admin('DELETE', `/traits/${name}`);
  await cloud.close();
  await transport.close();
});

const kvmXml = (): Pick<HostCapabilitiesInput, 'domainCapabilities' | 'hostCapabilities'> => recordedXml();

/** The host's traits as `ferry traits report` computes them: storage through src/backend, names from this Placement. */
function report(input: Omit<HostCapabilitiesInput, 'storage'>, storage: HostStorage): HostTraitReport {
  return hostTraitReport(input, storage, catalogue);
}

const imageTypes = (traits: readonly string[]): string[] =>
  traits.filter((t) => t.startsWith('COMPUTE_IMAGE_TYPE_')).map((t) => t.slice('COMPUTE_IMAGE_TYPE_'.length));

describe('reportTraits against the real Placement', () => {
  const cases = [
    { label: 'kvm-rbd-forceraw', input: { virtType: 'kvm' as const, libvirtVersion: '9.0.0', ...kvmXml() },
      storage: { imagesType: 'rbd' as const, forceRawImages: true }, types: ['AKI', 'AMI', 'ARI', 'ISO', 'QCOW2', 'RAW'] },
    { label: 'kvm-rbd-raw-only', input: { virtType: 'kvm' as const, libvirtVersion: '9.0.0', swtpmEnabled: true, ...kvmXml() },
      storage: { imagesType: 'rbd' as const, forceRawImages: false }, types: ['AKI', 'AMI', 'ARI', 'ISO', 'RAW'] },
    { label: 'kvm-rbd-qcow2-mapped', input: { virtType: 'kvm' as const, ...kvmXml() },
      storage: { imagesType: 'rbd' as const, forceRawImages: false, mapping: 'qcow2:qcow2' }, types: ['AKI', 'AMI', 'ARI', 'ISO', 'QCOW2', 'RAW'] },
    { label: 'qemu-qcow2', input: { virtType: 'qemu' as const, hostArch: 'x86_64',
      domainCapabilities: [loadDomcaps('domcaps-x86_64-qemu-pc.xml'), loadDomcaps('domcaps-x86_64-qemu-q35.xml')] },
      storage: { imagesType: 'qcow2' as const }, types: ['AKI', 'AMI', 'ARI', 'ISO', 'QCOW2', 'RAW'] },
    { label: 'parallels-ploop', input: { virtType: 'parallels' as const, hostArch: 'x86_64' },
      storage: { imagesType: 'ploop' as const, mapping: 'ploop:ploop' }, types: ['AKI', 'AMI', 'ARI', 'ISO', 'PLOOP', 'QCOW2', 'RAW'] },
    { label: 'kvm-default-ploop-mapped', input: { virtType: 'kvm' as const, hostArch: 'x86_64' },
      storage: { imagesType: 'default' as const, mapping: 'ploop:ploop' }, types: ['AKI', 'AMI', 'ARI', 'ISO', 'PLOOP', 'QCOW2', 'RAW'] },
  ];

  it.each(cases)('reportTraits: $label — read back equals the report, foreign traits kept, stale owned ones removed', async ({ label, input, storage, types }) => {
    // Seeded like a host nova already reported: a stale image type of ferry's, the disabled flag and an operator trait.
    const seeded = ['COMPUTE_IMAGE_TYPE_VMDK', 'COMPUTE_STATUS_DISABLED', KEPT_CUSTOM];
    const provider = await createProvider(label, seeded);
    const desired = report(input, storage);
    expect(imageTypes(desired.traits)).toEqual(types);

    const result = await reportTraits(placement, provider.name, desired);
    markReached('placement');
    const readBack = await placement.getProviderTraits(provider.uuid);
    expect(readBack.traits).toEqual([...desired.traits, 'COMPUTE_STATUS_DISABLED', KEPT_CUSTOM].sort());
    expect(result).toMatchObject({ provider, unchanged: false, attempts: 1, removed: ['COMPUTE_IMAGE_TYPE_VMDK'],
      kept: ['COMPUTE_STATUS_DISABLED', KEPT_CUSTOM].sort(), traits: readBack.traits, generation: readBack.generation });
  });

  it('reportTraits: a second report is unchanged and sends no PUT', async () => {
    const provider = await createProvider('twice');
    const desired = report({ virtType: 'kvm', ...kvmXml() }, { imagesType: 'rbd', forceRawImages: false });
    const first = await reportTraits(placement, provider.uuid, desired);
    const puts = transport.count('PUT', /\/resource_providers\/[^/]+\/traits$/);
    const second = await reportTraits(placement, provider.uuid, desired);
    expect(first.unchanged).toBe(false);
    expect(second).toMatchObject({ unchanged: true, attempts: 1, added: [], removed: [], generation: first.generation });
    expect(transport.count('PUT', /\/resource_providers\/[^/]+\/traits$/)).toBe(puts);
  });

  it('reportTraits: a foreign change between read and write → 409, re-read, retried; the foreign trait survives', async () => {
    const provider = await createProvider('race', ['COMPUTE_IMAGE_TYPE_VMDK']);
    const token = await cloud.session.token();
    const endpoint = await cloud.session.endpointFor('placement');
    let raced = 0;
    // After ferry's first read, someone else adds a trait with a plain PUT: ferry's generation is now stale.
    const racing: PlacementClient = {
      ...placement,
      async getProviderTraits(uuid, call) {
        const seen = await placement.getProviderTraits(uuid, call);
        if (raced === 0) {
          raced += 1;
          const response = await fetch(`${endpoint}/resource_providers/${uuid}/traits`, {
            method: 'PUT',
            headers: { 'x-auth-token': token, 'openstack-api-version': V, 'content-type': 'application/json' },
            body: JSON.stringify({ resource_provider_generation: seen.generation, traits: [...seen.traits, FOREIGN] }),
          });
          expect(response.status).toBe(200);
        }
        return seen;
      },
    };
    const desired = report({ virtType: 'kvm', ...kvmXml() }, { imagesType: 'rbd' });
    const putsBefore = transport.count('PUT', /\/resource_providers\/[^/]+\/traits$/);
    const result = await reportTraits(racing, provider.name, desired);
    expect(result).toMatchObject({ attempts: 2, unchanged: false, removed: ['COMPUTE_IMAGE_TYPE_VMDK'], kept: [FOREIGN] });
    // Two PUTs of ferry's went out: the refused one and the retried one.
    expect(transport.count('PUT', /\/resource_providers\/[^/]+\/traits$/) - putsBefore).toBe(2);
    const readBack = await placement.getProviderTraits(provider.uuid);
    expect(readBack.traits).toEqual([...desired.traits, FOREIGN].sort());
  });

  it('reportTraits: a member account is refused by Placement policy → FERRY_FORBIDDEN naming the rule', async () => {
    const member = await devCloud({ cloud: 'devcloud-member', transport });
    await expect(reportTraits(createPlacementClient(member.placementHttp), `it-traits-${RUN}-twice`,
      { traits: ['HW_ARCH_X86_64'], decidedFamilies: ['HW_ARCH_'] }))
      .rejects.toMatchObject({ code: 'FERRY_FORBIDDEN', details: { policy: 'placement:resource_providers:list', status: 403 } });
    await member.close();
  });

  it('reportTraits: a name this Placement lacks is refused before any write (FERRY_UNKNOWN_TRAIT)', async () => {
    const provider = await createProvider('unknown');
    const puts = transport.count('PUT', /\/resource_providers\/[^/]+\/traits$/);
    await expect(reportTraits(placement, provider.uuid, {
      traits: ['COMPUTE_NET_VIF_MODEL_IGB', 'COMPUTE_NET_VIF_MODEL_VIRTIO'], decidedFamilies: ['COMPUTE_NET_VIF_MODEL_'],
    })).rejects.toMatchObject({ code: 'FERRY_UNKNOWN_TRAIT', details: { unknown: ['COMPUTE_NET_VIF_MODEL_IGB'] } });
    expect(transport.count('PUT', /\/resource_providers\/[^/]+\/traits$/)).toBe(puts);
  });
});

describe('ferry traits report against the real Placement', () => {
  it('ferry traits report --json: the CLI reports the recorded host and a second run is unchanged', async () => {
    const provider = await createProvider('cli', [KEPT_CUSTOM]);
    const args = ['traits', 'report', '--provider', provider.name, '--domcaps', 'fixtures/domcaps/domcaps-x86_64-kvm-pc.xml',
      '--domcaps', 'fixtures/domcaps/domcaps-x86_64-kvm-q35.xml', '--capabilities', 'fixtures/domcaps/capabilities.xml',
      '--images-type', 'rbd', '--force-raw-images', 'false', '--json'];
    const first = await runFerry(args, { env: cloudEnv(ADMIN_CLOUD) });
    expect(first.code, first.stdout).toBe(0);
    markReached('placement');
    const json = traitsReportJsonSchema.parse(JSON.parse(first.stdout));
    expect(json).toMatchObject({ provider, unchanged: false, attempts: 1, kept: [KEPT_CUSTOM], catalogue_version: 'placement' });
    expect((await placement.getProviderTraits(provider.uuid)).traits).toEqual(json.traits);

    const second = traitsReportJsonSchema.parse(JSON.parse((await runFerry(args, { env: cloudEnv(ADMIN_CLOUD) })).stdout));
    expect(second).toMatchObject({ unchanged: true, added: [], removed: [], generation: json.generation });
  });
});
