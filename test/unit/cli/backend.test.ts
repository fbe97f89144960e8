import { describe, expect, it } from 'vitest';
import { backendJsonSchema } from '../../../src/cli/commands/backend.js';
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

  it('ferry backend: a file that is not JSON → exit 2 naming the file', async () => {
    const run = await runFerry(['backend', '--image', 'fixtures/images/README.md', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_INVALID_OPTION', message: expect.stringContaining('README.md') as unknown } });
  });

  it('ferry backend: text output names the backend and the reason', async () => {
    const run = await runFerry(['backend', '--image', 'fixtures/images/qcow2.json', '--images-type', 'rbd']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('rbd');
    expect(run.stdout).toContain('converted from qcow2 to raw');
  });
});
