// `npm run bench -- transfer-sites [--size 256] [--runs 1]`: "every site at once" (issue 19, item 5). An image in
// site-a is wanted at one rbd store (site-b) or at every other rbd store at once (site-b and site-c, which is pool
// images-c of site-b's cluster), brought by `ferry prewarm` through Glance's copy-image or with `--transfer rbd`; and
// the bare `rbd export-diff | rbd import-diff` pipe into one pool, or into both pools at once (what the machine allows).
// Dense images (random bytes), each transfer its own freshly uploaded image. Goal: with --transfer rbd the last store
// is ready within 1.5 × one store's time (through Glance it is about N ×: Glance writes one store after another).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readBenchDevcloud, REPO_ROOT } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { numberFlag } from './lib/number-flag.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { uploadBytes } from './lib/upload-bytes.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const MiB = 1024 * 1024;
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
const size = numberFlag('--size', 256);
const runs = numberFlag('--runs', 1);
const A = devcloud.ceph['site-a'].conf;
const B = devcloud.ceph['site-b'].conf;
const env = { ...process.env, OS_CLOUD: 'devcloud-admin', OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml, FERRY_LOG_LEVEL: 'silent' };
const RBD = ['--transfer', 'rbd', '--rbd-user', 'glance', '--source-ceph-conf', `site-a=${A}`, '--source-ceph-conf', `site-b=${B}`,
  '--source-ceph-conf', `site-c=${B}`];
const POOL = { 'site-b': 'images', 'site-c': 'images-c' } as const;

interface Prewarmed { readonly wallS: number; readonly runS: number; readonly perStoreS: Record<string, number | null>; readonly ok: boolean }

/** One `ferry prewarm` process: its wall time, the run's own `seconds`, and each store's item seconds. */
function prewarm(id: string, stores: readonly string[], extra: readonly string[]): Prewarmed {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/ferry'), 'prewarm', id, ...stores.flatMap((s) => ['--store', s]), '--json', ...extra],
    { encoding: 'utf8', env, cwd: REPO_ROOT, maxBuffer: 16 * MiB });
  const wallS = Number(process.hrtime.bigint() - started) / 1e9;
  const json = JSON.parse(run.stdout || '{}') as { seconds?: number; counts?: { copied: number }; items?: { store: string; seconds: number | null }[] };
  if (run.status !== 0) console.error(`prewarm ${stores.join(',')} ${extra.slice(0, 2).join(' ')} → ${run.status}: ${run.stderr.slice(-400)}`);
  return { wallS, runS: json.seconds ?? Number.NaN, ok: run.status === 0 && json.counts?.copied === stores.length,
    perStoreS: Object.fromEntries((json.items ?? []).map((item) => [item.store, item.seconds])) };
}

