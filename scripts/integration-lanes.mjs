// Which integration test files may run at the same time (scripts/run-integration.mjs), as data and one pure decision.
//
// Every file talks to the one dev cloud. Most only make their own images, agents, sockets and proxies: those run in
// lanes side by side, each lane one file after another. Some share more than the cloud:
// - ALONE: a file that disrupts what every other file uses — kills or restarts a dev cloud service (glance-api, an
//   OSD, a monitor: scripts/devcloud/fault kill, faults.kill, clearGlanceRules), changes Glance's policy for everyone
//   (writeGlanceRules) or Keystone's catalog (an endpoint), or rebuilds this checkout's dist/ (build-artifact.sh).
//   They run one at a time. With a second dev cloud (run-integration's default) those that disrupt only their cloud run
//   on it, beside the lanes, and the soak's smoke (OWN_CLOUD) on a third; the rest (FIRST_CLOUD) run after everything
//   else, on the first cloud, with nothing beside.
// - GROUPS: files that share one thing among themselves run in one lane of their own, one after another: store site-c
//   (pool images-c, "which no other test fills": evict budgets and usage read the whole store) and the private systemd
//   of scripts/systemd/up (one per state directory); the Debian package's clean system (its own systemd, builds).
// test/unit/scripts/integration-lanes.test.ts checks that every file doing one of these things is listed here.

/** Files that disrupt shared services: run alone, after the lanes. */
export const ALONE = [
  'test/integration/devcloud/restart.test.ts',
  'test/integration/faults/process-faults.test.ts',
  'test/integration/faults/rbd-source-lost.test.ts',
  'test/integration/stores/stores-answers.test.ts',
  'test/integration/agent/nova-fallback.test.ts',
  'test/integration/security/least-privilege.test.ts',
  'test/integration/config/nova-conf.test.ts',
  // scripts/build-artifact.sh runs npm pack in this checkout, whose prepack rebuilds dist/: every lane's bin/ferry
  // (seen: rbd-transfer-faults beside it failed on "no build in dist" and a dist chunk gone).
  'test/integration/install/artifact.test.ts',
  // Places an image in store site-c (the site-c lane's evict and usage read the whole store) and boots the clean system
  // of scripts/systemd/up-clean (the deb lane's): after both lanes, with the .debs the deb lane built.
  'test/integration/ansible/ansible-rollout.test.ts',
  // Kills glance-api, stops an OSD, restarts a monitor on its schedule, for minutes (OWN_CLOUD).
  'test/integration/soak/soak-smoke.test.ts',
  // Kills site-b's OSD and starts it again (OWN_CLOUD).
  'test/integration/agent/pool-check.test.ts',
];

/**
 * Alone files that run on a third dev cloud (FERRY_INTEGRATION_CLOUDS=3, the default) beside the lanes and the second
 * cloud, one after another: the soak's smoke disrupts its cloud for its whole run (~5 min: set-up, 3 minutes of
 * faults, the end's checks), as long as half the second cloud's files together; queued behind them it would add its
 * whole time to the suite's. Then two more, so that the two clouds' lanes end together (CI rehearsal of 2026-11-29 at
 * load 15: the second cloud's seven files 1187 s, the third's two 469 s, the lanes 1400 s).
 */
export const OWN_CLOUD = [
  'test/integration/soak/soak-smoke.test.ts',
  'test/integration/agent/pool-check.test.ts',
  'test/integration/faults/process-faults.test.ts',
];

/**
 * Alone files that cannot move to a second dev cloud: they disrupt more than their cloud, or need what the first
 * cloud's lanes made. They run last, one at a time, with nothing else running.
 */
export const FIRST_CLOUD = [
  // Rebuilds this checkout's dist/, which every lane on either cloud runs.
  'test/integration/install/artifact.test.ts',
  // Installs the .debs the deb lane built under the first cloud's directory (test/helpers/built-debs.ts), and places an
  // image in its store site-c.
  'test/integration/ansible/ansible-rollout.test.ts',
];

