import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidatesJsonSchema } from '../../../src/contract/candidates-document.js';
import { explainJsonSchema } from '../../../src/contract/explain-document.js';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { createPlacementClient, type PlacementClient } from '../../../src/placement/placement-client.js';
import { readTraitCatalogue } from '../../../src/placement/read-trait-catalogue.js';
import { reportTraits } from '../../../src/placement/report-traits.js';
import { explainHosts } from '../../../src/prefilter/explain-hosts.js';
import { findCandidates } from '../../../src/prefilter/find-candidates.js';
import { imageTraitRequest } from '../../../src/prefilter/image-trait-request.js';
import type { HostCapabilitiesInput } from '../../../src/traits/host-traits.js';
import type { TraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { ADMIN_CLOUD, cloudEnv, countingTransport, devCloud, markReached, type CountingTransport } from '../../helpers/devcloud.js';
import { hostTraitReport, recordedXml, type HostStorage } from '../../helpers/host-trait-report.js';
import { placementAdmin, type PlacementAdmin, type TestProvider } from '../../helpers/placement-admin.js';
import { runFerry } from '../../helpers/run-ferry.js';

// Real Placement 8.0.0 behind Keystone. Seven compute nodes whose traits come from the traits module (the recorded
// Debian 12 libvirt XML, different storage configs), reported with reportTraits. Every query requires a run-unique
// CUSTOM_ trait that only these providers carry, so providers of other tests never change the answers. Everything is
// deleted in afterAll.
const RUN = randomUUID().slice(0, 8);
const SCOPE = `CUSTOM_IT_PREFILTER_${RUN.toUpperCase()}`;
const FLAVOR = { [`trait:${SCOPE}`]: 'required' };
const RESOURCES = 'VCPU:1,MEMORY_MB:512';
const ROOMY = { VCPU: { total: 8, allocation_ratio: 4.0 }, MEMORY_MB: { total: 16384, reserved: 512 }, DISK_GB: { total: 100 } };
const SMALL = { VCPU: { total: 2 }, MEMORY_MB: { total: 1024 }, DISK_GB: { total: 20 } };

type Label = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G';
interface HostSpec {
  readonly label: Label;
  readonly what: string;
  readonly input: Omit<HostCapabilitiesInput, 'storage'>;
  readonly storage: HostStorage;
  readonly seed?: readonly string[];
  readonly small?: boolean;
}

const kvm = (): Omit<HostCapabilitiesInput, 'storage'> => ({ virtType: 'kvm', libvirtVersion: '9.0.0', ...recordedXml() });
const HOST_SPECS: readonly HostSpec[] = [
  { label: 'A', what: 'kvm, pc + q35, rbd with force_raw_images', input: kvm(), storage: { imagesType: 'rbd', forceRawImages: true } },
  { label: 'B', what: 'kvm, pc + q35, rbd keeping raw only', input: kvm(), storage: { imagesType: 'rbd', forceRawImages: false } },
  { label: 'C', what: 'qemu, q35 only (no IDE bus), qcow2', storage: { imagesType: 'qcow2' },
    input: { virtType: 'qemu', libvirtVersion: '9.0.0', ...recordedXml(['domcaps-x86_64-qemu-q35.xml']) } },
  { label: 'D', what: 'parallels, ploop', input: { virtType: 'parallels', hostArch: 'x86_64' }, storage: { imagesType: 'ploop', mapping: 'ploop:ploop' } },
  { label: 'E', what: 'kvm on aarch64 without domain capabilities', input: { virtType: 'kvm', hostArch: 'aarch64', libvirtVersion: '9.0.0' },
    storage: { imagesType: 'default' } },
  { label: 'F', what: 'as A, disabled', input: kvm(), storage: { imagesType: 'rbd' }, seed: ['COMPUTE_STATUS_DISABLED'] },
  { label: 'G', what: 'as A, 1024 MB of which 768 in use', input: kvm(), storage: { imagesType: 'rbd' }, small: true },
];

let transport: CountingTransport;
let cloud: Cloud;
let admin: PlacementAdmin;
let placement: PlacementClient;
let catalogue: TraitCatalogue;
const hosts = new Map<Label, TestProvider>();
const labelOf = (uuid: string): string => [...hosts].find(([, p]) => p.uuid === uuid)?.[0] ?? `foreign ${uuid}`;

beforeAll(async () => {
  transport = countingTransport();
  // Admin: Placement's stock rules give allocation candidates, providers and traits to admin only (docs/security.md,
  // "Placement"); the set-up writes providers too.
  cloud = await devCloud({ cloud: ADMIN_CLOUD, transport });
  admin = placementAdmin(cloud);
  placement = createPlacementClient(cloud.placementHttp);
  await admin.createTrait(SCOPE);
  catalogue = await readTraitCatalogue(placement);
  for (const spec of HOST_SPECS) {
    const provider = await admin.createProvider(`it-prefilter-${RUN}-${spec.label}`,
      { inventory: spec.small === true ? SMALL : ROOMY, traits: [SCOPE, ...(spec.seed ?? [])] });
    await reportTraits(placement, provider.uuid, hostTraitReport(spec.input, spec.storage, catalogue), { catalogue });
    if (spec.small === true) await admin.allocate(provider.uuid, { MEMORY_MB: 768 });
    hosts.set(spec.label, provider);
  }
  markReached('placement');
});

afterAll(async () => {
  await admin.cleanup();
  await cloud.close();
  await transport.close();
});

/** An image as Glance returns it: fixtures/images/qcow2.json with other properties. */
function image(properties: Record<string, string>): Record<string, unknown> {
  return { ...(JSON.parse(readFileSync('fixtures/images/qcow2.json', 'utf8')) as Record<string, unknown>), ...properties };
}

// Per image: the hosts Placement must return, and what keeps each other host out (F is always disabled, G always
// short of memory unless a trait keeps it out first).
const IMAGES: readonly { title: string; properties: Record<string, string>; candidates: Label[]; lacks: Partial<Record<Label, string[]>> }[] = [
  { title: 'qcow2', properties: { disk_format: 'qcow2' }, candidates: ['A', 'C', 'D', 'E'],
    lacks: { B: ['COMPUTE_IMAGE_TYPE_QCOW2'] } },
  { title: 'raw', properties: { disk_format: 'raw' }, candidates: ['A', 'B', 'C', 'D', 'E'], lacks: {} },
  { title: 'ploop', properties: { disk_format: 'ploop' }, candidates: ['D'],
    lacks: { A: ['COMPUTE_IMAGE_TYPE_PLOOP'], B: ['COMPUTE_IMAGE_TYPE_PLOOP'], C: ['COMPUTE_IMAGE_TYPE_PLOOP'], E: ['COMPUTE_IMAGE_TYPE_PLOOP'],
      F: ['COMPUTE_IMAGE_TYPE_PLOOP'], G: ['COMPUTE_IMAGE_TYPE_PLOOP'] } },
  { title: 'qcow2, hw_disk_bus=ide', properties: { disk_format: 'qcow2', hw_disk_bus: 'ide' }, candidates: ['A', 'D'],
    lacks: { B: ['COMPUTE_IMAGE_TYPE_QCOW2'], C: ['COMPUTE_STORAGE_BUS_IDE'], E: ['COMPUTE_STORAGE_BUS_IDE'] } },
  { title: 'qcow2, hw_disk_bus=scsi, hw_vif_model=e1000', properties: { disk_format: 'qcow2', hw_disk_bus: 'scsi', hw_vif_model: 'e1000' },
    candidates: ['A', 'C', 'D'], lacks: { B: ['COMPUTE_IMAGE_TYPE_QCOW2'], E: ['COMPUTE_STORAGE_BUS_SCSI'] } },
  { title: 'raw, hw_disk_bus=virtio, hw_vif_model=virtio', properties: { disk_format: 'raw', hw_disk_bus: 'virtio', hw_vif_model: 'virtio' },
    candidates: ['A', 'B', 'C'], lacks: { D: ['COMPUTE_STORAGE_BUS_VIRTIO'], E: ['COMPUTE_STORAGE_BUS_VIRTIO'] } },
  { title: 'qcow2, hw_video_model=qxl', properties: { disk_format: 'qcow2', hw_video_model: 'qxl' }, candidates: ['A', 'C'],
    lacks: { B: ['COMPUTE_IMAGE_TYPE_QCOW2'], D: ['COMPUTE_GRAPHICS_MODEL_QXL'], E: ['COMPUTE_GRAPHICS_MODEL_QXL'] } },
  { title: 'raw, hw_architecture=aarch64', properties: { disk_format: 'raw', hw_architecture: 'aarch64' }, candidates: ['E'],
    lacks: { A: ['HW_ARCH_AARCH64'], B: ['HW_ARCH_AARCH64'], C: ['HW_ARCH_AARCH64'], D: ['HW_ARCH_AARCH64'], F: ['HW_ARCH_AARCH64'], G: ['HW_ARCH_AARCH64'] } },
  { title: 'qcow2, hw_architecture=x86_64, hw_viommu_model=intel', properties: { disk_format: 'qcow2', hw_architecture: 'x86_64', hw_viommu_model: 'intel' },
    candidates: ['A', 'C'], lacks: { B: ['COMPUTE_IMAGE_TYPE_QCOW2'], D: ['COMPUTE_VIOMMU_MODEL_INTEL'], E: ['COMPUTE_VIOMMU_MODEL_INTEL', 'HW_ARCH_X86_64'] } },
];

describe('findCandidates and explainHosts against the real Placement', () => {
  it.each(IMAGES)('findCandidates: $title → exactly $candidates', async ({ properties, candidates }) => {
    const request = imageTraitRequest(image(properties), { catalogue, flavorExtraSpecs: FLAVOR });
    const list = await findCandidates(placement, request, RESOURCES, { catalogue });
    expect(list.microversion).toBe('1.39');
    expect(list.candidates.map((c) => labelOf(c.uuid)).sort()).toEqual(candidates);
    expect(list.candidates.map((c) => c.name).sort()).toEqual(candidates.map((l) => hosts.get(l)?.name));
  });

  it.each(IMAGES)('explainHosts: $title → each excluded host names its missing trait, F its forbidden one, G its memory', async ({ properties, candidates, lacks }) => {
    const request = imageTraitRequest(image(properties), { catalogue, flavorExtraSpecs: FLAVOR });
    const explained = await explainHosts(placement, request, { providers: [...hosts.values()].map((h) => h.name), resources: RESOURCES, catalogue });
    const seen = Object.fromEntries(explained.hosts.map((h) => [labelOf(h.uuid), {
      candidate: h.candidate, lacks: h.lacks.map((g) => g.trait), has: h.hasForbidden.map((g) => g.trait), verdict: h.verdict,
    }]));
    for (const spec of HOST_SPECS) {
      const label = spec.label;
      const missing = lacks[label] ?? [];
      const candidate = candidates.includes(label);
      expect(seen[label], `host ${label} (${spec.what})`).toEqual({
        candidate, lacks: missing, has: label === 'F' ? ['COMPUTE_STATUS_DISABLED'] : [],
        verdict: candidate ? 'candidate' : label === 'G' && missing.length === 0 ? 'resources' : 'traits',
      });
    }
  });

  it('explainHosts: G\'s reason gives the numbers Placement judged it by', async () => {
    const request = imageTraitRequest(image({ disk_format: 'raw' }), { catalogue, flavorExtraSpecs: FLAVOR });
    const explained = await explainHosts(placement, request, { providers: [hosts.get('G')?.uuid ?? ''], resources: RESOURCES, catalogue });
    expect(explained.hosts[0]?.reason).toBe('traits match, but not enough resources: MEMORY_MB needs 512, 256 free (capacity 1024, used 768)');
  });
});

describe('ferry candidates and ferry explain against the real Placement', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-it-prefilter-'));
  const file = join(dir, 'qcow2-ide.json');
  writeFileSync(file, JSON.stringify(image({ disk_format: 'qcow2', hw_disk_bus: 'ide' })));
  const scope = ['--flavor-extra-spec', `trait:${SCOPE}=required`];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ferry candidates --json: the two hosts with the IDE bus and qcow2, by name, checked against Placement\'s trait list', async () => {
    const run = await runFerry(['candidates', '--image', file, ...scope, '--resources', RESOURCES, '--json'], { env: cloudEnv(ADMIN_CLOUD) });
    expect(run.code, run.stdout).toBe(0);
    const json = candidatesJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ microversion: '1.39', catalogue_version: 'placement',
      root_required: ['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_STORAGE_BUS_IDE'], root_forbidden: ['COMPUTE_STATUS_DISABLED'] });
    expect(json.candidates.map((c) => c.name).sort()).toEqual([hosts.get('A')?.name, hosts.get('D')?.name]);
  });

  it('ferry explain: text names, host by host, the trait or resource that keeps it out', async () => {
    const providers = [...hosts.values()].flatMap((h) => ['--provider', h.name]);
    const run = await runFerry(['explain', '--image', file, ...scope, '--resources', RESOURCES, ...providers], { env: cloudEnv(ADMIN_CLOUD) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('2 of 7 hosts can take it with VCPU:1,MEMORY_MB:512');
    expect(run.stdout).toMatch(new RegExp(`✗ ${hosts.get('C')?.name ?? ''} +\\S+ +lacks COMPUTE_STORAGE_BUS_IDE\\n`));
    expect(run.stdout).toMatch(new RegExp(`✗ ${hosts.get('F')?.name ?? ''} +\\S+ +has forbidden COMPUTE_STATUS_DISABLED\\n`));
    expect(run.stdout).toMatch(new RegExp(`✗ ${hosts.get('G')?.name ?? ''} +\\S+ +not enough resources: MEMORY_MB needs 512, 256 free \\(capacity 1024, used 768\\)\\n`));
    expect(run.stdout).toMatch(/COMPUTE_STORAGE_BUS_IDE missing +on +2 hosts +image hw_disk_bus=ide \(image-metadata prefilter\)/);
  });

  it('ferry explain --json: parses with the schema; the candidates are A and D', async () => {
    const providers = [...hosts.values()].flatMap((h) => ['--provider', h.uuid]);
    const run = await runFerry(['explain', '--image', file, ...scope, '--resources', RESOURCES, ...providers, '--json'], { env: cloudEnv(ADMIN_CLOUD) });
    expect(run.code, run.stdout).toBe(0);
    const json = explainJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.hosts.filter((h) => h.candidate).map((h) => labelOf(h.uuid)).sort()).toEqual(['A', 'D']);
    expect(json.hosts.find((h) => labelOf(h.uuid) === 'E')).toMatchObject({ lacks: ['COMPUTE_STORAGE_BUS_IDE'], has_forbidden: [] });
  });
});
