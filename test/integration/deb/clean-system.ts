import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { devcloud } from '../../helpers/devcloud.js';

// The throw-away system of scripts/systemd/up-clean: a private, real systemd whose /etc, /usr and /var are overlays
// (changes kept in $FERRY_DEVCLOUD_DIR/systemd-clean/overlay), so the Debian package is installed, upgraded, removed
// and purged there without touching the host.

const scripts = join(process.cwd(), 'scripts/systemd');

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of scripts/systemd's scripts for the clean system: its state directory under the dev cloud's. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const dir = devcloud().dir;
  return { ...process.env, FERRY_DEVCLOUD_DIR: dir, FERRY_SYSTEMD_STATE_DIR: join(dir, 'systemd-clean') };
}

function run(command: string, args: readonly string[], timeoutMs: number, input = ''): Run {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs, env: cleanEnv(), input });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Boot a fresh clean system (a running one is stopped and its overlay wiped first). */
export function cleanUp(): Run {
  return run('bash', [join(scripts, 'up-clean')], 180_000);
}

export function cleanDown(): Run {
  return run('bash', [join(scripts, 'down')], 90_000);
}

/** A command inside that installs nothing and starts no unit: stat, cat, dpkg-query, systemctl show, journalctl, curl to the agent. */
export const INSIDE_MS = 30_000;
/** A command that changes units or nova's files, not through dpkg: systemctl start/stop (systemd's 90 s job timeout), nova-integration sync, ferry-nova-patch revert. */
export const CHANGE_MS = 100_000;
/** A dpkg or apt-get run: unpacking, and the maintainer scripts that start, stop or restart units and patch nova. */
export const DPKG_MS = 300_000;

/**
 * A shell command inside the clean system (its mount namespace: the overlays, its /run, its systemd). A command that
 * changes the system passes its own timeout (CHANGE_MS, DPKG_MS); the test's limit counts each call's.
 */
export function inside(script: string, timeoutMs = INSIDE_MS, input = ''): Run {
  return run('bash', [join(scripts, 'ctl'), 'sh', '-c', script], timeoutMs, input);
}

/** inside() without blocking the caller's event loop (the soak's boots go on meanwhile); `seconds` it took. */
export function insideAsync(script: string, timeoutMs: number): Promise<Run & { readonly seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('bash', [join(scripts, 'ctl'), 'sh', '-c', script], { env: cleanEnv(), timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr, seconds: (Date.now() - started) / 1000 }));
  });
}

/**
 * A compute node's configuration for site-b, as an operator writes it after installing the package (docs/install.md):
 * nova's files with nova's owners and modes (nova.conf with nova's own secrets in it, which the agent must never hold),
 * and the agent's Keystone credentials in /etc/ferry/clouds.yaml, root's alone, its entry `cloud` named by OS_CLOUD in
 * /etc/default/ferry-agent, and `agentArgs` (when given) its FERRY_AGENT_ARGS there. A shell script to run inside.
 */
export function computeNodeScript(cloud: string, agentArgs?: string): string {
  const facts = devcloud();
  const siteB = facts.ceph['site-b'];
  const conf = readFileSync(siteB.conf, 'utf8');
  const monHost = /^mon_host *= *(.+)$/m.exec(conf)?.[1] ?? '';
  const keyring = join(siteB.conf, '..', 'ceph.client.nova.keyring');
  return `set -e
mkdir -p /etc/ceph /etc/nova
printf '[global]\\nfsid = %s\\nmon_host = %s\\n\\n[client]\\nkeyring = /etc/ceph/ceph.$name.keyring\\n' '${siteB.fsid}' '${monHost}' >/etc/ceph/ceph.conf
printf '[database]\\nconnection = mysql+pymysql://nova:NOVA-DB-SECRET@192.0.2.1/nova\\n\\n[libvirt]\\nimages_type = rbd\\nimages_rbd_pool = vms\\nimages_rbd_ceph_conf = /etc/ceph/ceph.conf\\nrbd_user = nova\\nimages_rbd_glance_store_name = site-b\\n' >/etc/nova/nova.conf
chown root:nova /etc/nova/nova.conf && chmod 0640 /etc/nova/nova.conf
# As nova-compute-kvm ships it (root 0644); the package's FERRY_NOVA_CONF names it after nova.conf, as Debian's nova-compute reads them.
printf '[DEFAULT]\\ncompute_driver=libvirt.LibvirtDriver\\n[libvirt]\\nvirt_type=kvm\\n' >/etc/nova/nova-compute.conf
install -m 0600 -o root -g root '${keyring}' /etc/ceph/ceph.client.nova.keyring
install -m 0600 -o root -g root '${join(siteB.conf, '..', 'ceph.client.ferry.keyring')}' /etc/ceph/ceph.client.ferry.keyring
install -m 0600 -o root -g root '${join(facts.dir, 'clouds.yaml')}' /etc/ferry/clouds.yaml
# The operator's edit of the conffile: which entry of /etc/ferry/clouds.yaml is the agent's.
sed -i 's|^#OS_CLOUD=.*|OS_CLOUD=${cloud}|' /etc/default/ferry-agent
grep -q '^OS_CLOUD=${cloud}' /etc/default/ferry-agent${agentArgs === undefined ? '' : `
sed -i 's|^FERRY_AGENT_ARGS=.*|FERRY_AGENT_ARGS=${agentArgs}|' /etc/default/ferry-agent`}`;
}
