// Faults injected into the real dev cloud, and the checks every fault test makes afterwards: nothing lost, and a
// re-run converges. Process faults go through scripts/devcloud/fault (SIGKILL by the devcloud's own recorded PID,
// never by name); restarts through scripts/devcloud/up (which restarts only what is down and keeps the data).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ceph, cloudEnv, devcloud, ferryIdentity, markReached, type DevcloudUser } from './devcloud.js';
import { imageTasks, readImage, tokenFor } from './glance-admin.js';

const ROOT = process.cwd();
const SCRIPTS = join(ROOT, 'scripts', 'devcloud');

/** A devcloud script run with `timeout SECONDS`: the spawn's own limit, 10 s more. */
const scriptMs = (seconds: number): number => (seconds + 10) * 1000;
/** scripts/devcloud/up and the fault script's rbd and database faults: 300 s inside `timeout`. */
const SCRIPT_S = 300;
export const FAULT_MS = scriptMs(SCRIPT_S);
/** faults.up(): the dev cloud's services started again, each waited for until it answers. */
export const FAULTS_UP_MS = FAULT_MS;
/** faults.kill(): SIGKILL by the recorded PID, then up to 5 s until the process is gone. */
const KILL_S = 20;
export const FAULT_KILL_MS = scriptMs(KILL_S);

