// Which integration files run side by side (scripts/integration-lanes.mjs, used by scripts/run-integration.mjs): the
// plan as a table, and a scan of the integration files that keeps a file disrupting what others use out of the lanes.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AFTER_LANES, ALONE, FIRST_CLOUD, GROUPS, OWN_CLOUD, planLanes, readLaneSettings, secondCloudPorts } from '../../../scripts/integration-lanes.mjs';

const I = 'test/integration';

describe('planLanes', () => {
  const cases = [
    { name: 'a disruptive file runs alone, after the lanes', files: [`${I}/faults/process-faults.test.ts`, `${I}/copy/ensure.test.ts`], shared: 2,
      lanes: [{ name: 'shared-1', files: [`${I}/copy/ensure.test.ts`] }], alone: [`${I}/faults/process-faults.test.ts`] },
    { name: 'a group keeps its files in one lane, in order', files: [`${I}/evict/usage.test.ts`, `${I}/evict/evict.test.ts`, `${I}/systemd/sync-unit.test.ts`], shared: 2,
      lanes: [{ name: 'site-c', files: [`${I}/evict/usage.test.ts`, `${I}/evict/evict.test.ts`, `${I}/systemd/sync-unit.test.ts`] }], alone: [] },
    { name: 'the rest: longest first onto the lightest lane', shared: 2,
      files: [`${I}/x/a.test.ts`, `${I}/agent/tenant-boot.test.ts`, `${I}/faults/rbd-two-hosts.test.ts`, `${I}/copy/ensure.test.ts`],
      lanes: [{ name: 'shared-1', files: [`${I}/faults/rbd-two-hosts.test.ts`] },
        { name: 'shared-2', files: [`${I}/agent/tenant-boot.test.ts`, `${I}/copy/ensure.test.ts`, `${I}/x/a.test.ts`] }], alone: [] },
    { name: 'one shared lane: everything else in it', files: [`${I}/copy/ensure.test.ts`, `${I}/deb/package.test.ts`], shared: 1,
      lanes: [{ name: 'deb', files: [`${I}/deb/package.test.ts`] }, { name: 'shared-1', files: [`${I}/copy/ensure.test.ts`] }], alone: [] },
  ];
  it.each(cases)('$name', ({ files, shared, lanes, alone }) => {
    expect(planLanes(files, shared)).toEqual({ lanes, second: [], own: [], after: [], alone });
  });

  const secondCases = [
    { name: 'a file that disrupts only its cloud runs on the second cloud, beside the lanes',
      files: [`${I}/faults/process-faults.test.ts`, `${I}/copy/ensure.test.ts`, `${I}/agent/nova-fallback.test.ts`],
      lanes: [{ name: 'shared-1', files: [`${I}/copy/ensure.test.ts`] }],
      second: [`${I}/faults/process-faults.test.ts`, `${I}/agent/nova-fallback.test.ts`], alone: [] },
    { name: 'a file that rebuilds dist/ runs alone, last; one that needs the .debs, once the lanes it names have ended (those planned)',
      files: [`${I}/install/artifact.test.ts`, `${I}/ansible/ansible-rollout.test.ts`, `${I}/devcloud/restart.test.ts`, `${I}/deb/package.test.ts`],
      lanes: [{ name: 'deb', files: [`${I}/deb/package.test.ts`] }], second: [`${I}/devcloud/restart.test.ts`],
      after: [{ file: `${I}/ansible/ansible-rollout.test.ts`, lanes: ['deb'] }], alone: [`${I}/install/artifact.test.ts`] },
  ];
  it.each(secondCases)('second cloud: $name', ({ files, lanes, second, after = [], alone }) => {
    expect(planLanes(files, 1, { clouds: 2 })).toEqual({ lanes, second, own: [], after, alone });
  });

  it('one cloud: the ansible test waits for every lane and for the files that disrupt the cloud, after them, alone', () => {
    const files = [`${I}/ansible/ansible-rollout.test.ts`, `${I}/devcloud/restart.test.ts`, `${I}/deb/package.test.ts`, `${I}/evict/usage.test.ts`];
    expect(planLanes(files, 1, { clouds: 1 })).toEqual({
      lanes: [{ name: 'deb', files: [`${I}/deb/package.test.ts`] }, { name: 'site-c', files: [`${I}/evict/usage.test.ts`] }],
      second: [], own: [], after: [], alone: [`${I}/ansible/ansible-rollout.test.ts`, `${I}/devcloud/restart.test.ts`],
    });
  });

  it('a file after lanes is a first-cloud file, and the lanes it waits for are groups', () => {
    for (const [file, lanes] of Object.entries(AFTER_LANES)) {
      expect(FIRST_CLOUD).toContain(file);
      for (const lane of lanes) expect(Object.keys(GROUPS)).toContain(lane);
    }
  });

  const soak = `${I}/soak/soak-smoke.test.ts`;
  const restart = `${I}/devcloud/restart.test.ts`;
  it.each([
    { clouds: 1, second: [], own: [], alone: [restart, soak] },
    { clouds: 2, second: [restart, soak], own: [], alone: [] },
    { clouds: 3, second: [restart], own: [soak], alone: [] },
  ])('$clouds cloud(s): the soak\'s smoke runs on a third cloud of its own when there is one', ({ clouds, second, own, alone }) => {
    expect(planLanes([restart, soak], 1, { clouds })).toEqual({ lanes: [], second, own, after: [], alone });
  });

  it('a file on a cloud of its own is one that disrupts its cloud', () => {
    for (const file of OWN_CLOUD) expect(ALONE).toContain(file);
  });

  it.each([1, 2, 3])('every file is planned exactly once (%s clouds)', (clouds) => {
    const files = integrationFiles();
    const plan = planLanes(files, 3, { clouds });
    expect([...plan.lanes.flatMap((lane) => lane.files), ...plan.second, ...plan.own, ...plan.after.map((each) => each.file), ...plan.alone].sort()).toEqual(files);
  });

  it('refuses a lane count that is not a whole number ≥ 1', () => {
    expect(() => planLanes([], 0)).toThrow('shared lanes must be a whole number ≥ 1 (got 0)');
  });
});

