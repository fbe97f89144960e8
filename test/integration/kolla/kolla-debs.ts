import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// ferry's .debs for the kolla tests: FERRY_KOLLA_DEB (and FERRY_KOLLA_DEB_NEWER, the upgrade's) when given, built
// before with scripts/build-deb.sh; else built here from a clean clone of this checkout's HEAD, the newer one as a
// binary-only rebuild of the same tree with its own changelog entry (+kolla2). python3-ferry-agent's .deb lies beside.
// Built ones are kept under DIR/kolla-debs/<HEAD> for the next kolla test of the run (the files run one after another):
// one build of each per commit, not one per test file.

const root = process.cwd();
/** A git clone of this checkout. */
export const CLONE_MS = 120_000;
/** One scripts/build-deb.sh: npm ci and the build, lintian (14 min 39 s measured at load 17; the rebuild less). */
export const BUILD_MS = 1_800_000;

export interface KollaDebs { readonly deb: string; readonly newer: string }

export const clientOf = (ferryDeb: string): string => ferryDeb.replace(/\/ferry_([^/]+)_amd64\.deb$/, '/python3-ferry-agent_$1_all.deb');

function buildDeb(args: readonly string[]): string {
  const built = spawnSync('bash', [join(root, 'scripts/build-deb.sh'), ...args], { encoding: 'utf8', timeout: BUILD_MS, maxBuffer: 256 * 1024 * 1024 });
  if (built.status !== 0) throw new Error(`scripts/build-deb.sh ${args.join(' ')} failed (${String(built.status ?? built.signal)}):\n${built.stderr.slice(-4000)}`);
  return built.stdout.trim().split('\n')[0] ?? '';
}

/** ferry's .deb built before into OUT, or ''. */
const builtIn = (out: string): string => {
  const deb = existsSync(out) ? readdirSync(out).find((name) => /^ferry_.+_amd64\.deb$/.test(name)) : undefined;
  return deb === undefined ? '' : join(out, deb);
};

/** The .debs (ferry's, python3-ferry-agent's beside each), built under DIR/kolla-debs/<HEAD> when the environment names none. */
export function kollaDebs(dir: string, newerToo: boolean): KollaDebs {
  let deb = process.env.FERRY_KOLLA_DEB ?? '';
  let newer = process.env.FERRY_KOLLA_DEB_NEWER ?? '';
  if (deb === '' || (newerToo && newer === '')) {
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', timeout: 10_000 }).stdout.trim();
    const work = join(dir, 'kolla-debs', head);
    const clone = join(work, 'ferry');
    mkdirSync(work, { recursive: true });
    deb = builtIn(join(work, 'first'));
    newer = builtIn(join(work, 'newer'));
    if (deb === '' || (newerToo && newer === '')) {
      if (!existsSync(clone)) {
        const cloned = spawnSync('git', ['clone', '--quiet', root, clone], { encoding: 'utf8', timeout: CLONE_MS });
        if (cloned.status !== 0) throw new Error(`git clone: ${cloned.stderr}`);
      }
      if (deb === '') deb = buildDeb(['--in', clone, '--out', join(work, 'first')]);
      if (newerToo && newer === '') newer = buildDeb(['--in', clone, '--out', join(work, 'newer'), '--version-suffix', '+kolla2']);
    }
    // The clone (its npm build) is needed until the newer build exists.
    if (newer !== '') rmSync(clone, { recursive: true, force: true });
  }
  for (const file of [deb, clientOf(deb), ...(newerToo ? [newer, clientOf(newer)] : [])]) {
    if (!existsSync(file)) throw new Error(`${file}: no such .deb (FERRY_KOLLA_DEB / FERRY_KOLLA_DEB_NEWER, or scripts/build-deb.sh)`);
  }
  return { deb, newer };
}
