// The soak's packaged node (issue 35: "a package upgrade of one node, the .deb, under load"): its agent is the Debian
// package's ferry-agent.socket and ferry-agent.service under the clean system's systemd (scripts/systemd/up-clean),
// installed from the older .deb at set-up and configured as the plain nodes' agents are (ferry's least-privilege
// identity: the same Keystone application credential and client.ferry), and upgraded by `apt-get install
// ./newer.deb` under load (the `package-upgrade` fault). The node's nova runs on the host, as the other nodes' do (one
// nova import per node, its boots judged alike), and reaches the unit's socket through the private systemd's root
// (/proc/PID/root/run/ferry/agent.sock): the clean system shares the host's network but has its own /run. The
// package's own test does the same upgrade alone (test/integration/deb/package.test.ts); its helpers are these.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { clientOf, kollaDebs } from '../../test/helpers/built-debs.js';
import { devcloud, FERRY } from '../../test/helpers/devcloud.js';
import { CHANGE_MS, cleanDown, cleanEnv, cleanUp, computeNodeScript, DPKG_MS, insideAsync, type Run } from '../../test/integration/deb/clean-system.js';
import { cannotRunSystemd } from '../../test/integration/systemd/private-systemd.js';
import { upgradeProblems, type UpgradeSeen } from './package-upgrade.js';

/** Where ferry-agent.socket listens, inside. */
const SOCKET = '/run/ferry/agent.sock';

export interface UpgradeRecord {
  readonly seen: UpgradeSeen;
  readonly problems: readonly string[];
  /** The older build installed again first (a later cycle's upgrade: the node already ran the newer one). */
  readonly rolledBackSeconds?: number;
  readonly aptSeconds: number;
  readonly aptTail: string;
}

export interface PackagedNode {
  /** The unit's socket as the host reaches it (nova's images_rbd_ferry_agent_socket). */
  readonly socket: string;
  /** Host PIDs of the clean system (its init and unshare): the leak check looks for them after down(). */
  readonly pids: readonly number[];
  readonly olderVersion: string;
  readonly newerVersion: string;
  /** The agent's VmRSS (ferry-agent.service's MainPID), or undefined. */
  rssKiB(): Promise<number | undefined>;
  /** `systemctl restart ferry-agent.service` (the agent-restart fault: the socket stays). */
  restart(): Promise<Run & { readonly seconds: number }>;
  /** `apt-get install ./newer.deb` (after installing the older again when the newer runs already), then judged. */
  upgrade(): Promise<UpgradeRecord>;
  /** scripts/systemd/down: the clean system and everything in it stopped. */
  down(): Run;
}

/** Why this machine cannot have a packaged node ('' when it can): `scripts/systemd/up --check`. */
export function packagedNodeUnavailable(): string {
  return cannotRunSystemd();
}

const debVersion = (file: string): string => spawnSync('dpkg-deb', ['-f', file, 'Version'], { encoding: 'utf8', timeout: 30_000 }).stdout.trim();

function must(run: Run, what: string): string {
  if (run.code !== 0) throw new Error(`packaged node: ${what} failed (${run.code}): ${`${run.stdout}${run.stderr}`.slice(-2000)}`);
  return run.stdout;
}

/** The socket's inode and start, the agent's MainPID, the versions dpkg has. */
const STATE = `stat -c %i ${SOCKET}; systemctl show -p ActiveEnterTimestampMonotonic --value ferry-agent.socket
systemctl show -p MainPID --value ferry-agent.service; dpkg-query -W -f '\${Version}\\n' ferry python3-ferry-agent`;
function parseState(stdout: string): { socket: string; pid: number; ferry?: string; client?: string } {
  const [inode = '', since = '', pid = '', ferry, client] = stdout.trim().split('\n');
  return { socket: `${inode} ${since}`, pid: Number(pid), ...(ferry ? { ferry } : {}), ...(client ? { client } : {}) };
}

/**
 * The node's set-up: the .debs (built once per commit under the dev cloud's directory, or FERRY_KOLLA_DEB and
 * FERRY_KOLLA_DEB_NEWER: test/helpers/built-debs.ts), a fresh clean system under host name `hostname`, the older .deb
 * installed, the node configured for site-b with the agent's `agentArgs`, the agent started and healthy.
 */
