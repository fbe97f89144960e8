import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendJsonSchema } from '../../../src/contract/backend-document.js';
import { prefilterJsonSchema } from '../../../src/contract/prefilter-document.js';
import { ADMIN_CLOUD, cloudEnv, devcloud, markReached } from '../../helpers/devcloud.js';
import { runFerry } from '../../helpers/run-ferry.js';

// One image in the real Glance with hw_* properties, read three ways by ferry: from Glance (--image ID), from the
// real `openstack image show -f json` output saved to a file, and from a hand-written partial document. All three
// must give the same traits, prefilter query and backend. The image is deleted in afterAll.
const NAME = `ferry-it-imagedoc-${randomUUID().slice(0, 8)}`;
const PROPERTIES = { hw_disk_bus: 'scsi', hw_vif_model: 'e1000', hw_video_model: 'qxl', hw_architecture: 'x86_64', hw_cdrom_bus: 'sata' };
const PINNED = ['--os-traits-version', '2.9.0'];

let dir: string;
let imageId: string;

/** The openstack CLI as the dev cloud's admin (test set-up independent of ferry; ferry itself reads the image as its own identity). */
function openstack(args: readonly string[]): string {
  return execFileSync('openstack', args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...cloudEnv(ADMIN_CLOUD) }, encoding: 'utf8', timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ferry-imagedoc-'));
  devcloud();
  const props = Object.entries(PROPERTIES).flatMap(([k, v]) => ['--property', `${k}=${v}`]);
  imageId = openstack(['image', 'create', '--public', '--disk-format', 'qcow2', '--container-format', 'bare', ...props, NAME, '-f', 'value', '-c', 'id']).trim();
  writeFileSync(join(dir, 'osc.json'), openstack(['image', 'show', '-f', 'json', imageId]));
  writeFileSync(join(dir, 'partial.json'), JSON.stringify({ disk_format: 'qcow2', ...PROPERTIES }));
  markReached('keystone');
  markReached('glance');
});

afterAll(() => {
  if (imageId !== undefined && imageId !== '') openstack(['image', 'delete', imageId]);
  rmSync(dir, { recursive: true, force: true });
});

async function ferryJson(args: readonly string[]): Promise<unknown> {
  const run = await runFerry([...args, '--json'], { env: cloudEnv() });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

describe('--image FILE.json against the real Glance and openstack CLI', () => {
  it('the saved openstack CLI output really nests the hw_* properties under properties', () => {
    const saved = JSON.parse(readFileSync(join(dir, 'osc.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).not.toHaveProperty('hw_disk_bus');
    expect(saved.properties).toMatchObject(PROPERTIES);
  });

  it('ferry prefilter: --image ID, the openstack CLI file and a partial file give the same traits and query', async () => {
    const request = async (image: string) => {
      const json = prefilterJsonSchema.parse(await ferryJson(['prefilter', '--image', image, ...PINNED]));
      return { root_required: json.root_required, root_forbidden: json.root_forbidden, query: json.query, reasons: json.reasons, unmapped: json.unmapped };
    };
    const fromGlance = await request(imageId);
    expect(fromGlance.root_required).toEqual(expect.arrayContaining(['COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_STORAGE_BUS_SCSI',
      'COMPUTE_STORAGE_BUS_SATA', 'COMPUTE_NET_VIF_MODEL_E1000', 'COMPUTE_GRAPHICS_MODEL_QXL']));
    expect(await request(join(dir, 'osc.json'))).toEqual(fromGlance);
    expect(await request(join(dir, 'partial.json'))).toEqual(fromGlance);
  });

  it('ferry backend: --image ID, the openstack CLI file and a partial file choose the same backend', async () => {
    const choice = async (image: string) => {
      const { image: _id, ...rest } = backendJsonSchema.parse(await ferryJson(['backend', '--image', image, '--images-type', 'rbd']));
      return rest;
    };
    const fromGlance = await choice(imageId);
    expect(fromGlance).toMatchObject({ backend: 'rbd', disk_format: 'qcow2', converted: true });
    expect(await choice(join(dir, 'osc.json'))).toEqual(fromGlance);
    expect(await choice(join(dir, 'partial.json'))).toEqual(fromGlance);
  });
});
