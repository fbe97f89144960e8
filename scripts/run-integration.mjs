#!/usr/bin/env node
// Runs the integration tests against the real dev cloud (scripts/devcloud), and proves they reached it.
//
// - If the dev cloud is healthy, use it. Otherwise bring it up when this machine allows (root, or passwordless sudo);
//   a cloud this script started is stopped again at the end (FERRY_KEEP_DEVCLOUD=1 keeps it).
// - When the cloud cannot be had: a loud SKIPPED notice and exit 0 — unless FERRY_REQUIRE_INTEGRATION=1 (set by
//   .ci/run), then exit 1.
// - After the tests, every service must have been reached (test/helpers/reach-marker.ts writes one marker file per
//   service into $FERRY_DEVCLOUD_DIR/reached/): Keystone, Glance, Placement and both Ceph clusters. Otherwise fail.
// - test/integration/systemd runs packaging/systemd/ferry-agent.service under a real systemd (scripts/systemd). On a
//   machine that can run it (`scripts/systemd/up --check`: root, namespaces, cgroup2, the systemd package) its marker
//   `systemd` is required too, in a full run and in a run that names that directory. Where systemd cannot run at all
//   the test skips itself and this script prints why — and fails under FERRY_REQUIRE_INTEGRATION=1 (CI).
// - A program a test spawns without a timeout, or with one past the test's limit, fails that test
//   (test/helpers/spawn-limit-runner.ts).
// - A full run (no file named) runs the files in lanes (scripts/integration-lanes.mjs): files that share nothing run at
//   the same time, FERRY_INTEGRATION_LANES (default 2; 0 runs every file one after another) shared lanes beside the
//   lanes of their own (the .deb, store site-c and the private systemd). The files that disrupt their dev cloud (kill a
//   service, change Glance's policy) run one at a time on a second dev cloud beside them ($FERRY_DEVCLOUD_DIR/second-cloud,
//   ports from FERRY_INTEGRATION_SECOND_CLOUD_PORT, default 17000), and the soak's smoke on a third
//   ($FERRY_DEVCLOUD_DIR/third-cloud, the second's ports + 300); FERRY_INTEGRATION_CLOUDS=2 puts the smoke on the second
//   cloud too, =1 runs them all after the lanes on the first cloud; the few that disrupt more than a cloud run last,
//   alone. A failure in any lane fails the run; every lane's reach markers count, on any cloud. Each lane's lines are
//   prefixed with its name, and a table of every file's time, lane and verdict ends the run (from vitest's JSON report,
//   $FERRY_DEVCLOUD_DIR/lanes/). The extra clouds are stopped at the end (their state kept for their logs, reused by the
//   next run); a bad setting exits 2 before anything starts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { planLanes, readLaneSettings, secondCloudPorts } from './integration-lanes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.env.FERRY_DEVCLOUD_DIR ?? join(root, '.devcloud');
const required = process.env.FERRY_REQUIRE_INTEGRATION === '1';
const REQUIRED_SERVICES = ['keystone', 'glance', 'placement', 'ceph-site-a', 'ceph-site-b'];
// The extra dev clouds of a full run (the files that disrupt their cloud run on them, beside the lanes), inside the
// first's state directory: their own ports, databases, Ceph clusters and logs, kept after the run for inspection and
// reused by the next. `files` names the plan's list each one runs.
const CLOUDS = [{ name: 'second', files: 'second', offset: 0 }, { name: 'third', files: 'own', offset: 300 }];

const run = (cmd, args, options = {}) => spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, FERRY_DEVCLOUD_DIR: dir }, ...options });
const banner = (text) => console.error(`\n${'!'.repeat(78)}\n${text}\n${'!'.repeat(78)}\n`);

function healthy() {
  return spawnSync('bash', [join(root, 'scripts/devcloud/status')], { stdio: 'ignore', env: { ...process.env, FERRY_DEVCLOUD_DIR: dir } }).status === 0;
}

