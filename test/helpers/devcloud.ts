import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectCloud } from '../../src/cloud/connect-cloud.js';
import type { Cloud } from '../../src/cloud/cloud.js';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { createHttpTransport, type HttpRequest, type HttpTransport } from '../../src/openstack/http-transport.js';

export interface DevcloudFacts {
  readonly dir: string;
  readonly keystone: { readonly url: string };
  readonly glance: { readonly url: string; readonly stores: readonly string[]; readonly database: string; readonly log: string;
    /** Glance's rbd stores: the cluster and pool of each (site-c is pool images-c of site-b's cluster). */
    readonly rbdStores: Readonly<Record<string, { readonly cluster: 'site-a' | 'site-b'; readonly pool: string }>> };
  readonly placement: { readonly url: string };
  readonly ceph: Readonly<Record<'site-a' | 'site-b', { readonly conf: string; readonly fsid: string }>>;
  /**
   * `ferry`: role ferry on project ferry (owns no image); `ferry-transfer`: role ferry on project admin (owns the
   * images); `ferry-evict`: role ferry-evict (implies ferry) on project admin.
   */
  readonly users: Readonly<Record<DevcloudUser, { readonly name: string; readonly password: string; readonly project: string }>>;
  readonly appcreds: Readonly<Record<DevcloudUser, { readonly id: string; readonly secret: string }>>;
  readonly cloudsYaml: string;
  /** ferry's role and Glance policy as the dev cloud installed them (scripts/devcloud/lib/glance.sh). */
  readonly ferry: { readonly role: string;
    /** Where Glance reads ferry-policy.yaml and the opt-in directory; whether it runs with enforce_new_defaults. */
    readonly glancePolicy: { readonly file: string; readonly dir: string; readonly enforceNewDefaults: boolean } };
}

export type DevcloudUser = 'admin' | 'demo' | 'ferry' | 'ferry-transfer' | 'ferry-evict' | 'tenant-a' | 'tenant-b';

/**
 * ferry's own identities (docs/security.md, "Credentials and what each can do"): every ferry run of the integration
 * tests uses one of them, so that the suite proves ferry works with them and no more; admin stays for the tests' own
 * set-up and inspection (uploading, deleting and reading images, Placement providers).
 */
export const FERRY = {
  /**
   * A compute node's agent, the Glance copy path: role ferry on project ferry, which owns no image (it sees the
   * operator's public images: uploadImage makes them public), through an application credential whose access rules
   * allow only the Glance calls of that path.
   */
  cloud: 'devcloud-ferry-appcred',
  /** client.ferry: the mon, and read-only on the images pools (the fsid, the leftover look, ferry stores' probe). */
  rbdUser: 'ferry',
  /**
   * The direct RBD transfer: role ferry on project admin, which owns the tests' images (Glance lets only the owning
   * project add a location), through an application credential that also allows PATCH /v2/images/{id}.
   */
  transferCloud: 'devcloud-ferry-transfer-appcred',
  /** client.ferry-transfer: writes site-b's images and images-c pools, reads site-a's images pool. */
  transferRbdUser: 'ferry-transfer',
  /**
   * ferry evict and sync's budgets: role ferry-evict (implies ferry, adds delete_image_location) on project admin,
   * through an application credential that allows reads and DELETE /v2/stores/{store}/{id} only.
   */
  evictCloud: 'devcloud-ferry-evict-appcred',
  /** client.ferry-evict: writes the images pools (the fence), reads every pool (a copy's clones, in vms). */
  evictRbdUser: 'ferry-evict',
} as const;

/** The dev cloud's admin: test set-up and inspection, and the ferry commands that need Placement's admin rules. */
export const ADMIN_CLOUD = 'devcloud-admin';

/**
 * The identity of a ferry run (an agent) with these arguments: ferry evict's for `evict`, the direct transfer's when
 * they let it transfer, else a compute node's.
 */
export function ferryIdentity(args: readonly string[]): { readonly cloud: string; readonly rbdUser: string } {
  if (args[0] === 'evict') return { cloud: FERRY.evictCloud, rbdUser: FERRY.evictRbdUser };
  const at = args.indexOf('--transfer');
  const transfer = at >= 0 && ['rbd', 'auto'].includes(args[at + 1] ?? '');
  return transfer ? { cloud: FERRY.transferCloud, rbdUser: FERRY.transferRbdUser } : { cloud: FERRY.cloud, rbdUser: FERRY.rbdUser };
}

const DIR = process.env.FERRY_DEVCLOUD_DIR ?? join(process.cwd(), '.devcloud');
let facts: DevcloudFacts | undefined;

/** The running dev cloud's facts; throws (failing the suite) when there is none. */
export function devcloud(): DevcloudFacts {
  if (facts) return facts;
  const file = join(DIR, 'devcloud.json');
  if (!existsSync(file)) {
    throw new Error(`no dev cloud at ${DIR}: run \`npm run devcloud:up\` (integration tests never skip quietly)`);
  }
  facts = { dir: DIR, ...(JSON.parse(readFileSync(file, 'utf8')) as Omit<DevcloudFacts, 'dir'>) };
  return facts;
}