/** The bare pipe from site-a's snapshot into each target at once (site-b's cluster), after `rbd create`. */
function barePipe(id: string, targets: readonly (keyof typeof POOL)[]): number {
  const shape = `--size ${size * MiB}B --object-size 8M`;
  const one = (pool: string): string => `rbd -c ${B} --id admin create ${shape} ${pool}/${id} && rbd -c ${A} --id admin export-diff --no-progress `
    + `images/${id}@snap - | rbd -c ${B} --id admin import-diff --no-progress - ${pool}/${id}`;
  const started = process.hrtime.bigint();
  const run = spawnSync('bash', ['-c', `${targets.map((t) => `( ${one(POOL[t])} ) & `).join('')} wait`], { encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) console.error(`bare pipe → ${run.status}: ${run.stderr.slice(-400)}`);
  for (const t of targets) {
    spawnSync('bash', ['-c', `rbd -c ${B} --id admin snap purge --no-progress ${POOL[t]}/${id}; rbd -c ${B} --id admin rm --no-progress ${POOL[t]}/${id}`]);
  }
  return seconds;
}

/** One export-diff read once and fanned out to both pools (tee): what "read the source once" would buy at best. */
function bareFanOut(id: string): number {
  const shape = `--size ${size * MiB}B --object-size 8M`;
  const started = process.hrtime.bigint();
  const run = spawnSync('bash', ['-c', `set -o pipefail; rbd -c ${B} --id admin create ${shape} images/${id} && rbd -c ${B} --id admin create ${shape} images-c/${id} `
    + `&& rbd -c ${A} --id admin export-diff --no-progress images/${id}@snap - | tee >(rbd -c ${B} --id admin import-diff --no-progress - images/${id}) `
    + `| rbd -c ${B} --id admin import-diff --no-progress - images-c/${id}; wait`], { encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) console.error(`bare fan-out → ${run.status}: ${run.stderr.slice(-400)}`);
  for (const pool of ['images', 'images-c']) {
    spawnSync('bash', ['-c', `rbd -c ${B} --id admin snap purge --no-progress ${pool}/${id}; rbd -c ${B} --id admin rm --no-progress ${pool}/${id}`]);
  }
  return seconds;
}

const samples: Record<string, unknown>[] = [];
const rows: (string | number)[][] = [];
const all = ['site-b', 'site-c'] as const;
try {
  for (let run = 0; run < runs; run += 1) {
    const bytes = randomBytes(size * MiB);
    const ids = { glanceOne: '', glanceAll: '', rbdOne: '', rbdAll: '' };
    for (const key of Object.keys(ids) as (keyof typeof ids)[]) ids[key] = await uploadBytes(devcloud, admin, `bench-sites-${key}-${run}`, bytes);
    const pipeOne = barePipe(ids.rbdOne, ['site-b']);
    const pipeAll = barePipe(ids.rbdOne, [...all]);
    const fanOut = bareFanOut(ids.rbdOne);
    const glanceOne = prewarm(ids.glanceOne, ['site-b'], []);
    const glanceAll = prewarm(ids.glanceAll, all, []);
    const rbdOne = prewarm(ids.rbdOne, ['site-b'], RBD);
    const rbdAll = prewarm(ids.rbdAll, all, RBD);
    samples.push({ run, pipeOneS: pipeOne, pipeAllS: pipeAll, fanOutS: fanOut, glanceOne, glanceAll, rbdOne, rbdAll });
    const ratio = (one: Prewarmed, both: Prewarmed): string => (both.runS / one.runS).toFixed(2);
    rows.push([`${run + 1}: glance copy-image`, glanceOne.runS.toFixed(2), glanceAll.runS.toFixed(2), ratio(glanceOne, glanceAll),
      `${glanceAll.perStoreS['site-b'] ?? '-'} / ${glanceAll.perStoreS['site-c'] ?? '-'}`, glanceOne.ok && glanceAll.ok ? 'yes' : 'NO']);
    rows.push([`${run + 1}: ferry --transfer rbd`, rbdOne.runS.toFixed(2), rbdAll.runS.toFixed(2), ratio(rbdOne, rbdAll),
      `${rbdAll.perStoreS['site-b'] ?? '-'} / ${rbdAll.perStoreS['site-c'] ?? '-'}`, rbdOne.ok && rbdAll.ok ? 'yes' : 'NO']);
    rows.push([`${run + 1}: bare pipe`, pipeOne.toFixed(2), pipeAll.toFixed(2), (pipeAll / pipeOne).toFixed(2), '-', '-']);
    rows.push([`${run + 1}: bare fan-out (one read, tee)`, '-', fanOut.toFixed(2), (fanOut / pipeOne).toFixed(2), '-', '-']);
  }
} finally {
  await admin.deleteAll();
}
console.log(`${size} MiB dense, site-a → site-b alone vs site-b + site-c at once (prewarm's own "seconds"; ${runs} run(s))`);
console.log(formatTable(['transfer', 'one store s', 'both stores s', 'both ÷ one', 'per store s (b / c)', 'all copied'], rows));
const file = writeBenchResult('transfer-sites', { sizeMiB: size, runs, samples });
console.log(`written: ${file}`);