function canStartCloud() {
  if (process.getuid?.() === 0) return { ok: true };
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  return sudo.status === 0 ? { ok: true } : { ok: false, why: 'not root and no passwordless sudo (the dev cloud installs Debian packages)' };
}

const settings = readLaneSettings(process.env);
if (settings.problem) {
  console.error(`integration: ${settings.problem}`);
  process.exit(2);
}
const extraClouds = CLOUDS.map(({ name, files, offset }) => {
  const cloudDir = join(dir, `${name}-cloud`);
  return { name, files, dir: cloudDir, env: { FERRY_DEVCLOUD_DIR: cloudDir, ...secondCloudPorts(settings.secondPortBase + offset) }, started: false };
});

/**
 * The vitest runs, each in a process group of its own, stopped with this script (SIGINT, SIGTERM): the whole group, as
 * vitest's workers and the programs their tests spawn outlive a vitest that was only signalled (seen: workers and a
 * .deb build still running after a Ctrl-C). No lane outlives the run, nor a dev cloud this run started.
 */
const running = new Set();
const signalGroups = (signal) => {
  for (const child of running) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group has ended already
    }
  }
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    signalGroups(signal);
    stopClouds();
    signalGroups('SIGKILL');
    process.exit(1);
  });
}

let startedHere = false;
if (!healthy()) {
  const can = canStartCloud();
  if (!can.ok) {
    banner(`INTEGRATION TESTS SKIPPED: the dev cloud is not running and cannot be started here: ${can.why}.\n`
      + 'Start it with `npm run devcloud:up` (as root) and run `npm test` again.');
    process.exit(required ? 1 : 0);
  }
  console.error('integration: starting the dev cloud (scripts/devcloud/up)…');
  const up = run('bash', [join(root, 'scripts/devcloud/up')]);
  if (up.status !== 0) {
    banner('INTEGRATION TESTS FAILED TO START: scripts/devcloud/up failed (see above).');
    process.exit(1);
  }
  startedHere = true;
}

// Reach markers, one set per cloud's directory (test/helpers write them where the cloud is).
const reachedDirs = [dir, ...extraClouds.map((cloud) => cloud.dir)].map((path) => join(path, 'reached'));
for (const path of reachedDirs) rmSync(path, { recursive: true, force: true });
mkdirSync(reachedDirs[0], { recursive: true });

const fullRun = process.argv.length <= 2;
const systemdSelected = fullRun || process.argv.slice(2).some((arg) => arg.includes('integration/systemd'));
let systemdRequired = false;
if (systemdSelected) {
  const check = spawnSync('bash', [join(root, 'scripts/systemd/up'), '--check'], { encoding: 'utf8', cwd: root });
  systemdRequired = check.status === 0;
  if (!systemdRequired) {
    banner(`SYSTEMD UNIT TEST SKIPPED: ${(check.stdout + check.stderr).trim()}\n`
      + 'ferry-agent.service was not run under systemd (test/integration/systemd).');
    if (required) {
      console.error('integration: FERRY_REQUIRE_INTEGRATION=1 and the systemd unit test cannot run here: failing');
    }
  }
}

const vitest = join(root, 'node_modules/.bin/vitest');
let code;
const started = Date.now();
if (fullRun && settings.shared === 0) {
  // Lanes off: every file one after another, as before the lanes.
  code = await inGroup(vitest, ['run', '--project', 'integration'], 'inherit');
} else if (fullRun) {
  code = await runInLanes();
} else {
  code = await inGroup(vitest, ['run', '--project', 'integration', ...process.argv.slice(2)], 'inherit');
}
if (systemdSelected && !systemdRequired && required) code = code || 1;

