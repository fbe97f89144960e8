// The scripts a person runs by hand (nothing in package.json, .ci/run or a test runs them: they need root, podman, a
// dev cloud or a Debian mirror) still run in `npm test`, as far as they can without those: a --dry-run that prints
// what the script would do, checked here, or, where nothing more is possible without the real thing, bash's syntax
// check (`bash -n`). Which got which is the table below; a new script in these places must join it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** The by-hand scripts and what `npm test` runs of each. */
const BY_HAND: Readonly<Record<string, 'dry-run' | 'syntax'>> = {
  'scripts/containers/build': 'dry-run',
  'scripts/containers/prove': 'syntax', // podman as root, the .deb, the dev cloud: each step acts on them
  'scripts/containers/lib.sh': 'syntax', // sourced by build and prove (the dry run sources it)
  'scripts/containers/kolla-cell': 'syntax', // podman, two .debs, the dev cloud; whole in npm run test:kolla (test/integration/kolla/kolla-cell.test.ts)
  'scripts/matrix/trixie': 'syntax', // a Debian 13 root from the mirror, and nova's tests inside it
  'scripts/devcloud/smoke': 'syntax', // curl and rbd against a running dev cloud
  'scripts/demo': 'syntax', // brings the dev cloud up
  'scripts/npm-cache.sh': 'syntax', // fills the npm cache from the registry
};
/** Folders whose every script is run by hand. */
const BY_HAND_FOLDERS = ['scripts/containers', 'scripts/matrix'];
/** `bash -n` reads the file, nothing more; the dry run reads two .debs: a few ms each, seconds on a busy machine. */
const BASH_MS = 20_000;

describe('by-hand scripts: each has a run in npm test', () => {
  it('every script of scripts/containers/ and scripts/matrix/ is in the table', () => {
    const found = BY_HAND_FOLDERS.flatMap((folder) => readdirSync(folder).map((file) => `${folder}/${file}`));
    expect(found.filter((path) => !(path in BY_HAND))).toEqual([]);
  });

  it.each(Object.keys(BY_HAND))('%s: bash -n (syntax)', (path) => {
    const run = spawnSync('bash', ['-n', path], { encoding: 'utf8', timeout: BASH_MS });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
  }, BASH_MS);
});

describe('scripts/containers/build --dry-run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-containers-dry-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A real (empty) ferry .deb of VERSION, as dpkg-deb builds it: the script reads its version to find the client's. */
  function ferryDeb(version: string): string {
    const root = join(dir, `root-${version}`);
    mkdirSync(join(root, 'DEBIAN'), { recursive: true });
    writeFileSync(join(root, 'DEBIAN', 'control'),
      `Package: ferry\nVersion: ${version}\nArchitecture: amd64\nMaintainer: ferry <ferry@localhost>\nDescription: test\n`);
    const deb = join(dir, `ferry_${version}_amd64.deb`);
    const built = spawnSync('dpkg-deb', ['--build', root, deb], { encoding: 'utf8', timeout: BASH_MS });
    expect(built.status, built.stderr).toBe(0);
    return deb;
  }

  it('prints both images, the .debs they come from and their base images, and needs neither root nor podman', () => {
    const deb = ferryDeb('0.1.0-1');
    const client = join(dir, 'python3-ferry-agent_0.1.0-1_all.deb');
    writeFileSync(client, '');
    const run = spawnSync('bash', ['scripts/containers/build', '--dry-run', '--deb', deb],
      { encoding: 'utf8', timeout: BASH_MS, env: { ...process.env, FERRY_CONTAINERS_CACHE: join(dir, 'cache'), PATH: '/usr/bin:/bin' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('would build'))).toEqual([
      `would build localhost/ferry-agent:bookworm from ${deb} and ${client} (integrations/containers/agent.Containerfile)`,
      `would build localhost/ferry-nova-compute:bookworm from ${deb} and ${client} (integrations/containers/nova-compute.Containerfile)`,
    ]);
    expect(run.stdout).toContain('on localhost/ferry-base-nova:bookworm: Debian 12 minbase + python3-nova,patch,');
    expect(run.stdout).toContain(`(cache: ${join(dir, 'cache')})`);
  }, 2 * BASH_MS);

  it('a missing client .deb of the same version is named, with the fix', () => {
    const deb = ferryDeb('0.2.0-1');
    const run = spawnSync('bash', ['scripts/containers/build', '--dry-run', '--deb', deb], { encoding: 'utf8', timeout: BASH_MS });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`${join(dir, 'python3-ferry-agent_0.2.0-1_all.deb')}: no such .deb (scripts/build-deb.sh builds it beside`);
  }, 2 * BASH_MS);

  it('an unknown argument is refused with the usage', () => {
    const run = spawnSync('bash', ['scripts/containers/build', '--dryrun'], { encoding: 'utf8', timeout: BASH_MS });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("unknown argument '--dryrun' (usage: build [--deb FILE] [--dry-run])");
  }, BASH_MS);
});