/**
 * FIRST_CLOUD files that wait only for the lanes named, not for everything: with a second dev cloud (where nothing that
 * disrupts the first is left to run after the lanes), each starts as soon as those lanes have ended, beside the rest,
 * and may still run beside the `alone` files: it runs nothing from this checkout's dist/ (which install/artifact
 * rebuilds). The ansible test installs the deb lane's .debs on the clean system that lane used and places an image in
 * store site-c, which the site-c lane reads whole; the shared lanes stay out of site-c (GROUPS). Waiting for every lane
 * cost its 91 s after them (CI rehearsal 8, 2026-11-29); waiting for it, the artifact's 41 s after it (rehearsal 9).
 */
export const AFTER_LANES = {
  'test/integration/ansible/ansible-rollout.test.ts': ['deb', 'site-c'],
};

/** Lanes of their own: files that share something among themselves (prefixes of the files' paths). */
export const GROUPS = {
  // The clean system of scripts/systemd/up-clean, one per state directory; deb/ first builds the .debs kolla/ installs.
  deb: ['test/integration/deb/', 'test/integration/kolla/'],
  'site-c': [
    'test/integration/evict/',
    'test/integration/systemd/',
    'test/integration/monitoring/agent-down.test.ts',
    'test/integration/copy/rbd-sites.test.ts',
    'test/integration/copy/rbd-transfer.test.ts',
    'test/integration/prewarm/prewarm.test.ts',
    'test/integration/devcloud/services.test.ts',
  ],
};

/**
 * Seconds each file took in a serial run on 2 cores (/work/ci-rehearsal.log, 2026-11-29), to balance the shared
 * lanes; a file not listed counts DEFAULT_SECONDS.
 */
export const SECONDS = {
  'test/integration/agent/tenant-boot.test.ts': 87,
  'test/integration/faults/rbd-two-hosts.test.ts': 118,
  'test/integration/faults/rbd-transfer-faults.test.ts': 80,
  'test/integration/faults/proxy-faults.test.ts': 68,
  'test/integration/faults/glance-state-faults.test.ts': 40,
  'test/integration/agent/agent.test.ts': 29,
  'test/integration/copy/ensure.test.ts': 26,
  'test/integration/faults/signals-faults.test.ts': 26,
  'test/integration/faults/rbd-forged.test.ts': 25,
  'test/integration/faults/two-prewarms.test.ts': 25,
  'test/integration/agent/nova-unit-tests.test.ts': 17,
  'test/integration/monitoring/agent-down.test.ts': 13,
  'test/integration/faults/rbd-kill-faults.test.ts': 7,
};
export const DEFAULT_SECONDS = 5;

const inGroup = (file, prefixes) => prefixes.some((prefix) => file === prefix || (prefix.endsWith('/') && file.startsWith(prefix)));

/**
 * The plan for these files (paths relative to the repository) on `clouds` dev clouds: `lanes` run at the same time on
 * the first dev cloud, each its files one after another; `second` runs one file at a time on a second dev cloud beside
 * them (empty with one cloud); `own` runs on a third cloud beside those (empty with fewer than three: its files join
 * `second`); `after` (with two clouds or more) each `file` once the lanes it names (AFTER_LANES, those planned) have
 * ended; `alone` runs after all, one file at a time. The files no group claims are spread over `shared` lanes,
 * longest first onto the lane with the least so far. Lanes keep the files' given order within a group.
 */