const seen = [...new Set(reachedDirs.flatMap((path) => (existsSync(path) ? readdirSync(path) : [])))];
const missing = REQUIRED_SERVICES.filter((service) => !seen.includes(service));
if (fullRun && missing.length > 0) {
  banner(`INTEGRATION TESTS DID NOT REACH: ${missing.join(', ')} — the suite must talk to every real service.`);
  code = code || 1;
} else if (fullRun) {
  console.error(`integration: reached ${seen.sort().join(', ')}`);
}
if (systemdRequired && !seen.includes('systemd')) {
  banner('SYSTEMD UNIT TEST DID NOT RUN: this machine can run systemd (scripts/systemd/up --check), but\n'
    + 'test/integration/systemd never reached it — ferry-agent.service must be tested under its unit here.');
  code = code || 1;
}

stopClouds();
process.exit(code);

/** Stop the dev clouds this run started (the extra ones always: they belong to the run), unless FERRY_KEEP_DEVCLOUD=1. */
function stopClouds() {
  if (process.env.FERRY_KEEP_DEVCLOUD === '1') return;
  for (const cloud of extraClouds.filter((each) => each.started)) {
    console.error(`integration: stopping the ${cloud.name} dev cloud`);
    run('bash', [join(root, 'scripts/devcloud/down')], { env: { ...process.env, ...cloud.env } });
    cloud.started = false;
  }
  if (startedHere) {
    console.error('integration: stopping the dev cloud this run started');
    run('bash', [join(root, 'scripts/devcloud/down')]);
    startedHere = false;
  }
}

/** Every integration test file, relative to the repository, sorted. */
function integrationFiles() {
  const top = join(root, 'test', 'integration');
  return readdirSync(top, { recursive: true }).map(String).filter((path) => path.endsWith('.test.ts'))
    .map((path) => relative(root, join(top, path))).sort();
}

/** One vitest run of these files on a cloud (the first by default), its lines prefixed with the lane's name; resolves to its exit code. */
function lane(name, files, reportDir, cloudEnv = { FERRY_DEVCLOUD_DIR: dir }) {
  return prefixed(name, vitest, ['run', '--project', 'integration', '--reporter=default', '--reporter=json',
    `--outputFile.json=${join(reportDir, `${name}.json`)}`, ...files], cloudEnv)
    .then((status) => {
      console.error(`integration: lane ${name} ended: exit ${status} (${files.length} file(s))`);
      return status;
    });
}

/** A program run beside the others, its lines prefixed with `name`; resolves to its exit code (1 when a signal ended it). */
function prefixed(name, cmd, args, env) {
  return inGroup(cmd, args, ['ignore', 'pipe', 'pipe'], { ...env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' }, (child) => {
    for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
      createInterface({ input: stream }).on('line', (line) => out.write(`[${name}] ${line}\n`));
    }
  });
}

/** A program in a process group of its own (stopped whole by this script's signal handler); resolves to its exit code. */
function inGroup(cmd, args, stdio, env = { FERRY_DEVCLOUD_DIR: dir }, attach = () => {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio, detached: true });
    attach(child);
    running.add(child);
    child.on('close', (status) => {
      running.delete(child);
      resolve(status ?? 1);
    });
  });
}

/**
 * The extra clouds' lanes: each cloud brought up after the one before it (after the first: one apt-get at a time, and
 * one burst of Ceph's start-up), then its files one after another. Resolves to each lane's exit code.
 */
function extraCloudLanes(plan, reportDir) {
  let previousUp = Promise.resolve();
  return extraClouds.filter((cloud) => plan[cloud.files].length > 0).map((cloud) => {
    const up = previousUp.then(() => bringUp(cloud));
    previousUp = up;
    return up.then((status) => (status === 0 ? lane(cloud.name, plan[cloud.files], reportDir, cloud.env) : 1));
  });
}

