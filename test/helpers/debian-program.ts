// A program a test runs that a fresh Debian 12 (what the README's set-up assumes) may lack: installed from Debian's
// archive when missing, as npm run lint installs shellcheck (scripts/lib/apt-install.mjs). Seen in scripts/fresh-root:
// GNU patch for the nova tests, make and dh_fixperms (debhelper) for the .deb's file modes.
import { spawnSync } from 'node:child_process';
// @ts-expect-error: a plain .mjs script of the build, without types
import { aptInstall } from '../../scripts/lib/apt-install.mjs';

/** A hook's limit for ensureDebianProgram: apt-get waits up to 10 min for dpkg's lock, then update and install. */
export const ENSURE_PROGRAM_MS = 900_000;

/** Whether `program` runs here (`command -v`, so any program, with or without a --version). */
const present = (program: string): boolean => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program], { stdio: 'ignore', timeout: 10_000 }).status === 0;

/** `program` from Debian's package `pkg`, installed when missing; throws naming the fix where it cannot be. */
export function ensureDebianProgram(program: string, pkg: string, who: string): void {
  if (present(program)) return;
  if (!(aptInstall as (pkg: string, who: string) => boolean)(pkg, who) || !present(program)) {
    throw new Error(`${program} is not installed and could not be installed here: apt-get install ${pkg} (as root)`);
  }
}
