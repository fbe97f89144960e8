// `npm run bench -- transfer [--sizes 256,1024]`: the direct RBD transfer (issue 19) against Glance's copy-image and the
// bare `rbd export-diff | rbd import-diff` pipe, site-a → site-b on the dev cloud, for dense and sparse (⅛ data)
// images of each size (MiB). Each transfer gets its own freshly uploaded image, so none finds the work done. Also
// measured: the read-back verification alone (`rbd export TARGET@snap - | sha512`), the target's used bytes, and the
// bytes in Glance's staging directory right after the direct copy.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readBenchDevcloud, REPO_ROOT } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';

const MiB = 1024 * 1024;
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
const sizesFlag = process.argv.indexOf('--sizes');
const sizes = (sizesFlag > 0 ? process.argv[sizesFlag + 1] ?? '256' : '256').split(',').map(Number);
const A = devcloud.ceph['site-a'].conf;
const B = devcloud.ceph['site-b'].conf;
const env = { ...process.env, OS_CLOUD: 'devcloud-admin', OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml, FERRY_LOG_LEVEL: 'silent' };

function bytesFor(size: number, sparse: boolean): Buffer {
  if (!sparse) return randomBytes(size);
  const buffer = Buffer.alloc(size);
  // ⅛ data, in 8 runs spread over the image: allocated extents apart from each other, as a real sparse disk has.
  for (let run = 0; run < 8; run += 1) randomBytes(size / 64).copy(buffer, run * (size / 8));
  return buffer;
}

async function upload(name: string, bytes: Buffer): Promise<string> {
  const token = await admin.token();
  const created = await fetch(`${devcloud.glance.url}/v2/images`, { method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name, disk_format: 'raw', container_format: 'bare' }) });
  const { id } = (await created.json()) as { id: string };
  (admin.created as Set<string>).add(id);
  const put = await fetch(`${devcloud.glance.url}/v2/images/${id}/file`, { method: 'PUT',
    headers: { 'x-auth-token': token, 'content-type': 'application/octet-stream', 'x-image-meta-store': 'site-a' }, body: bytes });
  if (put.status !== 204) throw new Error(`upload: ${put.status}`);
  return id;
}

function timed(command: string, args: readonly string[]): { seconds: number; status: number | null; stdout: string } {
  const started = process.hrtime.bigint();
  const run = spawnSync(command, args, { encoding: 'utf8', env, cwd: REPO_ROOT, maxBuffer: 64 * MiB });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) console.error(`${command} ${args.join(' ')} → ${run.status}: ${run.stderr.slice(-400)}`);
  return { seconds, status: run.status, stdout: run.stdout };
}

function sh(script: string): { seconds: number; stdout: string } {
  const result = timed('sh', ['-c', script]);
  return { seconds: result.seconds, stdout: result.stdout };
}

function usedBytes(conf: string, image: string): number {
  const out = spawnSync('rbd', ['-c', conf, '--id', 'admin', 'du', '--format', 'json', `images/${image}`], { encoding: 'utf8' });
  return (JSON.parse(out.stdout) as { images: { used_size: number }[] }).images.reduce((sum, entry) => sum + entry.used_size, 0);
}

function stagingBytes(): number {
  const dir = join(devcloud.dir, 'glance', 'staging');
  return readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
}

const ferry = (id: string, extra: readonly string[]): number => {
  const run = timed(process.execPath, [join(REPO_ROOT, 'bin/ferry'), 'ensure', id, '--store', 'site-b', '--ceph-conf', B, '--rbd-user', 'glance', '--json', ...extra]);
  return run.status === 0 ? run.seconds : Number.NaN;
};

const rows: (string | number)[][] = [];
try {
  for (const size of sizes) {
    for (const sparse of [false, true]) {
      const bytes = bytesFor(size * MiB, sparse);
      const label = `${size} MiB ${sparse ? 'sparse ⅛' : 'dense'}`;
      const [viaGlance, viaRbd, viaPipe] = [await upload(`bench-transfer-g-${size}`, bytes), await upload(`bench-transfer-r-${size}`, bytes),
        await upload(`bench-transfer-p-${size}`, bytes)];
      const glanceS = ferry(viaGlance, []);
      const rbdS = ferry(viaRbd, ['--transfer', 'rbd', '--source-ceph-conf', `site-a=${A}`]);
      const staged = stagingBytes();
      const shape = `--size ${size * MiB}B --object-size 8M`;
      const pipe = sh(`rbd -c ${B} --id admin create ${shape} images/${viaPipe} && rbd -c ${A} --id admin export-diff --no-progress images/${viaPipe}@snap - `
        + `| rbd -c ${B} --id admin import-diff --no-progress - images/${viaPipe}`);
      const verify = sh(`rbd -c ${B} --id admin export --no-progress images/${viaRbd}@snap - | sha512sum`);
      const expected = createHash('sha512').update(bytes).digest('hex');
      rows.push([label, glanceS.toFixed(2), rbdS.toFixed(2), pipe.seconds.toFixed(2), (pipe.seconds / rbdS).toFixed(2), (glanceS / rbdS).toFixed(2),
        verify.seconds.toFixed(2), (usedBytes(B, viaRbd) / MiB).toFixed(0), (usedBytes(B, viaGlance) / MiB).toFixed(0), staged,
        verify.stdout.startsWith(expected) ? 'yes' : 'NO']);
      spawnSync('sh', ['-c', `rbd -c ${B} --id admin snap purge --no-progress images/${viaPipe}; rbd -c ${B} --id admin rm --no-progress images/${viaPipe}`]);
    }
  }
} finally {
  await admin.deleteAll();
}
console.log(formatTable(['image', 'glance s', 'ferry rbd s', 'bare pipe s', 'rbd/pipe', 'glance÷rbd', 'verify s', 'rbd MiB used', 'glance MiB used',
  'staging bytes', 'hash ok'], rows));
