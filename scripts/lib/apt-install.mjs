// Installs a Debian package for a lint step that needs it (pyflakes, shellcheck), as scripts/devcloud installs its
// packages: as root, or with passwordless sudo; apt-get waits up to 10 min for dpkg's lock (another apt run may hold
// it), and `apt-get update` is tried once when the first install finds no such package.
import { spawnSync } from 'node:child_process';

/** Whether `pkg` got installed (false where this user cannot install, or apt-get failed). `who` prefixes the notice. */
export function aptInstall(pkg, who) {
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0) return false;
  const apt = (args) => spawnSync(asRoot ? 'env' : 'sudo', [...(asRoot ? [] : ['-n', 'env']), 'DEBIAN_FRONTEND=noninteractive', 'apt-get',
    '-o', 'DPkg::Lock::Timeout=600', '-q', ...args], { stdio: ['ignore', 'ignore', 'inherit'] }).status === 0;
  console.error(`${who}: installing ${pkg} (Debian's package)`);
  return apt(['install', '-y', '--no-install-recommends', pkg]) || (apt(['update']) && apt(['install', '-y', '--no-install-recommends', pkg]));
}
