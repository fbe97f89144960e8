import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of .devcloud/devcloud.json the benchmarks use (written by scripts/devcloud/up). */
export interface BenchDevcloud {
  readonly dir: string;
  readonly keystone: { readonly url: string };
  readonly glance: { readonly url: string; readonly stores: readonly string[] };
  readonly ceph: Readonly<Record<'site-a' | 'site-b', { readonly conf: string; readonly fsid: string }>>;
  readonly users: Readonly<Record<'admin' | 'demo', { readonly name: string; readonly password: string; readonly project: string }>>;
  readonly cloudsYaml: string;
}

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The running dev cloud's facts. Unlike test/helpers/devcloud.ts this writes no reach markers: a benchmark running
 * next to the lead's integration suite must not make that suite believe it reached a service.
 */
export function readBenchDevcloud(): BenchDevcloud {
  const dir = process.env.FERRY_DEVCLOUD_DIR ?? join(REPO_ROOT, '.devcloud');
  const file = join(dir, 'devcloud.json');
  if (!existsSync(file)) throw new Error(`no dev cloud at ${dir}: run \`npm run devcloud:up\` first (see scripts/devcloud/)`);
  return { dir, ...(JSON.parse(readFileSync(file, 'utf8')) as Omit<BenchDevcloud, 'dir'>) };
}
