import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callAgent } from '../../src/agent/agent-client.js';
import { REPO_ROOT, type BenchDevcloud } from './devcloud-facts.js';

/**
 * The Keystone identity a bench agent runs as: admin by default (the benches' figures since the start);
 * BENCH_AGENT_CLOUD=devcloud-ferry runs it as ferry's own (role ferry in project ferry, docs/security.md), as deployed:
 * agent-local side by side is what least privilege costs (bench/RESULTS.md).
 */
export const BENCH_AGENT_CLOUD = process.env.BENCH_AGENT_CLOUD ?? 'devcloud-admin';

/** A `bin/ferry agent` process on a private socket for a benchmark (never the default socket: the machine is shared). */
export interface BenchAgent {
  readonly socket: string;
  readonly pid: number;
  /** Resident set size now, from /proc (MiB). */
  rssMiB(): number;
  stop(): Promise<number | null>;
}

export async function startBenchAgent(devcloud: BenchDevcloud, extraArgs: readonly string[] = [], nodeOptions?: string,
  cloud = BENCH_AGENT_CLOUD): Promise<BenchAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-bench-agent-'));
  const socket = join(dir, 'agent.sock');
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/ferry'), 'agent', '--socket', socket, '--store', 'site-b',
    '--fsid', devcloud.ceph['site-b'].fsid, ...extraArgs], {
    env: { ...process.env, OS_CLOUD: cloud, OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for (let i = 0; i < 400; i += 1) {
    if (existsSync(socket) && (await callAgent(socket, { method: 'GET', path: '/healthz' }).catch(() => undefined))?.status === 200) break;
    if (child.exitCode !== null) throw new Error(`ferry agent exited ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = child.pid ?? -1;
  return {
    socket, pid,
    rssMiB: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

/** Run Python (Debian's, with the ferry_agent client on its path); returns its last stdout line parsed as JSON. */
export function runPython(code: string, env: Record<string, string> = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn('timeout', ['600', '/usr/bin/python3', '-c', code], {
      env: { ...process.env, PYTHONPATH: join(REPO_ROOT, 'integrations/nova'), ...env }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.once('exit', (status) => {
      if (status !== 0) reject(new Error(`python exited ${status}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as unknown);
    });
  });
}
