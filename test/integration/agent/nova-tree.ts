import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { devcloud } from '../../helpers/devcloud.js';

export const SYSTEM_NOVA = '/usr/lib/python3/dist-packages/nova';
const PYTHON = '/usr/bin/python3';

/** One nova to drive: where its `nova` package is, which patch of integrations/nova/ belongs to it. */
export interface NovaTree {
  /** nova's version as its package says it (e.g. `26.2.2`). */
  readonly version: string;
  /** The `nova` package directory to copy. */
  readonly source: string;
  /** The patch in integrations/nova/ for this version. */
  readonly patch: string;
  /** Directories of newer Python libraries this nova needs, put ahead of the system's (empty for Debian 12's nova). */
  readonly libs: readonly string[];
  /**
   * A root file system (another Debian release's, e.g. scripts/matrix/trixie's) to run nova's Python in with chroot(8):
   * that release's python3 and libraries. The root must show this checkout and /tmp at the same paths (bind mounts).
   */
  readonly chroot?: string;
}

/** Debian 12's python3-nova (26.2.2), installed by the dev cloud. */
export const DEBIAN_NOVA: NovaTree = { version: '26.2.2', source: SYSTEM_NOVA, patch: 'integrations/nova/nova-26-imagebackend.patch', libs: [] };

/**
 * A newer nova prepared by scripts/nova-newer-check (Debian sid's python3-nova and the newer libraries it needs,
 * unpacked under FERRY_NOVA_NEWER_DIR) or by scripts/matrix/trixie (Debian 13's, run in its root), described by the
 * nova-tree.json there; undefined when that variable is unset.
 */
export function newerNova(): NovaTree | undefined {
  const dir = process.env.FERRY_NOVA_NEWER_DIR;
  if (!dir) return undefined;
  const manifest = join(dir, 'nova-tree.json');
  if (!existsSync(manifest)) throw new Error(`FERRY_NOVA_NEWER_DIR=${dir} has no nova-tree.json: run scripts/nova-newer-check`);
  return JSON.parse(readFileSync(manifest, 'utf8')) as NovaTree;
}

/**
 * A copy of the tree's nova package (and its package metadata) with its integrations/nova patch applied by `patch -p1`: the system's nova is
 * never touched, and the test proves the patch applies to it.
 */
