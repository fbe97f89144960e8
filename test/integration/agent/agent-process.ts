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
 * `healthy`: false for an agent whose /healthz is expected to fail (503); it is ready once it answers.
 * `hostname`: run the agent in a UTS namespace of its own under that host name (root: `unshare --uts`), so that ferry,
 * which tells hosts apart by os.hostname(), sees another host; the child is still the agent's own process (exec).
 */
export async function startAgent(args: readonly string[] = [],
  options: { socket?: string; hostname?: string; healthy?: boolean; site?: 'site-a' | 'site-b'; lifetimeMs?: number } = {}): Promise<AgentProcess> {
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
  for (let i = 0; i < 200; i += 1) {
    if (existsSync(socket)) {
      const health = await callAgent(socket, { method: 'GET', path: '/healthz' }).catch(() => undefined);
      // `healthy: false`: an agent expected to answer with a failing check (503) is ready once it answers at all.
      if (health?.status === 200 || (options.healthy === false && health !== undefined)) break;
    }
    if (child.exitCode !== null) throw new Error(`ferry agent exited ${child.exitCode}: ${stderr}`);
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