// 'systemd': test/integration/systemd ran ferry-agent.service under a real systemd (scripts/systemd).
export type Service = 'keystone' | 'glance' | 'placement' | 'ceph-site-a' | 'ceph-site-b' | 'systemd';

/** Record that a test really talked to a service; scripts/run-integration.mjs checks every one was reached. */
export function markReached(service: Service): void {
  const dir = join(devcloud().dir, 'reached');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, service), new Date().toISOString());
}

/** The environment a user of the dev cloud has after `source .devcloud/devcloud.env`, for a given cloud (ferry's own by default). */
export function cloudEnv(cloud: string = FERRY.cloud): Record<string, string> {
  return { OS_CLOUD: cloud, OS_CLIENT_CONFIG_FILE: devcloud().cloudsYaml };
}

/** A transport that counts what it sends (by method and path shape) and marks the services it reached. */
export interface CountingTransport extends HttpTransport {
  readonly sent: HttpRequest[];
  count(method: string, pathPattern: RegExp): number;
}

export function countingTransport(): CountingTransport {
  const inner = createHttpTransport();
  const sent: HttpRequest[] = [];
  const facts = devcloud();
  return {
    sent,
    async send(request) {
      sent.push(request);
      const response = await inner.send(request);
      if (request.url.startsWith(facts.glance.url)) markReached('glance');
      if (request.url.startsWith(facts.placement.url)) markReached('placement');
      if (request.url.startsWith(facts.keystone.url.replace(/\/v3$/, ''))) markReached('keystone');
      return response;
    },
    count: (method, pattern) => sent.filter((r) => r.method === method && pattern.test(new URL(r.url).pathname)).length,
    close: () => inner.close(),
  };
}

/** A Cloud for the dev cloud as `cloud` (clouds.yaml name; ferry's own by default), with extra flags, over the given transport. */
export async function devCloud(options: { cloud?: string; flags?: Record<string, string | boolean>; transport?: HttpTransport } = {}): Promise<Cloud> {
  const config = resolveConfig({ flags: options.flags ?? {}, env: cloudEnv(options.cloud), cwd: process.cwd(), homeDir: '/nonexistent' });
  return connectCloud(config, undefined, options.transport ? { transport: options.transport } : {});
}

/** One rbd or ceph command against the dev cloud (ceph()): 60 s inside `timeout`, and the spawn's own 10 s more. */
export const CEPH_MS = 70_000;
/** Run rbd/ceph against one of the dev cloud's clusters, bounded in time. */
export function ceph(site: 'site-a' | 'site-b', command: 'rbd' | 'ceph', args: readonly string[], user = 'nova'): { code: number; stdout: string; stderr: string } {
  const result = spawnSync('timeout', ['60', command, '-c', devcloud().ceph[site].conf, '--id', user, ...args], { encoding: 'utf8', timeout: CEPH_MS });
  if (result.status === 0) markReached(site === 'site-a' ? 'ceph-site-a' : 'ceph-site-b');
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** One command of cephAll(): rbd or ceph and its arguments (the cluster's conf and the user are added). */
export type CephCommand = readonly ['rbd' | 'ceph', ...string[]];
const quoted = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;
/**
 * Several rbd or ceph commands against one cluster, one after another in ONE program bounded as one ceph() call: 60 s
 * for all of them (each command gets what is left), CEPH_MS for the spawn. A test's back-to-back commands (set-up,
 * clean-up, the reads after a run) count CEPH_MS once, where a ceph() per command counts 70 s each. Every command
 * runs whatever the others answered; each one's result in order, code -1 when the 60 s ran out before it ran.
 */
export function cephAll(site: 'site-a' | 'site-b', commands: readonly CephCommand[], user = 'nova'): { code: number; stdout: string; stderr: string }[] {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-it-ceph-'));
  try {
    const connect = ['-c', devcloud().ceph[site].conf, '--id', user].map(quoted).join(' ');
    const steps = commands.map(([program, ...args], n) => `run ${n} ${program} ${connect} ${args.map(quoted).join(' ')}`);
    const script = ['end=$(( $(date +%s) + 60 ))',
      'run() { n=$1; shift; left=$(( end - $(date +%s) )); [ "$left" -gt 0 ] || return 0; timeout "$left" "$@" >"$n.out" 2>"$n.err"; echo $? >"$n.code"; }',
      ...steps].join('\n');
    spawnSync('sh', ['-c', script], { cwd: dir, timeout: CEPH_MS });
    const read = (file: string): string => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : '');
    const results = commands.map((_, n) => ({ code: read(`${n}.code`) === '' ? -1 : Number(read(`${n}.code`)), stdout: read(`${n}.out`), stderr: read(`${n}.err`) }));
    if (results.some((result) => result.code === 0)) markReached(site === 'site-a' ? 'ceph-site-a' : 'ceph-site-b');
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
