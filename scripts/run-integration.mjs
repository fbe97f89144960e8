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
// - A program a test spawns without a timeout, or with one past the test's limit, is listed at the end
//   (test/helpers/spawn-limit-runner.ts reports it into $FERRY_DEVCLOUD_DIR/spawn-limits.txt; not yet a failure here).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.env.FERRY_DEVCLOUD_DIR ?? join(root, '.devcloud');
const required = process.env.FERRY_REQUIRE_INTEGRATION === '1';
const REQUIRED_SERVICES = ['keystone', 'glance', 'placement', 'ceph-site-a', 'ceph-site-b'];

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

const reached = join(dir, 'reached');
const spawnLimits = join(dir, 'spawn-limits.txt');
rmSync(reached, { recursive: true, force: true });
rmSync(spawnLimits, { force: true });
mkdirSync(reached, { recursive: true });

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

const tests = run(join(root, 'node_modules/.bin/vitest'), ['run', '--project', 'integration', ...process.argv.slice(2)]);
let code = tests.status ?? 1;
if (systemdSelected && !systemdRequired && required) code = code || 1;

const seen = existsSync(reached) ? readdirSync(reached) : [];
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

if (existsSync(spawnLimits)) {
  const findings = [...new Set(readFileSync(spawnLimits, 'utf8').trim().split('\n'))];
  banner(`SPAWN LIMITS: ${findings.length} spawn(s) in the tests whose verdict may depend on the machine's speed `
    + `(test/helpers/spawn-limit-runner.ts):\n${findings.join('\n')}`);
}

if (startedHere && process.env.FERRY_KEEP_DEVCLOUD !== '1') {
  console.error('integration: stopping the dev cloud this run started');
  run('bash', [join(root, 'scripts/devcloud/down')]);
}
process.exit(code);
