import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devcloud } from '../../helpers/devcloud.js';

export const SYSTEM_NOVA = '/usr/lib/python3/dist-packages/nova';
const PYTHON = '/usr/bin/python3';

/**
 * A copy of Debian's nova package with integrations/nova's patch applied by `patch -p1`: the system's nova is never
 * touched, and the test proves the patch applies to it.
 */
export function patchedNova(): { root: string; cleanup(): void } {
  if (!existsSync(SYSTEM_NOVA)) throw new Error(`${SYSTEM_NOVA} missing: python3-nova is in the dev cloud's package list (scripts/devcloud/up installs it)`);
  const root = mkdtempSync(join(tmpdir(), 'ferry-nova-'));
  cpSync(SYSTEM_NOVA, join(root, 'nova'), { recursive: true });
  const patch = spawnSync('patch', ['-p1', '--forward', '--batch', '-d', root, '-i', `${process.cwd()}/integrations/nova/nova-26-imagebackend.patch`], { encoding: 'utf8' });
  if (patch.status !== 0) throw new Error(`the nova 26 patch does not apply: ${patch.stdout}${patch.stderr}`);
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A nova.conf for nova's own config parsing: rbd images in site-b's vms pool, Glance of the dev cloud. */
export function novaConf(dir: string, store: string): string {
  const facts = devcloud();
  const path = join(dir, `nova-${store}.conf`);
  writeFileSync(path, [
    '[DEFAULT]', `state_path = ${dir}/state`, '',
    '[libvirt]', 'images_type = rbd', 'images_rbd_pool = vms', `images_rbd_ceph_conf = ${facts.ceph['site-b'].conf}`, 'rbd_user = nova',
    `images_rbd_glance_store_name = ${store}`, '',
    '[glance]', `api_servers = ${facts.glance.url}`, '',
  ].join('\n'));
  return path;
}

export interface CloneResult {
  readonly ok: boolean;
  readonly patched: boolean;
  readonly module: string;
  readonly error?: string;
  readonly message?: string;
  readonly seconds: number;
}

/** nova's real Rbd(path='vms/NAME').clone(context, image) in its own Python process. */
export function novaClone(options: { root: string; conf: string; image: string; name: string; token: string; socket: string }): Promise<CloneResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('timeout', ['120', PYTHON, `${process.cwd()}/test/integration/agent/nova_clone.py`, options.root, options.conf, options.image, options.name], {
      env: { ...process.env, OS_TOKEN: options.token, FERRY_AGENT_SOCKET: options.socket, PYTHONPATH: `${process.cwd()}/integrations/nova` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`nova_clone.py exited ${code}: ${stdout}\n${stderr.slice(-2000)}`));
      else resolve(JSON.parse(line) as CloneResult);
    });
  });
}

/** Run Python with the ferry_agent client on its path; returns its last stdout line as JSON. */
export function python(code: string, env: Record<string, string> = {}): unknown {
  const result = spawnSync('timeout', ['60', PYTHON, '-c', code], { encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: `${process.cwd()}/integrations/nova`, ...env } });
  if (result.status !== 0) throw new Error(`python exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? 'null') as unknown;
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}
