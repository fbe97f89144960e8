import { spawn, type ChildProcess, type SpawnOptionsWithStdioTuple, type StdioNull, type StdioPipe } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callAgent } from '../../../src/agent/agent-client.js';
import { cloudEnv, devcloud, ferryIdentity } from '../../helpers/devcloud.js';
import { service } from '../../helpers/spawn-budget.js';

/**
 * An agent serves the tests of a file and is stopped by them (stop()); should a file hang, its agent is SIGTERMed after
 * this long. Longer than the longest file that keeps one (tenant-boot, nova-fallback: 3 min serially on 2 cores). A
 * caller that runs longer (the soak) passes `lifetimeMs`: the 60-minute soaks' agents were SIGTERMed by this at 30 min.
 */
const AGENT_LIFETIME_MS = 1_800_000;

/**
 * How long startAgent() waits for the agent's socket and a 200 from /healthz, then fails with the agent's stderr (it
 * used to return after 200 looks, ~10 s, ready or not, and the test failed later without a word from the agent).
 * Seen: 1-2 s idle, 9.7 s at load 15 (CI rehearsal 6's restart), 12.9 s in rehearsal 4. A test counts it in its limit.
 */
export const AGENT_START_MS = 60_000;

/** A real `bin/ferry agent` process on a private socket (never the default one: other ferry users share the machine). */
export interface AgentProcess {
  readonly socket: string;
  readonly child: ChildProcess;
  readonly stderr: () => string;
  /** SIGTERM by PID; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `socket`: bind there (an agent restarted on its predecessor's socket; the caller removes its directory).
 * `site`: the agent of that site (its store and its cluster; default site-b).
 * `healthy`: false for an agent whose /healthz may fail (503: a misconfiguration a test expects, a service down); it is
 * ready once it answers at all.
 * `startMs`: how long to wait for it to be ready (AGENT_START_MS).
 * `hostname`: run the agent in a UTS namespace of its own under that host name (root: `unshare --uts`), so that ferry,
 * which tells hosts apart by os.hostname(), sees another host; the child is still the agent's own process (exec).
 */
export async function startAgent(args: readonly string[] = [],
  options: { socket?: string; hostname?: string; healthy?: boolean; site?: 'site-a' | 'site-b'; lifetimeMs?: number; startMs?: number } = {}): Promise<AgentProcess> {
  const dir = options.socket === undefined ? mkdtempSync(join(tmpdir(), 'ferry-agent-it-')) : undefined;
  const socket = options.socket ?? join(dir ?? '', 'agent.sock');
  const site = options.site ?? 'site-b';
  const identity = ferryIdentity(args);
  const agent = [process.execPath, `${process.cwd()}/bin/ferry`, 'agent', '--socket', socket, '--store', site,
    '--ceph-conf', devcloud().ceph[site].conf, '--rbd-user', identity.rbdUser, ...args];
  const [file = '', ...argv] = options.hostname === undefined ? agent
    : ['unshare', '--uts', '--', 'sh', '-c', 'hostname "$0" && exec "$@"', options.hostname, ...agent];
  const spawnOptions: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe> = {
    env: { ...process.env, ...cloudEnv(identity.cloud), FERRY_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: options.lifetimeMs ?? AGENT_LIFETIME_MS };
  const child = spawn(file, argv, service(spawnOptions));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const startMs = options.startMs ?? AGENT_START_MS;
  const deadline = Date.now() + startMs;
  for (;;) {
    if (existsSync(socket)) {
      const health = await callAgent(socket, { method: 'GET', path: '/healthz' }).catch(() => undefined);
      // `healthy: false`: an agent expected to answer with a failing check (503) is ready once it answers at all.
      if (health?.status === 200 || (options.healthy === false && health !== undefined)) break;
    }
    if (child.exitCode !== null) throw new Error(`ferry agent exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) {
      const where = `socket ${socket} ${existsSync(socket) ? 'bound, /healthz not 200' : 'not bound'}`;
      child.kill('SIGKILL');
      await exited;
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      throw new Error(`ferry agent not ready within ${startMs / 1000} s (${where}); its stderr: ${stderr.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    socket, child, stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}
