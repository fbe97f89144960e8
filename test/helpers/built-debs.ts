import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// ferry's .debs for the tests that install them (deb/package, kolla/*, ansible/*), built once per commit: under
// DIR/debs/<HEAD>/first (and .../newer, the upgrade's newer version +rebuild2: the same packages with the changelog
// entry a rebuild adds, scripts/deb-newer.sh), python3-ferry-agent's .deb beside each.
// test/integration/deb/package.test.ts builds them there itself, from a clean clone as Debian builds a source package,
// and checks that build; the files after it in its lane (kolla/) and the ansible test (once the deb and site-c lanes
// have ended: scripts/integration-lanes.mjs AFTER_LANES) take them from there. FERRY_KOLLA_DEB / FERRY_KOLLA_DEB_NEWER name .debs
// built before. One scripts/build-deb.sh took 5–15 min on 2 cores: three builds per run were a quarter of npm test.

/** Where the .debs of commit `head` are built, under the dev cloud's state directory `dir`. */
export const builtDebsDir = (dir: string, head: string): string => join(dir, 'debs', head);
/** This checkout's HEAD. */
/** `git rev-parse HEAD`: seconds at most. */
export const HEAD_MS = 10_000;
export const headCommit = (): string => spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', timeout: HEAD_MS }).stdout.trim();
/** The version suffix of the upgrade's rebuild. */
export const NEWER_SUFFIX = '+rebuild2';

const root = process.cwd();
/** A git clone of this checkout. */
export const CLONE_MS = 120_000;
/** One scripts/build-deb.sh: npm ci and the build, lintian (14 min 39 s measured at load 17; the rebuild less). */
export const BUILD_MS = 1_800_000;
/** scripts/deb-newer.sh: dpkg-deb unpacks and packs ~110 MB twice (13 s measured beside a soak). */
export const NEWER_MS = 300_000;

export interface KollaDebs { readonly deb: string; readonly newer: string }

export const clientOf = (ferryDeb: string): string => ferryDeb.replace(/\/ferry_([^/]+)_amd64\.deb$/, '/python3-ferry-agent_$1_all.deb');

function buildDeb(args: readonly string[]): string {
  const built = spawnSync('bash', [join(root, 'scripts/build-deb.sh'), ...args], { encoding: 'utf8', timeout: BUILD_MS, maxBuffer: 256 * 1024 * 1024 });
  if (built.status !== 0) throw new Error(`scripts/build-deb.sh ${args.join(' ')} failed (${String(built.status ?? built.signal)}):\n${built.stderr.slice(-4000)}`);
  return built.stdout.trim().split('\n')[0] ?? '';
}

/** The upgrade's newer .debs from the build in FROM, into OUT (scripts/deb-newer.sh): ferry's path. */
export function newerDebs(from: string, out: string): string {
  const made = spawnSync('bash', [join(root, 'scripts/deb-newer.sh'), '--from', from, '--out', out, '--version-suffix', NEWER_SUFFIX], { encoding: 'utf8', timeout: NEWER_MS });
  if (made.status !== 0) throw new Error(`scripts/deb-newer.sh --from ${from} failed (${String(made.status ?? made.signal)}):\n${made.stderr.slice(-4000)}`);
  return made.stdout.trim().split('\n')[0] ?? '';
}

/** ferry's .deb built before into OUT, or ''. */
const builtIn = (out: string): string => {
  const deb = existsSync(out) ? readdirSync(out).find((name) => /^ferry_.+_amd64\.deb$/.test(name)) : undefined;
  return deb === undefined ? '' : join(out, deb);
};

/** The .debs (ferry's, python3-ferry-agent's beside each), built under DIR/debs/<HEAD> when the environment names none. */
export function kollaDebs(dir: string, newerToo: boolean): KollaDebs {
  let deb = process.env.FERRY_KOLLA_DEB ?? '';
  let newer = process.env.FERRY_KOLLA_DEB_NEWER ?? '';
  if (deb === '' || (newerToo && newer === '')) {
    const work = builtDebsDir(dir, headCommit());
    const clone = join(work, 'ferry');
    mkdirSync(work, { recursive: true });
    deb = builtIn(join(work, 'first'));
    newer = builtIn(join(work, 'newer'));
    if (deb === '') {
      rmSync(clone, { recursive: true, force: true });
      const cloned = spawnSync('git', ['clone', '--quiet', root, clone], { encoding: 'utf8', timeout: CLONE_MS });
      if (cloned.status !== 0) throw new Error(`git clone: ${cloned.stderr}`);
      deb = buildDeb(['--in', clone, '--out', join(work, 'first')]);
      rmSync(clone, { recursive: true, force: true });
    }
    if (newerToo && newer === '') newer = newerDebs(join(work, 'first'), join(work, 'newer'));
  }
  for (const file of [deb, clientOf(deb), ...(newerToo ? [newer, clientOf(newer)] : [])]) {
    if (!existsSync(file)) throw new Error(`${file}: no such .deb (FERRY_KOLLA_DEB / FERRY_KOLLA_DEB_NEWER, or scripts/build-deb.sh)`);
  }
  return { deb, newer };
}