export function planLanes(files, shared, { clouds = 1 } = {}) {
  if (!Number.isInteger(shared) || shared < 1) throw new Error(`planLanes: shared lanes must be a whole number ≥ 1 (got ${shared})`);
  const disrupting = files.filter((file) => ALONE.includes(file));
  const own = clouds >= 3 ? disrupting.filter((file) => OWN_CLOUD.includes(file)) : [];
  const second = clouds >= 2 ? disrupting.filter((file) => !FIRST_CLOUD.includes(file) && !own.includes(file)) : [];
  const alone = disrupting.filter((file) => !second.includes(file) && !own.includes(file));
  const lanes = [];
  const claimed = new Set(disrupting);
  for (const [name, prefixes] of Object.entries(GROUPS)) {
    const mine = files.filter((file) => !claimed.has(file) && inGroup(file, prefixes));
    for (const file of mine) claimed.add(file);
    if (mine.length > 0) lanes.push({ name, files: mine });
  }
  const rest = files.filter((file) => !claimed.has(file));
  const seconds = (file) => SECONDS[file] ?? DEFAULT_SECONDS;
  const sharedLanes = Array.from({ length: shared }, (_, n) => ({ name: `shared-${n + 1}`, files: [], seconds: 0 }));
  for (const file of [...rest].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b))) {
    const lightest = sharedLanes.reduce((best, lane) => (lane.seconds < best.seconds ? lane : best));
    lightest.files.push(file);
    lightest.seconds += seconds(file);
  }
  for (const lane of sharedLanes) if (lane.files.length > 0) lanes.push({ name: lane.name, files: lane.files });
  const planned = new Set(lanes.map((lane) => lane.name));
  const after = clouds >= 2
    ? alone.filter((file) => file in AFTER_LANES).map((file) => ({ file, lanes: AFTER_LANES[file].filter((name) => planned.has(name)) }))
    : [];
  return { lanes, second, own, after, alone: alone.filter((file) => !after.some((each) => each.file === file)) };
}

/** An extra dev cloud's ports (scripts/devcloud/lib/common.sh's names) from a base: clear of the first cloud's defaults. */
export function secondCloudPorts(base) {
  return {
    FERRY_DEVCLOUD_KEYSTONE_PORT: String(base), FERRY_DEVCLOUD_GLANCE_PORT: String(base + 1),
    FERRY_DEVCLOUD_PLACEMENT_PORT: String(base + 2), FERRY_DEVCLOUD_POSTGRES_PORT: String(base + 3),
    FERRY_DEVCLOUD_CEPH_A_PORT: String(base + 100), FERRY_DEVCLOUD_CEPH_B_PORT: String(base + 200),
  };
}

/**
 * The lane settings from the environment, or the one problem with them: FERRY_INTEGRATION_LANES (shared lanes, 0 =
 * every file one after another, default 2), FERRY_INTEGRATION_CLOUDS (1; 2 = the disrupting files on a second dev
 * cloud beside the lanes; 3, the default = and OWN_CLOUD's on a third), FERRY_INTEGRATION_SECOND_CLOUD_PORT (its first
 * port, default 17000; it uses that and the next 19 (the soak's metrics are at +10..+19), +100..+299 for its two Ceph
 * clusters); the third cloud's base is the second's + 300.
 */
export function readLaneSettings(env) {
  const whole = (name, fallback, ok, what) => {
    const text = env[name] ?? String(fallback);
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    return ok(value) ? { value } : { problem: `${name}=${JSON.stringify(text)} is not ${what}: unset it for the default ${fallback}` };
  };
  const lanes = whole('FERRY_INTEGRATION_LANES', 2, (n) => n >= 0 && n <= 16, 'a number of shared lanes from 0 (one file after another) to 16');
  const clouds = whole('FERRY_INTEGRATION_CLOUDS', 3, (n) => n >= 1 && n <= 3, '1, 2 or 3 dev clouds');
  const port = whole('FERRY_INTEGRATION_SECOND_CLOUD_PORT', 17000, (n) => n >= 1024 && n + 599 < 32768, 'a port from 1024 to 32168 (it and up to +599 are used by the second and third clouds, below the ephemeral range)');
  const problem = [lanes, clouds, port].find((setting) => setting.problem)?.problem;
  return problem ? { problem } : { shared: lanes.value, clouds: clouds.value, secondPortBase: port.value };
}