export async function startPackagedNode(hostname: string, agentArgs: string): Promise<PackagedNode> {
  const { deb, newer } = kollaDebs(devcloud().dir, true);
  const [olderVersion, newerVersion] = [debVersion(deb), debVersion(newer)];
  must(cleanUp(), 'scripts/systemd/up-clean');
  const stateDir = cleanEnv().FERRY_SYSTEMD_STATE_DIR ?? '';
  const pidOf = (file: string): number => Number(readFileSync(join(stateDir, file), 'utf8').trim());
  const initPid = pidOf('init.pid');
  const socket = `/proc/${initPid}/root${SOCKET}`;
  try {
    // Not blocking the soak's event loop: the agent's health checks reach Glance through the soak's fault proxy (seen:
    // every /healthz timed out while a spawnSync held the loop).
    must(await insideAsync(`hostname '${hostname}'`, 30_000), 'hostname');
    must(await insideAsync(`dpkg -i '${clientOf(deb)}' '${deb}' </dev/null`, DPKG_MS), `dpkg -i ${deb}`);
    must(await insideAsync(computeNodeScript(FERRY.cloud, agentArgs), 30_000), 'the compute node\'s configuration');
    // Healthy: its first /healthz may time out on a loaded machine (seen at load 15), so asked until 200 (2 min).
    must(await insideAsync(`systemctl start ferry-agent.service
for _ in $(seq 1 12); do curl -sf -o /dev/null --max-time 10 --unix-socket ${SOCKET} http://agent/healthz && exit 0; sleep 2; done
curl -s --max-time 10 --unix-socket ${SOCKET} http://agent/healthz; journalctl -u ferry-agent.service -n 20 --no-pager -o cat; exit 1`, CHANGE_MS + 150_000),
    'the agent\'s start (its /healthz never 200)');
    if (!existsSync(socket)) throw new Error(`packaged node: ${socket} does not exist`);
  } catch (error) {
    cleanDown(); // the clean system stopped by its own script, whatever failed
    throw error;
  }
  return {
    socket, olderVersion, newerVersion,
    pids: [initPid, pidOf('unshare.pid')],
    async rssKiB() {
      const read = await insideAsync('grep VmRSS /proc/$(systemctl show -p MainPID --value ferry-agent.service)/status', 30_000);
      const kib = /VmRSS:\s+(\d+)/.exec(read.stdout)?.[1];
      return kib === undefined ? undefined : Number(kib);
    },
    restart: () => insideAsync('systemctl restart ferry-agent.service', CHANGE_MS),
    async upgrade() {
      let rolledBackSeconds: number | undefined;
      if (parseState((await insideAsync(STATE, 30_000)).stdout).ferry === newerVersion) {
        const back = await insideAsync(`dpkg -i '${clientOf(deb)}' '${deb}' </dev/null`, DPKG_MS);
        must(back, `dpkg -i ${deb} (back to the older build before the upgrade)`);
        rolledBackSeconds = back.seconds;
      }
      const before = parseState((await insideAsync(STATE, 30_000)).stdout);
      const apt = await insideAsync(`DEBIAN_FRONTEND=noninteractive apt-get install -y -q '${clientOf(newer)}' '${newer}' </dev/null 2>&1`, DPKG_MS);
      const after = parseState((await insideAsync(STATE, 30_000)).stdout);
      const metrics = await insideAsync(`curl -s --max-time 30 --unix-socket ${SOCKET} http://agent/metrics`, 60_000);
      const agentVersion = /^ferry_agent_build_info\{(?:[^}]*,)?version="([^"]+)"/m.exec(metrics.stdout)?.[1];
      // MainPID after the metrics request: an agent idle before the upgrade is started by it, from the newer files.
      const pidAfter = Number((await insideAsync('systemctl show -p MainPID --value ferry-agent.service', 30_000)).stdout.trim());
      const seen: UpgradeSeen = {
        expected: newerVersion, aptCode: apt.code, pidBefore: before.pid, pidAfter, socketBefore: before.socket, socketAfter: after.socket,
        ...(after.ferry ? { installed: after.ferry } : {}), ...(after.client ? { client: after.client } : {}), ...(agentVersion ? { agentVersion } : {}),
      };
      return { seen, problems: upgradeProblems(seen), aptSeconds: apt.seconds, aptTail: apt.stdout.trim().split('\n').slice(-6).join('\n'),
        ...(rolledBackSeconds === undefined ? {} : { rolledBackSeconds }) };
    },
    down: () => cleanDown(),
  };
}