/** An extra cloud up: a state directory an earlier run left that does not come up is purged and made again, once. */
async function bringUp(cloud) {
  const up = join(root, 'scripts/devcloud/up');
  const label = `${cloud.name}-cloud`;
  cloud.started = true;
  let status = await prefixed(label, 'bash', [up], cloud.env);
  if (status !== 0 && existsSync(cloud.dir)) {
    console.error(`integration: the ${cloud.name} dev cloud did not come up from its old state: purging it and starting it anew`);
    await prefixed(label, 'bash', [join(root, 'scripts/devcloud/down'), '--purge'], cloud.env);
    status = await prefixed(label, 'bash', [up], cloud.env);
  }
  if (status !== 0) {
    banner(`INTEGRATION TESTS FAILED TO START: the ${cloud.name} dev cloud (${cloud.dir}) did not come up (see [${label}] above); `
      + 'FERRY_INTEGRATION_CLOUDS=1 runs its files on the first cloud instead.');
  }
  return status;
}

/** The lanes side by side, then the files that must run alone; a table of every file's time at the end. */
async function runInLanes() {
  const plan = planLanes(integrationFiles(), settings.shared, { clouds: settings.clouds });
  const reportDir = join(dir, 'lanes');
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  for (const { name, files } of plan.lanes) console.error(`integration: lane ${name}: ${files.join(' ')}`);
  if (plan.second.length > 0) console.error(`integration: on a second dev cloud, beside them, one at a time: ${plan.second.join(' ')}`);
  if (plan.own.length > 0) console.error(`integration: on a third dev cloud, beside them: ${plan.own.join(' ')}`);
  for (const { file, lanes } of plan.after) console.error(`integration: once lane(s) ${lanes.join(', ')} ended: ${file}`);
  console.error(`integration: then alone: ${plan.alone.join(' ')}`);
  const loads = [];
  const sampler = setInterval(() => loads.push(loadavg()[0]), 15_000);
  const lanes = new Map(plan.lanes.map(({ name, files }) => [name, lane(name, files, reportDir)]));
  // A file after lanes runs whatever their verdicts: the run fails on theirs anyway, and its own is still worth having.
  const followers = plan.after.map(({ file, lanes: names }) => Promise.all(names.map((name) => lanes.get(name)))
    .then(() => lane(basename(file, '.test.ts'), [file], reportDir)));
  const codes = await Promise.all([...lanes.values(), ...extraCloudLanes(plan, reportDir)]);
  const lanesDone = Date.now();
  // The alone files need every lane quiet, not the files after lanes: those run nothing from dist/ (AFTER_LANES).
  if (plan.alone.length > 0) codes.push(await lane('alone', plan.alone, reportDir));
  codes.push(...(await Promise.all(followers)));
  clearInterval(sampler);
  printTimes(reportDir, lanesDone, loads);
  return codes.find((status) => status !== 0) ?? 0;
}

/** Each file's seconds, lane and verdict, their sum, and the wall time with the load average. */
function printTimes(reportDir, lanesDone, loads) {
  const rows = [];
  for (const report of readdirSync(reportDir).filter((file) => file.endsWith('.json'))) {
    const { testResults = [] } = JSON.parse(readFileSync(join(reportDir, report), 'utf8'));
    for (const result of testResults) {
      rows.push({ file: relative(root, result.name), lane: report.replace(/\.json$/, ''), seconds: (result.endTime - result.startTime) / 1000, status: result.status });
    }
  }
  rows.sort((a, b) => b.seconds - a.seconds);
  const sum = rows.reduce((total, row) => total + row.seconds, 0);
  const wall = (Date.now() - started) / 1000;
  console.error(`\nintegration: per-file times (s), longest first:\n${rows.map((row) => `${row.seconds.toFixed(1).padStart(7)}  ${row.status.padEnd(6)}  ${row.lane.padEnd(9)}  ${row.file}`).join('\n')}`);
  console.error(`integration: ${rows.length} files, sum ${sum.toFixed(0)} s; wall ${wall.toFixed(0)} s (lanes ${((lanesDone - started) / 1000).toFixed(0)} s, then alone); `
    + `1-min load average every 15 s: mean ${(loads.reduce((a, b) => a + b, 0) / Math.max(loads.length, 1)).toFixed(1)}, `
    + `min ${Math.min(...loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)}`);
}
