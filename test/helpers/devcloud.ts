import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  readonly users: Readonly<Record<'admin' | 'demo', { readonly name: string; readonly password: string; readonly project: string }>>;
  readonly appcreds: Readonly<Record<'admin' | 'demo', { readonly id: string; readonly secret: string }>>;
  readonly cloudsYaml: string;
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

/** The environment a user of the dev cloud has after `source .devcloud/devcloud.env`, for a given cloud. */
export function cloudEnv(cloud = 'devcloud-admin'): Record<string, string> {
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

/** A Cloud for the dev cloud as `cloud` (clouds.yaml name), with extra flags, over the given transport. */
export async function devCloud(options: { cloud?: string; flags?: Record<string, string | boolean>; transport?: HttpTransport } = {}): Promise<Cloud> {
  const config = resolveConfig({ flags: options.flags ?? {}, env: cloudEnv(options.cloud), cwd: process.cwd(), homeDir: '/nonexistent' });
  return connectCloud(config, undefined, options.transport ? { transport: options.transport } : {});
}

/** Run rbd/ceph against one of the dev cloud's clusters, bounded in time. */
export function ceph(site: 'site-a' | 'site-b', command: 'rbd' | 'ceph', args: readonly string[], user = 'nova'): { code: number; stdout: string; stderr: string } {
  const result = spawnSync('timeout', ['60', command, '-c', devcloud().ceph[site].conf, '--id', user, ...args], { encoding: 'utf8' });
  if (result.status === 0) markReached(site === 'site-a' ? 'ceph-site-a' : 'ceph-site-b');
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
