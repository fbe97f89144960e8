// `npm run bench -- transfer [--sizes 256,1024]`: the direct RBD transfer (issue 19) against Glance's copy-image and the
// bare `rbd export-diff | rbd import-diff` pipe, site-a → site-b on the dev cloud, for dense and sparse (⅛ data)
// images of each size (MiB); ferry's direct transfer through librbd, through a warm agent, and through the rbd CLI
// path (FERRY_RBD_DATA_PATH=cli, what runs where python3-rbd is missing). Each transfer gets its own freshly uploaded
// image, so none finds the work done. Also measured: where a direct transfer's time goes (one more run with the rbd/ceph processes timed, bench/lib/step-log),
// the fixed cost of an `ensure` process (the same ensure again, the image local by then), the hash throughput of
// this machine, the target's used bytes, and the bytes in Glance's staging directory right after the direct copy.
// Beside the bare pipe, the same pipe with a sha512 of the stream it carries (`tee` into `openssl dgst -sha512`, the
// OpenSSL hash ferry's Python and Node use; coreutils' sha512sum is ~30 % slower here): what any copy
// that proves its bytes against Glance's hash costs at least on this machine (the sources Glance wrote are dense, so
// the stream holds every byte of the image, zeros included, as ferry's hash does).
// Writes bench/results/transfer.json; exits 1 when a goal is missed.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { callAgent } from '../src/agent/agent-client.js';
import { startBenchAgent } from './lib/bench-agent.js';
import { readBenchDevcloud, REPO_ROOT } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { createStepLog, type Step } from './lib/step-log.js';
import { uploadBytes } from './lib/upload-bytes.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const MiB = 1024 * 1024;
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);
const sizesFlag = process.argv.indexOf('--sizes');
const sizes = (sizesFlag > 0 ? process.argv[sizesFlag + 1] ?? '256' : '256').split(',').map(Number);
const A = devcloud.ceph['site-a'].conf;
const B = devcloud.ceph['site-b'].conf;
const env = { ...process.env, OS_CLOUD: 'devcloud-admin', OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml, FERRY_LOG_LEVEL: 'silent' };
const steps = createStepLog();

function bytesFor(size: number, sparse: boolean): Buffer {
  if (!sparse) return randomBytes(size);
  const buffer = Buffer.alloc(size);
  // ⅛ data, in 8 runs spread over the image: allocated extents apart from each other, as a real sparse disk has.
  for (let run = 0; run < 8; run += 1) randomBytes(size / 64).copy(buffer, run * (size / 8));
  return buffer;
}

const upload = (name: string, bytes: Buffer): Promise<string> => uploadBytes(devcloud, admin, name, bytes);

