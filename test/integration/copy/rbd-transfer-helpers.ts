// Shared by the direct RBD transfer's integration tests: a sparse image upload with known bytes, ferry run as scripts
// run it (the exact flags of issue 19), and reads of both clusters with the rbd CLI.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { ceph, cephAll, CEPH_MS, cloudEnv, devcloud, FERRY, type CephCommand } from '../../helpers/devcloud.js';
import { expect } from 'vitest';
import { readImage, tokenFor } from '../../helpers/glance-admin.js';

export const MiB = 1024 * 1024;
/** One ferry run of these tests: an ensure or a transfer of at most 256 MiB between the dev cloud's clusters. */
export const FERRY_RUN_MS = 240_000;

/** `size` bytes of zeros with `data` random bytes at a quarter of the way in: Glance still writes it dense into site-a. */
export function sparseBytes(size: number, data: number): Buffer {
  const bytes = Buffer.alloc(size);
  randomBytes(data).copy(bytes, Math.floor(size / 4));
  return bytes;
}

export async function uploadBytes(name: string, bytes: Buffer, store = 'site-a', diskFormat = 'raw'): Promise<string> {
  const facts = devcloud();
  const token = await tokenFor('admin');
  const created = await fetch(`${facts.glance.url}/v2/images`, {
    method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name, disk_format: diskFormat, container_format: 'bare' }),
  });
  if (created.status !== 201) throw new Error(`create image: ${created.status}`);
  const { id } = (await created.json()) as { id: string };
  const upload = await fetch(`${facts.glance.url}/v2/images/${id}/file`, {
    method: 'PUT', headers: { 'x-auth-token': token, 'content-type': 'application/octet-stream', 'x-image-meta-store': store }, body: bytes,
  });
  if (upload.status !== 204) throw new Error(`upload image: ${upload.status} ${await upload.text()}`);
  return id;
}

/** The command line, for store site-b, reading site-a. */
export function rbdEnsureArgs(id: string, extra: readonly string[] = []): string[] {
  const facts = devcloud();
  return ['ensure', id, '--store', 'site-b', '--ceph-conf', facts.ceph['site-b'].conf, '--rbd-user', FERRY.transferRbdUser,
    '--transfer', 'rbd', '--source-ceph-conf', `site-a=${facts.ceph['site-a'].conf}`, '--json', ...extra];
}

const ferryBin = `${process.cwd()}/bin/ferry`;

export interface FerryRun {
  readonly code: number;
  readonly json: Record<string, unknown>;
  readonly stderr: string;
  /** The signal that ended it (a test's SIGKILL), else null. */
  readonly signal?: NodeJS.Signals | null;
}

/** ferry as the direct transfer's identity (FERRY.transferCloud: the project that owns the images). */
export function ferrySync(args: readonly string[]): FerryRun {
  const result = spawnSync(process.execPath, [ferryBin, ...args], { encoding: 'utf8', timeout: FERRY_RUN_MS, env: { ...process.env, ...cloudEnv(FERRY.transferCloud) } });
  return { code: result.status ?? -1, json: JSON.parse(result.stdout || '{}') as Record<string, unknown>, stderr: result.stderr };
}