describe('readLaneSettings', () => {
  it.each([
    { env: {}, settings: { shared: 2, clouds: 3, secondPortBase: 17000 } },
    { env: { FERRY_INTEGRATION_LANES: '0', FERRY_INTEGRATION_CLOUDS: '1', FERRY_INTEGRATION_SECOND_CLOUD_PORT: '27000' },
      settings: { shared: 0, clouds: 1, secondPortBase: 27000 } },
  ])('$env', ({ env, settings }) => {
    expect(readLaneSettings(env)).toEqual(settings);
  });

  it.each([
    [{ FERRY_INTEGRATION_LANES: 'two' }, 'FERRY_INTEGRATION_LANES="two" is not a number of shared lanes from 0 (one file after another) to 16: unset it for the default 2'],
    [{ FERRY_INTEGRATION_LANES: '-1' }, 'FERRY_INTEGRATION_LANES="-1" is not'],
    [{ FERRY_INTEGRATION_CLOUDS: '4' }, 'FERRY_INTEGRATION_CLOUDS="4" is not 1, 2 or 3 dev clouds: unset it for the default 3'],
    [{ FERRY_INTEGRATION_CLOUDS: '0' }, 'FERRY_INTEGRATION_CLOUDS="0" is not'],
    [{ FERRY_INTEGRATION_SECOND_CLOUD_PORT: '32200' }, 'FERRY_INTEGRATION_SECOND_CLOUD_PORT="32200" is not a port from 1024 to 32168'],
    [{ FERRY_INTEGRATION_SECOND_CLOUD_PORT: '' }, 'FERRY_INTEGRATION_SECOND_CLOUD_PORT="" is not'],
  ])('%j → one problem naming the variable and the fix', (env, problem) => {
    expect(readLaneSettings(env).problem).toContain(problem);
  });

  it('the second cloud\'s ports: the base and the next 3, Ceph at +100 and +200 (scripts/devcloud/lib/common.sh wants them 100 apart)', () => {
    expect(secondCloudPorts(17000)).toEqual({ FERRY_DEVCLOUD_KEYSTONE_PORT: '17000', FERRY_DEVCLOUD_GLANCE_PORT: '17001', FERRY_DEVCLOUD_PLACEMENT_PORT: '17002',
      FERRY_DEVCLOUD_POSTGRES_PORT: '17003', FERRY_DEVCLOUD_CEPH_A_PORT: '17100', FERRY_DEVCLOUD_CEPH_B_PORT: '17200' });
  });
});