function timed(command: string, args: readonly string[], extraEnv: Record<string, string> = {}): { seconds: number; status: number | null; stdout: string } {
  const started = process.hrtime.bigint();
  const run = spawnSync(command, args, { encoding: 'utf8', env: { ...env, ...extraEnv }, cwd: REPO_ROOT, maxBuffer: 64 * MiB });
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

/**
 * The bare pipe into site-b under the source's own id: create, export-diff | import-diff; `hashed` also hashes the
 * stream on its way (bash: a process substitution, waited for with `wait $!` so that the time includes its end).
 */
function barePipe(image: string, shape: string, hashed: boolean): string {
  const pass = hashed ? ' | tee >(openssl dgst -sha512 >/dev/null)' : '';
  return `rbd -c ${B} --id admin create ${shape} images/${image} && rbd -c ${A} --id admin export-diff --no-progress images/${image}@snap -${pass} `
    + `| rbd -c ${B} --id admin import-diff --no-progress - images/${image}${hashed ? ' && wait $!' : ''}`;
}

/** What a bare pipe wrote into site-b (Glance knows nothing of it). */
function removeBareCopy(image: string): void {
  spawnSync('sh', ['-c', `rbd -c ${B} --id admin snap purge --no-progress images/${image}; rbd -c ${B} --id admin rm --no-progress images/${image}`]);
}

const RBD = ['--transfer', 'rbd', '--source-ceph-conf', `site-a=${A}`];
const ferry = (id: string, extra: readonly string[], extraEnv: Record<string, string> = {}): number => {
  const run = timed(process.execPath, [join(REPO_ROOT, 'bin/ferry'), 'ensure', id, '--store', 'site-b', '--ceph-conf', B, '--rbd-user', 'glance', '--json', ...extra], extraEnv);
  return run.status === 0 ? run.seconds : Number.NaN;
};

/** One more direct transfer with its rbd/ceph processes timed: the timeline, relative to the ensure process's start. */
function stepRun(id: string): { totalS: number; steps: Step[] } {
  const startedAt = Date.now() / 1000;
  const totalS = ferry(id, RBD, steps.env);
  return { totalS, steps: steps.read(startedAt).map((step) => ({ ...step, startS: round(step.startS), endS: round(step.endS) })) };
}

function hashThroughput(): Record<string, number> {
  const chunk = randomBytes(MiB);
  return Object.fromEntries(['sha512', 'md5'].map((algorithm) => {
    const hash = createHash(algorithm);
    const started = process.hrtime.bigint();
    for (let i = 0; i < 256; i += 1) hash.update(chunk);
    hash.digest();
    return [algorithm, Math.round(256 / (Number(process.hrtime.bigint() - started) / 1e9))];
  }));
}

/**
 * The same direct transfer asked of a running `ferry agent` (how nova's image backend asks on a compute node): no
 * process start, token, fsids and stores detail kept from the warm-up. Seconds from the request to the answer.
 */
async function agentEnsure(socket: string, id: string): Promise<number> {
  const started = process.hrtime.bigint();
  const answer = await callAgent(socket, { method: 'POST', path: '/v1/ensure', body: { image: id } });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const document = answer.body as { transfer?: string; copied?: boolean };
  return answer.status === 200 && document.copied === true && document.transfer === 'rbd' ? seconds : Number.NaN;
}

const round = (value: number): number => Math.round(value * 1000) / 1000;
const rows: (string | number)[][] = [];
const results: Record<string, unknown>[] = [];
const hashMiBps = hashThroughput();
const agent = await startBenchAgent(devcloud, ['--ceph-conf', B, '--rbd-user', 'glance', ...RBD]);
try {
  // Warm-up: the agent's first copy fetches its token, the stores detail and the fsids, as a compute node's first boot.
  const warm = await upload('bench-transfer-warm', randomBytes(MiB));
  if (Number.isNaN(await agentEnsure(agent.socket, warm))) throw new Error('the agent did not copy the warm-up image with --transfer rbd');
  for (const size of sizes) {
    for (const sparse of [false, true]) {
      const bytes = bytesFor(size * MiB, sparse);
      const label = `${size} MiB ${sparse ? 'sparse ⅛' : 'dense'}`;
      const [viaGlance, viaRbd, viaPipe, viaSteps, viaAgent, viaCli] = [await upload(`bench-transfer-g-${size}`, bytes), await upload(`bench-transfer-r-${size}`, bytes),
        await upload(`bench-transfer-p-${size}`, bytes), await upload(`bench-transfer-s-${size}`, bytes), await upload(`bench-transfer-a-${size}`, bytes),
        await upload(`bench-transfer-c-${size}`, bytes)];
      const glanceS = ferry(viaGlance, []);
      const rbdS = ferry(viaRbd, RBD);
      const agentS = await agentEnsure(agent.socket, viaAgent);
      // The data path before librbd, still used where python3-rbd is missing: export-diff | ferry | import-diff.
      const cliS = ferry(viaCli, RBD, { FERRY_RBD_DATA_PATH: 'cli' });
      const staged = stagingBytes();
      const localS = ferry(viaRbd, RBD); // the same ensure again: the image is local now, nothing is copied
      const shape = `--size ${size * MiB}B --object-size 8M`;
      const pipe = sh(barePipe(viaPipe, shape, false));
      removeBareCopy(viaPipe);
      // The hashed pipe gets a fresh source too, uploaded only once the bare pipe's is gone: site-a holds six images
      // of the case at most (at 1 GiB, 6 of its OSD's 10 GiB; with 2.5 GiB more it once filled up).
      await admin.deleteImage(viaPipe);
      const viaHashedPipe = await upload(`bench-transfer-h-${size}`, bytes);
      const hashedPipe = timed('bash', ['-c', barePipe(viaHashedPipe, shape, true)]);
      const hashedPipeS = hashedPipe.status === 0 ? hashedPipe.seconds : Number.NaN;
      const readBack = sh(`rbd -c ${B} --id admin export --no-progress images/${viaRbd}@snap - | sha512sum`);
      const expected = createHash('sha512').update(bytes).digest('hex');
      const timeline = stepRun(viaSteps);
      const rbdUsed = usedBytes(B, viaRbd);
      rows.push([label, glanceS.toFixed(2), rbdS.toFixed(2), agentS.toFixed(2), cliS.toFixed(2), pipe.seconds.toFixed(2), hashedPipeS.toFixed(2),
        (pipe.seconds / rbdS).toFixed(2), (pipe.seconds / agentS).toFixed(2), (hashedPipeS / rbdS).toFixed(2), (hashedPipeS / agentS).toFixed(2),
        (glanceS / rbdS).toFixed(2),
        localS.toFixed(2), readBack.seconds.toFixed(2), (rbdUsed / MiB).toFixed(0), (usedBytes(B, viaGlance) / MiB).toFixed(0), staged,
        readBack.stdout.startsWith(expected) ? 'yes' : 'NO']);
      results.push({ image: label, sizeMiB: size, sparse, glanceS: round(glanceS), rbdS: round(rbdS), agentS: round(agentS), cliPathS: round(cliS), pipeS: round(pipe.seconds),
        hashedPipeS: round(hashedPipeS), rbdOverPipe: round(pipe.seconds / rbdS), agentOverPipe: round(pipe.seconds / agentS),
        rbdOverHashedPipe: round(hashedPipeS / rbdS), agentOverHashedPipe: round(hashedPipeS / agentS), glanceOverRbd: round(glanceS / rbdS), ensureLocalS: round(localS), readBackS: round(readBack.seconds),
        rbdUsedBytes: rbdUsed, glanceUsedBytes: usedBytes(B, viaGlance), stagingBytes: staged, hashOk: readBack.stdout.startsWith(expected),
        stepRun: timeline });
      removeBareCopy(viaHashedPipe);
      // Each case's images go before the next: at 1 GiB one case holds up to 6 GiB in site-a, and the dev cloud's OSDs
      // have 10 GiB each (a run that kept them all filled site-a's OSD: writes and deletes then fail).
      await admin.deleteAll();
    }
  }
} finally {
  await agent.stop();
  await admin.deleteAll();
  steps.dispose();
}
console.log(formatTable(['image', 'glance s', 'ferry rbd s', 'agent rbd s', 'ferry rbd CLI path s', 'bare pipe s', 'pipe+hash s', 'rbd/pipe', 'agent/pipe',
  'rbd/(pipe+hash)', 'agent/(pipe+hash)', 'glance÷rbd', 'ensure local s', 'read-back s', 'rbd MiB used',
  'glance MiB used', 'staging bytes', 'hash ok'], rows));
for (const result of results) {
  const run = result.stepRun as { totalS: number; steps: Step[] };
  console.log(`\n${String(result.image)}: steps of one more direct transfer (${run.totalS.toFixed(2)} s, s from the ensure process's start)`);
  for (const step of run.steps) console.log(`  ${step.startS.toFixed(3)}–${step.endS.toFixed(3)}  ${(step.endS - step.startS).toFixed(3)}  ${step.exit}  ${step.name.slice(0, 110)}`);
}
console.log(`\nhash throughput in this process, MiB/s: ${JSON.stringify(hashMiBps)}`);
const goals = {
  rbdOverPipe: results.every((r) => Number(r.rbdOverPipe) >= 0.8),
  agentOverPipe: results.every((r) => Number(r.agentOverPipe) >= 0.8),
  glanceOverRbdDense: results.filter((r) => r.sparse === false).every((r) => Number(r.glanceOverRbd) >= 1.5),
  glanceOverRbdSparse: results.filter((r) => r.sparse === true).every((r) => Number(r.glanceOverRbd) >= 3),
  stagingZero: results.every((r) => r.stagingBytes === 0),
  hashOk: results.every((r) => r.hashOk === true),
};
console.log(`goals: ${JSON.stringify(goals)}`);
console.log(`result: ${writeBenchResult('transfer', { goals, hashMiBps, sizes, rows: results })}`);
if (Object.values(goals).includes(false)) process.exitCode = 1;