export function patchedNova(tree: NovaTree = DEBIAN_NOVA): { root: string; tree: NovaTree; cleanup(): void } {
  if (!existsSync(tree.source)) {
    throw new Error(`${tree.source} missing: ${tree.source === SYSTEM_NOVA
      ? 'python3-nova is in the dev cloud\'s package list (scripts/devcloud/up installs it)' : 'run scripts/nova-newer-check'}`);
  }
  const root = mkdtempSync(join(tmpdir(), 'ferry-nova-'));
  cpSync(tree.source, join(root, 'nova'), { recursive: true });
  // Its package metadata too, so that nova's version (pbr) is this tree's, not the system's.
  for (const entry of readdirSync(dirname(tree.source))) {
    if (/^nova-[0-9][^/]*\.(egg|dist)-info$/.test(entry)) cpSync(join(dirname(tree.source), entry), join(root, entry), { recursive: true });
  }
  const patch = spawnSync('patch', ['-p1', '--forward', '--batch', '-d', root, '-i', `${process.cwd()}/${tree.patch}`], { encoding: 'utf8', timeout: 30_000 });
  if (patch.status !== 0) throw new Error(`${tree.patch} does not apply to nova ${tree.version}: ${patch.stdout}${patch.stderr}`);
  return { root, tree, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** How the patched nova reaches the ferry agent: the [libvirt] images_rbd_ferry_agent_* options of the patch. */
export interface FerryOptions {
  /** images_rbd_ferry_agent_socket (empty: stock nova). */
  readonly socket: string;
  /** images_rbd_ferry_agent_fallback (nova's default: true). */
  readonly fallback?: boolean;
  /** images_rbd_ferry_agent_retry_timeout in seconds (nova's default: 30). */
  readonly retryTimeout?: number;
}

let confCount = 0;

/**
 * A nova.conf for nova's own config parsing: rbd images in the vms pool of `cluster` (site-b's unless a compute node of
 * site-a), Glance of the dev cloud, the ferry options.
 */
export function novaConf(dir: string, store: string, ferry?: FerryOptions, cluster: 'site-a' | 'site-b' = 'site-b'): string {
  const facts = devcloud();
  confCount += 1;
  const path = join(dir, `nova-${store}-${confCount}.conf`);
  writeFileSync(path, [
    '[DEFAULT]', `state_path = ${dir}/state`, '',
    '[libvirt]', 'images_type = rbd', 'images_rbd_pool = vms', `images_rbd_ceph_conf = ${facts.ceph[cluster].conf}`, 'rbd_user = nova',
    `images_rbd_glance_store_name = ${store}`,
    ...(ferry ? [`images_rbd_ferry_agent_socket = ${ferry.socket}`] : []),
    ...(ferry?.fallback === undefined ? [] : [`images_rbd_ferry_agent_fallback = ${ferry.fallback}`]),
    ...(ferry?.retryTimeout === undefined ? [] : [`images_rbd_ferry_agent_retry_timeout = ${ferry.retryTimeout}`]), '',
    '[glance]', `api_servers = ${facts.glance.url}`, '',
  ].join('\n'));
  return path;
}

export interface CloneResult {
  readonly ok: boolean;
  readonly patched: boolean;
  readonly module: string;
  readonly version: string;
  /** nova's concurrency mode in that process: `eventlet` (monkey patched) or `threading`. */
  readonly concurrency: string;
  readonly error?: string;
  readonly message?: string;
  readonly seconds: number;
  /** What nova's image backend logged at WARNING or above during the clone. */
  readonly warnings: readonly string[];
  /** How often the patch asked an unreachable agent again (its debug line). */
  readonly retries: number;
  /** Whether the process could import ferry_agent. */
  readonly client: boolean;
}

/** nova's real Rbd(path='vms/NAME').clone(context, image) in its own Python process. */
export function novaClone(options: {
  root: string; conf: string; image: string; name: string; token: string; socket: string;
  libs?: readonly string[]; env?: Record<string, string>;
  /** Run nova's Python in this root (NovaTree.chroot). */
  chroot?: string;
  /** Leave integrations/nova (the ferry_agent client) off PYTHONPATH: the module is missing. */
  withoutClient?: boolean;
  /** Kill nova's process after this many seconds (default 120). */
  timeoutSeconds?: number;
}): Promise<CloneResult> {
  return new Promise((resolve, reject) => {
    const pythonPath = [...(options.withoutClient ? [] : [`${process.cwd()}/integrations/nova`]), ...(options.libs ?? [])].join(':');
    const python = options.chroot ? ['chroot', options.chroot, PYTHON] : [PYTHON];
    const child = spawn('timeout', [String(options.timeoutSeconds ?? 120), ...python, `${process.cwd()}/test/integration/agent/nova_clone.py`, options.root, options.conf, options.image, options.name], {
      env: { ...process.env, OS_TOKEN: options.token, FERRY_AGENT_SOCKET: options.socket, PYTHONPATH: pythonPath, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'], timeout: novaCloneMs(options.timeoutSeconds),
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

/** python(): 60 s inside `timeout`, and the spawn's own 10 s more. */
export const NOVA_PYTHON_MS = 70_000;
/** novaClone()'s spawn: nova's process killed after `seconds` (its timeoutSeconds, 120 by default), and 10 s more. */
export const novaCloneMs = (seconds = 120): number => (seconds + 10) * 1000;
/** Run Python with the ferry_agent client on its path; returns its last stdout line as JSON. */
export function python(code: string, env: Record<string, string> = {}): unknown {
  const result = spawnSync('timeout', ['60', PYTHON, '-c', code], { encoding: 'utf8', timeout: NOVA_PYTHON_MS,
    env: { ...process.env, PYTHONPATH: `${process.cwd()}/integrations/nova`, ...env } });
  if (result.status !== 0) throw new Error(`python exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? 'null') as unknown;
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}
