import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { devcloud, markReached } from '../../helpers/devcloud.js';
import { imagesDeletedAfterAll, readImage } from '../../helpers/glance-admin.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { DIGEST_MS, FERRY_RUN_MS, md5, md5OfSnapshot, MiB, rbdEnsureArgs, sparseBytes, uploadBytes } from './rbd-transfer-helpers.js';

// Issue 25: ferry run from a directory another user could write to. A `rados.py`, `rbd.py` or `json.py` there must
// never be imported by the Python ferry starts (the librbd copy, the cluster's fsid), and no child is handed the
// operator's OpenStack password. Run as an operator runs it: credentials in OS_* variables, the working directory
// elsewhere, the CLI bundle copied out of the checkout (it carries its Python; the library reads dist/rbd/python).

const ROOT = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'ferry-it-planted-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const created = imagesDeletedAfterAll();

/** A working directory whose `rados.py`, `rbd.py` and `json.py` each write a line to MARKER when imported. */
function plantedDirectory(name: string): { dir: string; imported: () => string[] } {
  const dir = join(work, name);
  mkdirSync(dir);
  const marker = join(work, `${name}.imported`);
  for (const module of ['rados', 'rbd', 'json']) {
    writeFileSync(join(dir, `${module}.py`), `import sys\nwith open(${JSON.stringify(marker)}, "a") as out:\n    out.write("${module} %r\\n" % (sys.argv,))\n`);
  }
  return { dir, imported: () => (existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n') : []) };
}

/** An operator's shell: OS_* credentials (the admin's password), PATH, HOME; nothing of the test's own environment. */
function operatorEnv(extra: Record<string, string> = {}): Record<string, string> {
  const { keystone, users } = devcloud();
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, LANG: 'C.UTF-8',
    OS_AUTH_URL: keystone.url, OS_USERNAME: users.admin.name, OS_PASSWORD: users.admin.password, OS_PROJECT_NAME: users.admin.project,
    OS_USER_DOMAIN_NAME: 'Default', OS_PROJECT_DOMAIN_NAME: 'Default', OS_REGION_NAME: 'RegionOne', FERRY_LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** The CLI bundle alone, outside the checkout: no dist/rbd/python beside it, no src/. */
function bundleOutsideCheckout(): string {
  const copy = join(work, 'ferry-cli');
  if (!existsSync(copy)) cpSync(join(ROOT, 'dist', 'ferry-cli'), copy, { recursive: true });
  return join(copy, 'main.js');
}

describe('a planted rados.py / rbd.py / json.py in the working directory', () => {
  it('planted: ferry ensure --transfer rbd (the bundled CLI) imports none of them, and copies through librbd', async () => {
    const planted = plantedDirectory('ensure');
    const bytes = sparseBytes(16 * MiB, 2 * MiB);
    const id = await uploadBytes('it-planted-ensure', bytes, 'site-a');
    created.push(id);
    const run = spawnSync(process.execPath, [bundleOutsideCheckout(), ...rbdEnsureArgs(id)],
      { cwd: planted.dir, env: operatorEnv(), encoding: 'utf8', timeout: FERRY_RUN_MS });
    expect(planted.imported()).toEqual([]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('librbd (python3-rbd) is not available');
    expect(JSON.parse(run.stdout)).toMatchObject({ image: id, copied: true, transfer: 'rbd', target: { fsid: devcloud().ceph['site-b'].fsid } });
    expect(md5OfSnapshot('site-b', id)).toBe((await readImage(id)).checksum);
    expect(md5(bytes)).toBe((await readImage(id)).checksum);
    markReached('ceph-site-a');
    markReached('ceph-site-b');
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS + DIGEST_MS);

  it('planted: the library as built (dist/index.js) asks librados for the fsid without importing them', () => {
    const planted = plantedDirectory('library');
    const site = devcloud().ceph['site-b'];
    const script = `import { resolveLocalCluster } from ${JSON.stringify(join(ROOT, 'dist', 'index.js'))};
const local = await resolveLocalCluster({ confFile: ${JSON.stringify(site.conf)}, user: 'nova' });
process.stdout.write(JSON.stringify(local));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: planted.dir, env: operatorEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(planted.imported()).toEqual([]);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ fsid: site.fsid, source: 'cluster', warnings: [] });
  });
});

describe('the Python ferry starts, seen from inside', () => {
  it('children: the copy\'s and the fsid\'s python get no OS_* variable, run isolated (-I) from /', async () => {
    // FERRY_RBD_PYTHON: a wrapper that writes down what it was given, then runs Debian's python3 as ferry asked.
    const seen = join(work, 'python-seen');
    mkdirSync(seen);
    const wrapper = join(work, 'python3-recording');
    writeFileSync(wrapper, `#!/bin/sh\n{ pwd; echo "$1"; env; } > ${seen}/$$\nexec /usr/bin/python3 "$@"\n`, { mode: 0o755 });
    const id = await uploadBytes('it-planted-env', sparseBytes(8 * MiB, MiB), 'site-a');
    created.push(id);
    const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'ferry'), ...rbdEnsureArgs(id)],
      { cwd: work, env: operatorEnv({ FERRY_RBD_PYTHON: wrapper }), encoding: 'utf8', timeout: FERRY_RUN_MS });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ copied: true, transfer: 'rbd' });
    const records = readdirSync(seen).map((file) => readFileSync(join(seen, file), 'utf8').split('\n'));
    // The local cluster's fsid and the copy at least.
    expect(records.length).toBeGreaterThanOrEqual(2);
    for (const [cwd, firstArgument, ...env] of records) {
      expect({ cwd, firstArgument, secrets: env.filter((line) => /^(OS_|FERRY_|PYTHON)/.test(line)) }).toEqual({ cwd: '/', firstArgument: '-I', secrets: [] });
    }
  }, INTEGRATION_TEST_MS + FERRY_RUN_MS);
});
