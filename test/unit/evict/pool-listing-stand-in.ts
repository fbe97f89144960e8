import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { World } from './evict-world.js';

/**
 * For the CLI's in-process tests: a stand-in for the python program (FERRY_RBD_PYTHON) that prints the world's pool
 * listing, set before the file's tests and put back after. Returns the scratch directory it lives in.
 */
export function usePoolListingStandIn(world: () => World, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const python = join(dir, 'python3');
  const savedPython = process.env.FERRY_RBD_PYTHON;
  beforeAll(async () => {
    const listing = await world().runner.run('python3', ['-I', '-c', 'x', 'conf', 'user', '10', 'images', 'snap', 'list'], { timeoutMs: 1000 });
    writeFileSync(join(dir, 'listing.json'), listing.outcome === 'exited' ? listing.stdout : '');
    writeFileSync(python, `#!/bin/sh\ncat '${join(dir, 'listing.json')}'\n`);
    chmodSync(python, 0o755);
    process.env.FERRY_RBD_PYTHON = python;
  });
  afterAll(() => {
    if (savedPython === undefined) delete process.env.FERRY_RBD_PYTHON;
    else process.env.FERRY_RBD_PYTHON = savedPython;
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}
