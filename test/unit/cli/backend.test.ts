import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendJsonSchema } from '../../../src/contract/backend-document.js';
import { runFerry } from '../../helpers/run-ferry.js';

describe('ferry backend', () => {
  it.each([
    { title: 'rbd host, raw image', args: ['--images-type', 'rbd'], file: 'raw-site-a', backend: 'rbd', converted: false },
    { title: 'rbd host, qcow2 image (converted)', args: ['--images-type', 'rbd'], file: 'qcow2', backend: 'rbd', converted: true },
    { title: 'rbd host keeping qcow2', args: ['--images-type', 'rbd', '--images-type-mapping', 'qcow2:qcow2'], file: 'qcow2', backend: 'qcow2', converted: false },
    { title: 'default host (use_cow_images) keeping ploop', args: ['--images-type-mapping', 'raw:lvm, ploop:ploop'], file: 'ploop', backend: 'ploop', converted: false },
  ])('ferry backend: $title → $backend', async ({ args, file, backend, converted }) => {
    const run = await runFerry(['backend', '--image', `fixtures/images/${file}.json`, ...args, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const json = backendJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ backend, converted });
    expect(json.reason).not.toBe('');
  });

  it('ferry backend: an ambiguous mapping → exit 45 and an error document naming the entries', async () => {
    const run = await runFerry(['backend', '--image', 'fixtures/images/raw-site-a.json', '--images-type-mapping', 'raw:rbd, raw:lvm', '--json']);
    expect(run.code).toBe(45);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_MAPPING', message: expect.stringContaining('raw:lvm') as unknown } });
  });

  it('ferry backend: a file that is not JSON → FERRY_INVALID_IMAGE_FILE (exit 5) naming the file', async () => {
    const run = await runFerry(['backend', '--image', 'fixtures/images/README.md', '--json']);
    expect(run.code).toBe(5);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_IMAGE_FILE', message: expect.stringContaining('README.md') as unknown } });
  });

  it('ferry backend: the openstack CLI\'s image show -f json output is read like Glance\'s body', async () => {
    const run = await runFerry(['backend', '--image', 'fixtures/images/openstack-image-show.json', '--images-type', 'rbd', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ image: '23ab64d4-642b-425f-8c9f-ae0a406aaf27', backend: 'rbd', disk_format: 'qcow2', converted: true });
  });

  it('ferry backend: a hand-written document with only disk_format is enough', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-backend-'));
    const file = join(dir, 'partial.json');
    writeFileSync(file, '{"disk_format": "qcow2"}');
    const run = await runFerry(['backend', '--image', file, '--images-type', 'rbd', '--images-type-mapping', 'qcow2:qcow2', '--json']);
    rmSync(dir, { recursive: true });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ image: file, backend: 'qcow2', converted: false });
  });

  it('ferry backend: a document without disk_format lists that with its other problems, exit 5, no endpoint hint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-backend-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{"hw_disk_bus": 1, "min_ram": "512"}');
    const run = await runFerry(['backend', '--image', file, '--json']);
    rmSync(dir, { recursive: true });
    expect(run.code).toBe(5);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('FERRY_INVALID_IMAGE_FILE');
    expect(error.message).toBe(`--image ${file} is not a usable image document (3 problems):\n`
      + '  - hw_disk_bus: expected a string (Glance keeps every image property as one), got 1\n'
      + '  - min_ram: expected a number, got "512"\n'
      + '  - disk_format is missing, and this command needs it');
    expect(error.hint).toContain('openstack image show -f json');
    expect(error.hint).not.toMatch(/endpoint/);
  });

  it('ferry backend: text output names the backend and the reason', async () => {
    const run = await runFerry(['backend', '--image', 'fixtures/images/qcow2.json', '--images-type', 'rbd']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('rbd');
    expect(run.stdout).toContain('converted from qcow2 to raw');
  });
});