/** ferry in the background: for races and kills. `env` over the dev cloud's (FERRY_GLANCE_ENDPOINT: a fault proxy). */
export function ferryAsync(args: readonly string[], env: Record<string, string> = {}): { child: ReturnType<typeof spawn>; done: Promise<FerryRun> } {
  const child = spawn(process.execPath, [ferryBin, ...args], { env: { ...process.env, ...cloudEnv(FERRY.transferCloud), ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    timeout: FERRY_RUN_MS });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const done = new Promise<FerryRun>((resolve) => child.on('close', (code, signal) => {
    let json: Record<string, unknown> = {};
    try { json = JSON.parse(stdout || '{}') as Record<string, unknown>; } catch { json = { unparsable: stdout }; }
    resolve({ code: code ?? -1, json, stderr, signal });
  }));
  return { child, done };
}

/** digestOfSnapshot (md5OfSnapshot, sha512OfSnapshot): an rbd export of the image, 120 s inside `timeout`, and 10 s more. */
export const DIGEST_MS = 130_000;
/** A digest of what a clone of IMAGE@snap would read, by the coreutils tool given. */
function digestOfSnapshot(site: 'site-a' | 'site-b', image: string, tool: 'md5sum' | 'sha512sum'): string {
  const result = spawnSync('sh', ['-c', `timeout 120 rbd -c ${devcloud().ceph[site].conf} --id admin export --no-progress images/${image}@snap - | ${tool}`],
    { encoding: 'utf8', timeout: DIGEST_MS });
  return result.stdout.split(' ')[0] ?? '';
}

/** md5 of what a clone of IMAGE@snap would read (Glance's checksum). */
export const md5OfSnapshot = (site: 'site-a' | 'site-b', image: string): string => digestOfSnapshot(site, image, 'md5sum');

/** sha512 of what a clone of IMAGE@snap would read: Glance's default os_hash_algo, compared with os_hash_value. */
export const sha512OfSnapshot = (site: 'site-a' | 'site-b', image: string): string => digestOfSnapshot(site, image, 'sha512sum');

export function md5(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('hex');
}

/** The RBD image's internal id (`rbd info`): the same id before and after a re-run means it was not written again. */
export function rbdImageId(site: 'site-a' | 'site-b', image: string): string | undefined {
  const out = ceph(site, 'rbd', ['info', '--format', 'json', `images/${image}`], 'admin');
  return out.code === 0 ? (JSON.parse(out.stdout) as { id?: string }).id : undefined;
}

/** An image-meta value of an RBD image in the images pool (undefined when it is not set). */
export function rbdMeta(site: 'site-a' | 'site-b', image: string, key: string): string | undefined {
  const out = ceph(site, 'rbd', ['image-meta', 'get', `images/${image}`, key], 'admin');
  return out.code === 0 ? out.stdout.trim() : undefined;
}

/** How many clients have site-b's images/NAME open read-write (`rbd status`): a running import-diff is one. */
export function rbdWatchers(name: string): number {
  const out = ceph('site-b', 'rbd', ['status', '--format', 'json', `images/${name}`], 'admin');
  return out.code === 0 ? (JSON.parse(out.stdout) as { watchers?: unknown[] }).watchers?.length ?? 0 : 0;
}

/** nova's step: a copy-on-write clone of images/IMAGE@snap into site-b's vms pool, as nova's cephx user; removed again (one program: CEPH_MS). */
export function cloneInSiteB(id: string): { readonly code: number; readonly stderr: string } {
  const clone = `vms/it-rbd-clone-${id.slice(0, 8)}-${randomBytes(3).toString('hex')}`;
  const [cloned] = cephAll('site-b', [['rbd', 'clone', `images/${id}@snap`, clone], ['rbd', 'rm', '--no-progress', clone]], 'nova');
  return { code: cloned?.code ?? -1, stderr: cloned?.stderr ?? '' };
}

/** Bytes used by the image and its snapshots (`rbd du`, fast-diff: exact per object). */
export function usedBytes(site: 'site-a' | 'site-b', image: string): number {
  const out = ceph(site, 'rbd', ['du', '--format', 'json', `images/${image}`], 'admin');
  if (out.code !== 0) throw new Error(`rbd du images/${image} on ${site}: ${out.stderr}`);
  // A single image's du lists the image and its snapshots, without a total.
  const parsed = JSON.parse(out.stdout) as { images: { used_size: number }[] };
  return parsed.images.reduce((sum, entry) => sum + entry.used_size, 0);
}

/**
 * Wait, in one program, until site-b's images/NAME exists (`exists`) or has a client with it open (`open`: a running
 * import-diff), polling every 50 ms for at most `seconds`: one spawn the test's limit counts once, where a loop of
 * ceph() calls counts each call's 70 s. Returns whether it came; the caller asserts what it needs.
 */
export function waitForRbd(state: 'exists' | 'open', name: string, seconds: number): boolean {
  return spawnSync('timeout', ...rbdWait(state, name, seconds)).status === 0;
}

/** waitForRbd() without blocking the test's event loop: while it waits, the test's own requests (to an agent) go on. */
export function waitingForRbd(state: 'exists' | 'open', name: string, seconds: number): Promise<boolean> {
  return new Promise((resolve) => {
    spawn('timeout', ...rbdWait(state, name, seconds)).once('exit', (code) => resolve(code === 0));
  });
}

function rbdWait(state: 'exists' | 'open', name: string, seconds: number): [string[], { timeout: number }] {
  const rbd = `rbd -c '${devcloud().ceph['site-b'].conf}' --id admin`;
  const check = state === 'exists' ? `${rbd} ls images | grep -qxF '${name}'` : `${rbd} status --format json 'images/${name}' | grep -q '"watchers":\\[{'`;
  return [[String(seconds), 'sh', '-c', `until ${check}; do sleep 0.05; done`], { timeout: (seconds + 10) * 1000 }];
}

export function rbdNames(site: 'site-a' | 'site-b'): string[] {
  return ceph(site, 'rbd', ['ls', 'images'], 'admin').stdout.split('\n').filter((line) => line !== '');
}

/** The image's site-b locations, as Glance lists them. */
export async function siteBLocations(id: string): Promise<string[]> {
  const image = await readImage(id);
  return ((image.locations ?? []) as { url: string; metadata: { store?: string } }[])
    .filter((location) => location.metadata.store === 'site-b').map((location) => location.url);
}

/** Remove RBD images of site-b whatever their state (unprotect, purge, rm), as admin, in one program (CEPH_MS); best effort. */
export function removeSiteB(...names: string[]): void {
  cephAll('site-b', names.flatMap((name): CephCommand[] => [['rbd', 'snap', 'unprotect', `images/${name}@snap`],
    ['rbd', 'snap', 'purge', '--no-progress', `images/${name}`], ['rbd', 'rm', '--no-progress', `images/${name}`]]), 'admin');
}

/** expectConverged's programs: the md5 of the copy and one rbd ls. */
export const EXPECT_CONVERGED_MS = DIGEST_MS + CEPH_MS;
/** A direct transfer's end state after a fault and a re-run: one site-b location, its bytes Glance's, no partial image. */
export async function expectConverged(id: string): Promise<void> {
  const glance = await readImage(id);
  expect(await siteBLocations(id)).toHaveLength(1);
  expect(md5OfSnapshot('site-b', id)).toBe(glance.checksum);
  expect(rbdNames('site-b')).not.toContain(`${id}.ferry-partial`);
}
