import { describe, expect, it } from 'vitest';
import { upgradeProblems, upstreamVersion, type UpgradeSeen } from '../../../scripts/soak/package-upgrade.js';

// What the soak saw of the packaged node after `apt-get install ./newer.deb` under load: all as it must be.
const good: UpgradeSeen = {
  expected: '0.1.0+rebuild2', aptCode: 0, installed: '0.1.0+rebuild2', client: '0.1.0+rebuild2', agentVersion: '0.1.0',
  pidBefore: 101, pidAfter: 202, socketBefore: '77 123456', socketAfter: '77 123456',
};

describe('the packaged node after its upgrade (scripts/soak/package-upgrade.ts)', () => {
  it.each([
    ['everything as it must be', {}, []],
    ['apt-get failed', { aptCode: 100 }, ['apt-get install of the newer .debs exited 100']],
    ['dpkg still has the older ferry', { installed: '0.1.0' }, ['ferry is 0.1.0 after the upgrade, not 0.1.0+rebuild2']],
    ['ferry not installed at all', { installed: undefined }, ['ferry is not installed after the upgrade, not 0.1.0+rebuild2']],
    ['nova\'s client left behind', { client: '0.1.0' }, ['python3-ferry-agent is 0.1.0 after the upgrade, not 0.1.0+rebuild2']],
    ['the agent answers another version', { agentVersion: '0.0.9' }, ['the agent answers version 0.0.9 (ferry_agent_build_info), not 0.1.0 (the newer package\'s)']],
    ['the agent does not answer', { agentVersion: undefined }, ['the agent did not answer /metrics after the upgrade']],
    ['the agent not restarted', { pidAfter: 101 }, ['the agent was not restarted onto the newer files (MainPID 101 before and after)']],
    ['no agent running', { pidAfter: 0 }, ['no agent runs after the upgrade (MainPID 0)']],
    ['the socket recreated', { socketAfter: '78 999' }, ['the socket was recreated by the upgrade (inode and start 77 123456 before, 78 999 after): nova\'s connections meanwhile could be refused']],
    ['two at once', { installed: '0.1.0', pidAfter: 101 }, ['ferry is 0.1.0 after the upgrade, not 0.1.0+rebuild2',
      'the agent was not restarted onto the newer files (MainPID 101 before and after)']],
  ] as [string, Partial<UpgradeSeen>, string[]][])('%s', (_name, change, problems) => {
    expect(upgradeProblems({ ...good, ...change })).toEqual(problems);
  });

  it('an agent that was not running before (socket-activated, idle) needs no restart: the next request starts the newer', () => {
    expect(upgradeProblems({ ...good, pidBefore: 0, pidAfter: 303 })).toEqual([]);
  });

  it.each([
    ['0.1.0+rebuild2', '0.1.0'], ['0.1.0', '0.1.0'], ['1:2.3.4-1', '2.3.4'], ['0.2.0~rc1', '0.2.0'],
  ])('the upstream version of %s is %s (what the agent calls itself)', (debian, upstream) => {
    expect(upstreamVersion(debian)).toBe(upstream);
  });
});
