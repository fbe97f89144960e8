import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/command-registry.js';
import { CONFIG_DEFAULTS } from '../../../src/config/config-defaults.js';
import { runFerry } from '../../helpers/run-ferry.js';

/** `ferry CMD --help` cut into its headed sections: heading → the option names listed under it. */
function helpSections(text: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (/^\S.*:$/.test(line)) sections.set(line, current = []);
    else if (/^\S/.test(line) || line === '') current = line === '' ? current : undefined;
    const option = /^ {2}--([a-z-]+)/.exec(line)?.[1];
    if (option !== undefined) current?.push(option);
  }
  return sections;
}

const helpOf = async (name: string): Promise<string> => {
  const run = await runFerry([...name.split(' '), '--help']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
};

const CLOUD_FLAGS = ['os-cloud', 'os-auth-url', 'os-username', 'os-password', 'os-token', 'os-region-name', 'os-interface', 'os-cacert',
  'insecure', 'glance-endpoint', 'placement-endpoint', 'request-timeout', 'connect-timeout', 'retries'];
/** The commands that talk to no cloud: neither Keystone, Glance nor Placement (doctor and agent status ask the agent's socket). */
const OFFLINE = ['traits', 'completion', 'doctor', 'agent status'];

describe('ferry CMD --help', () => {
  it.each(OFFLINE)('ferry %s --help lists no cloud option, and the command refuses one naming why', async (name) => {
    const sections = helpSections(await helpOf(name));
    const listed = [...sections.values()].flat();
    expect(listed.filter((flag) => CLOUD_FLAGS.includes(flag))).toEqual([]);
    expect(listed).toEqual(expect.arrayContaining(['json', 'format', 'log-level']));
    const run = await runFerry([...name.split(' '), '--os-cloud', 'site-b']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`ferry ${name} talks to no cloud: --os-cloud does not apply`);
  });

  it.each(Object.keys(COMMANDS).filter((name) => !OFFLINE.includes(name)))('ferry %s --help: the cloud options under one heading, each option once', async (name) => {
    const sections = helpSections(await helpOf(name));
    const cloud = [...sections].filter(([, flags]) => flags.some((flag) => CLOUD_FLAGS.includes(flag)));
    expect(cloud.map(([heading]) => heading)).toEqual(['Cloud options (each also an environment variable or a clouds.yaml key: docs/configuration.md):']);
    expect(cloud[0]?.[1]).toEqual(expect.arrayContaining(CLOUD_FLAGS));
    // Only cloud options under that heading: the command's own and the output options come apart.
    expect(cloud[0]?.[1].filter((flag) => !/^(os-|insecure$|glance-endpoint$|placement-endpoint$|request-timeout$|connect-timeout$|retries$)/.test(flag))).toEqual([]);
    const listed = [...sections.values()].flat();
    expect(listed.filter((flag, index) => listed.indexOf(flag) !== index)).toEqual([]);
  });

  it('--format names every format there is, csv included', async () => {
    const help = await helpOf('stores');
    expect(help).toMatch(/--format FORMAT +-f: json, yaml .*value .*csv .*table/);
  });

  it.each([
    ['timeout', `default ${CONFIG_DEFAULTS.copy.timeoutMs / 60_000}m`],
    ['poll-interval', `default ${CONFIG_DEFAULTS.copy.pollIntervalMs / 1000}s`],
    ['stale-lock-after', `default ${CONFIG_DEFAULTS.copy.staleLockAfterMs / 60_000}m`],
    ['request-timeout', `default ${CONFIG_DEFAULTS.http.requestTimeoutMs / 1000}s`],
    ['retries', `default ${CONFIG_DEFAULTS.http.retries}`],
  ])('ferry ensure --help shows --%s with its %s', async (flag, shown) => {
    const line = (await helpOf('ensure')).split('\n').find((l) => l.startsWith(`  --${flag} `));
    expect(line).toContain(`(${shown}`);
  });

  it('--timeout says what 0 means: no timeout, capped at 24h, as nova.conf\'s 0', async () => {
    const line = (await helpOf('ensure')).split('\n').find((l) => l.startsWith('  --timeout '));
    expect(line).toContain('0 = no timeout, capped at 24h');
  });
});