function script(name: 'fault' | 'up' | 'status', args: readonly string[], timeoutS = SCRIPT_S): { stdout: string; stderr: string } {
  const path = join(SCRIPTS, name);
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: the fault primitives come with the devcloud branch (git merge devcloud)`);
  }
  const result = spawnSync('timeout', [String(timeoutS), 'bash', path, ...args], {
    encoding: 'utf8', timeout: scriptMs(timeoutS), env: { ...process.env, FERRY_DEVCLOUD_DIR: devcloud().dir },
  });
  if (result.status !== 0) {
    throw new Error(`scripts/devcloud/${name} ${args.join(' ')} exited ${result.status}: ${result.stderr.trim()}`);
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

export type DevcloudProcess = 'glance' | 'keystone' | 'placement' | 'postgres' | 'ceph-site-a-osd' | 'ceph-site-b-osd'
  | 'ceph-site-a-mon' | 'ceph-site-b-mon';

export const faults = {
  /** SIGKILL one dev cloud service by its recorded PID. */
  kill(service: DevcloudProcess): void {
    script('fault', ['kill', service], KILL_S);
  },
  /** Restart whatever is down (keeps data and fsids); returns once every service answers. */
  up(): void {
    script('up', []);
  },
  /** Move a Glance task's updated_at back by `minutes` (past Glance's 60-min rule at 61). */
  ageTask(taskId: string, minutes: number): void {
    script('fault', ['age-task', taskId, String(minutes)]);
  },
  /** Create an RBD image named as the Glance image in the site's images pool (a partial copy left by a crash). */
  rbdLeftover(site: 'site-a' | 'site-b', imageId: string): void {
    script('fault', ['rbd-leftover', site, imageId]);
  },
  /** What a creator killed inside `rbd create` leaves: the name taken, nothing that opens. */
  rbdHalfCreated(site: 'site-a' | 'site-b', imageId: string): void {
    script('fault', ['rbd-half-created', site, imageId]);
  },
  /** What Glance leaves of a copy it created at 0 bytes (not knowing the size) when killed before its first write. */
  rbdZeroByte(site: 'site-a' | 'site-b', imageId: string): void {
    script('fault', ['rbd-zero-byte', site, imageId]);
  },
  rbdRemove(site: 'site-a' | 'site-b', imageId: string): void {
    script('fault', ['rbd-remove', site, imageId]);
  },
};

/** Whether scripts/devcloud/fault exists (the devcloud branch is merged). */
export const faultScriptPresent = (): boolean => existsSync(join(SCRIPTS, 'fault'));

export interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** When it was spawned (epoch ms). */
  readonly startedAt: number;
  /** From spawn to exit. */
  readonly wallMs: number;
  /** stdout as JSON ({} when it is not). */
  readonly json: Record<string, unknown>;
}

export interface FerryChildOptions {
  /** Extra environment (over ferry's credentials). */
  readonly env?: Record<string, string>;
  /** Called with the whole stderr so far, whenever more arrives. */
  readonly onStderr?: (stderr: string, child: ReturnType<typeof spawn>) => void;
  /** SIGKILL after this long (default 240 s): no test waits forever. */
  readonly killAfterMs?: number;
}

/** A ferry run of ferryChild (unless killAfterMs says otherwise): killed after 240 s. */
export const FERRY_CHILD_MS = 240_000;
/** `bin/ferry ARGS` as a child process as ferry's own identity (ferryIdentity) and site-b's fsid (or --ceph-conf from ARGS). */
export function ferryChild(args: readonly string[], options: FerryChildOptions = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'ferry'), ...args], {
      // site-b's fsid, unless the run names a ceph.conf to ask instead
      env: { ...process.env, ...cloudEnv(ferryIdentity(args).cloud), ...(args.includes('--ceph-conf') ? {} : { FERRY_FSID: devcloud().ceph['site-b'].fsid }),
        FERRY_LOG_LEVEL: 'warn', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'], timeout: options.killAfterMs ?? FERRY_CHILD_MS, killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(stdout) as typeof json;
      } catch {
        // not JSON: the test's own assertions say what was expected
      }
      resolve({ code, signal, stdout, stderr, startedAt: started, wallMs: Date.now() - started, json });
    });
  });
}

/** The error document of a --json run (undefined fields when there is none). */
export function errorOf(run: ChildRun): { code?: string; message?: string; hint?: string; details?: Record<string, unknown> } {
  return (run.json.error ?? {});
}

/**
 * A FERRY_COPY_STUCK error's diagnosis: the lock's task, its age and when Glance releases the lock. From `details`
 * when the JSON carries them, else from the message and hint the operator reads (the CLI's JSON error document has
 * code, message and hint; details are optional).
 */
export function stuckDiagnosis(error: ReturnType<typeof errorOf>): { text: string; releaseAt: number; ageSeconds: number | undefined } {
  const text = `${error.message ?? ''} ${error.hint ?? ''}`;
  const fromDetails = error.details?.releaseAt;
  const iso = typeof fromDetails === 'string' ? fromDetails : /\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z/.exec(text)?.[0];
  const age = error.details?.taskAgeSeconds ?? /last moved (\d+) s ago/.exec(text)?.[1];
  return { text, releaseAt: iso === undefined ? Number.NaN : Date.parse(iso), ageSeconds: age === undefined ? undefined : Number(age) };
}

/** What must survive any fault: the image's location in `central` (a file store) and its checksum. */
export interface OriginalCopy {
  readonly id: string;
  readonly url: string;
  readonly checksum: string;
  readonly hash: string;
}

/** Record the image's original location and checksum, to compare after the fault. */
export async function originalCopy(id: string): Promise<OriginalCopy> {
  const image = await readImage(id);
  const locations = (image.locations ?? []) as { url: string; metadata: { store?: string } }[];
  const central = locations.find((l) => l.metadata.store === 'central');
  if (!central) throw new Error(`image ${id} has no location in central: ${JSON.stringify(locations)}`);
  return { id, url: central.url, checksum: String(image.checksum), hash: String(image.os_hash_value) };
}

/**
 * Nothing lost: Glance still lists the central location with the same URL and checksum, and the file behind it
 * (the central store is a file store on this machine) still has that checksum (md5, as Glance computes it).
 * Returns the list of problems (empty when all is well), so a test can `expect(…).toEqual([])` and see them all.
 */
export async function lostSince(before: OriginalCopy): Promise<string[]> {
  const problems: string[] = [];
  const image = await readImage(before.id);
  if (image.status !== 'active') problems.push(`image status is ${String(image.status)}`);
  const locations = (image.locations ?? []) as { url: string; metadata: { store?: string } }[];
  if (!locations.some((l) => l.url === before.url && l.metadata.store === 'central')) problems.push(`central location ${before.url} gone`);
  if (image.checksum !== before.checksum) problems.push(`checksum ${String(image.checksum)} ≠ ${before.checksum}`);
  if (image.os_hash_value !== before.hash) problems.push('os_hash_value changed');
  const path = before.url.replace(/^file:\/\//, '');
  if (!existsSync(path)) problems.push(`file ${path} gone`);
  else if (await md5(path) !== before.checksum) problems.push(`file ${path} no longer matches the checksum`);
  return problems;
}

function md5(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('md5');
    createReadStream(path).on('data', (chunk) => hash.update(chunk)).on('end', () => resolve(hash.digest('hex'))).on('error', reject);
  });
}

/**
 * Converged: the store appears exactly once in `stores`, no import lock is left, and (for the rbd stores) the RBD
 * image with its snapshot is in the site's pool. Returns the problems found (empty when converged).
 */
export async function notConverged(id: string, store: string): Promise<string[]> {
  const problems: string[] = [];
  const image = await readImage(id);
  const stores = (typeof image.stores === 'string' ? image.stores : '').split(',').filter((s) => s !== '');
  const times = stores.filter((s) => s === store).length;
  if (times !== 1) problems.push(`${store} appears ${times} times in stores (${stores.join(',')})`);
  if (image.os_glance_import_task !== undefined) problems.push(`lock left: os_glance_import_task=${JSON.stringify(image.os_glance_import_task)}`);
  if (store === 'site-a' || store === 'site-b') {
    const snaps = ceph(store, 'rbd', ['snap', 'ls', `images/${id}`]);
    if (snaps.code !== 0 || !/\bsnap\b/.test(snaps.stdout)) problems.push(`rbd images/${id}@snap missing on ${store}: ${snaps.stderr.trim()}`);
  }
  return problems;
}

export interface TaskView {
  readonly id: string;
  readonly status: string;
  readonly message: string;
  readonly backend: readonly string[];
  readonly requestId: string;
  readonly updatedAt: string;
}

/** The image's import tasks from Glance (plain fetch, independent of ferry). */
export async function tasksOf(id: string): Promise<TaskView[]> {
  const tasks = await imageTasks(id) as unknown as { id: string; status: string; message?: string; input: { backend?: string[] };
    request_id?: string; updated_at?: string }[];
  return tasks.map((t) => ({ id: t.id, status: t.status, message: t.message ?? '', backend: t.input.backend ?? [],
    requestId: t.request_id ?? '', updatedAt: t.updated_at ?? '' }));
}

/** Successful copy tasks per store. */
export async function successfulCopies(id: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const task of await tasksOf(id)) {
    if (task.status !== 'success') continue;
    for (const store of task.backend) counts[store] = (counts[store] ?? 0) + 1;
  }
  return counts;
}

/** Poll (bounded) until `check` returns a value; throws with `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The task holding the image's import lock, once one does. */
export function lockedBy(id: string, timeoutMs = 30_000): Promise<string> {
  return until(`a lock on ${id}`, async () => {
    const lock = (await readImage(id)).os_glance_import_task;
    return typeof lock === 'string' ? lock : undefined;
  }, timeoutMs, 50);
}

/**
 * Send a copy-image import ourselves (someone else's import), with plain fetch, as admin or as another user (`ferry`:
 * another ferry of the same project, whose tasks ferry can read). Returns the status + request id.
 */
export async function rawImport(id: string, stores: readonly string[], mustSucceed = true, as: DevcloudUser = 'admin')
  : Promise<{ status: number; requestId: string; body: string }> {
  const facts = devcloud();
  const token = await tokenFor(as);
  const response = await fetch(`${facts.glance.url}/v2/images/${id}/import`, {
    method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ method: { name: 'copy-image' }, stores, all_stores_must_succeed: mustSucceed }),
  });
  markReached('glance');
  return { status: response.status, requestId: response.headers.get('x-openstack-request-id') ?? '', body: await response.text() };
}

/** Revoke a Keystone token (DELETE /v3/auth/tokens), as admin. */
export async function revokeToken(token: string): Promise<number> {
  const facts = devcloud();
  const admin = await tokenFor('admin');
  const response = await fetch(`${facts.keystone.url}/auth/tokens`, { method: 'DELETE', headers: { 'x-auth-token': admin, 'x-subject-token': token } });
  return response.status;
}

/** scripts/devcloud/status: asks each service once. */
export const DEVCLOUD_STATUS_MS = 60_000;
/** Whether every dev cloud service is healthy (scripts/devcloud/status). */
export function devcloudHealthy(): boolean {
  return spawnSync('bash', [join(SCRIPTS, 'status')], { stdio: 'ignore', timeout: DEVCLOUD_STATUS_MS, env: { ...process.env, FERRY_DEVCLOUD_DIR: devcloud().dir } }).status === 0;
}