/** Every integration test file, relative to the repository. */
function integrationFiles(): string[] {
  return readdirSync(I, { recursive: true }).map(String).filter((path) => path.endsWith('.test.ts')).map((path) => join(I, path)).sort();
}

/**
 * What a file does that makes it disrupt every other file: a dev cloud service killed or restarted, Glance's policy or
 * Keystone's catalog changed, this checkout's dist/ rebuilt (build-artifact.sh: npm pack's prepack).
 */
const DISRUPTS = [/faults\.kill\(/, /faults\.up\(/, /'fault', \['kill'/, /'scripts\/devcloud\/fault', 'kill'/, /'scripts\/devcloud\/up'/, /clearGlanceRules\(/,
  /writeGlanceRules\(/, /'endpoint', 'create'/, /build-artifact\.sh/];
/**
 * FILE's code and that of every module of test/ it imports, at any depth (path → code without comment lines). src/ is
 * left out: vitest runs it from the sources, whatever its comments say of dist/.
 */
function withLocalImports(file: string, seen = new Map<string, string>()): Map<string, string> {
  if (seen.has(file) || !file.startsWith('test/')) return seen;
  const text = readFileSync(file, 'utf8');
  seen.set(file, text.split('\n').filter((line) => !/^\s*(\/\/|\/?\*)/.test(line)).join('\n'));
  for (const [, spec] of text.matchAll(/^import (?!type )[^'"]*'(\.{1,2}\/[^']+)'/gm)) {
    withLocalImports(join(dirname(file), (spec ?? '').replace(/\.js$/, '.ts')), seen);
  }
  return seen;
}

/** What runs this checkout's build: bin/ferry (or the helpers that spawn it), or dist/ itself. */
const RUNS_DIST = [/'bin', 'ferry'|bin\/ferry|dist\//, /devcloud-faults|ferry-cli/];
/** What a file shares with the site-c lane: store site-c (pool images-c), or the private systemd of scripts/systemd/up. */
const SITE_C = [/site-c|images-c|SITE_C/, /systemdUp\(/];

describe('the integration files and their lanes', () => {
  const inGroup = (file: string, prefixes: readonly string[]): boolean => prefixes.some((prefix) => file === prefix || (prefix.endsWith('/') && file.startsWith(prefix)));
  const files = integrationFiles().map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it('a file that kills or restarts a dev cloud service, changes Glance\'s policy or Keystone\'s catalog, or rebuilds dist/, runs alone', () => {
    const disrupting = files.filter(({ text }) => DISRUPTS.some((pattern) => pattern.test(text))).map(({ file }) => file);
    expect(disrupting.length).toBeGreaterThan(0);
    expect(disrupting.filter((file) => !ALONE.includes(file))).toEqual([]);
  });

  it('a file that rebuilds dist/ or installs the first cloud\'s .debs (built-debs) never moves to the second cloud', () => {
    const firstOnly = files.filter(({ text }) => /build-artifact\.sh|built-debs/.test(text)).map(({ file }) => file).filter((file) => ALONE.includes(file));
    expect(firstOnly.length).toBeGreaterThan(0);
    expect(firstOnly.filter((file) => !FIRST_CLOUD.includes(file))).toEqual([]);
    expect(FIRST_CLOUD.filter((file) => !ALONE.includes(file))).toEqual([]);
  });

  it('a file after lanes runs nothing from this checkout\'s dist/ (it may run beside install/artifact, which rebuilds it)', () => {
    const after = files.filter(({ file }) => file in AFTER_LANES).map(({ file }) => file);
    expect(after.length).toBeGreaterThan(0);
    for (const file of after) {
      const texts = withLocalImports(file);
      expect(texts.size).toBeGreaterThan(1);
      expect([...texts].filter(([, text]) => RUNS_DIST.some((pattern) => pattern.test(text))).map(([path]) => path), file).toEqual([]);
    }
  });

  it('a file that uses store site-c or the private systemd runs in the site-c lane (or alone)', () => {
    const sharing = files.filter(({ text }) => SITE_C.some((pattern) => pattern.test(text))).map(({ file }) => file);
    expect(sharing.length).toBeGreaterThan(0);
    expect(sharing.filter((file) => !ALONE.includes(file) && !inGroup(file, GROUPS['site-c']))).toEqual([]);
  });
});
