import { describe, expect, it } from 'vitest';
import { COMMAND_MS, ctlTimeoutMs, UNIT_JOB_MS } from '../../integration/systemd/private-systemd.js';

// What a command inside the private systemd waits for decides its timeout, and so the limit of the test that runs it
// (spawn-limit-runner.ts): a unit's job may take systemd's 90 s, a query answers at once.
describe('ctlTimeoutMs', () => {
  it.each<[string[], number]>([
    [['systemctl', 'start', 'ferry-agent.service'], UNIT_JOB_MS],
    [['systemctl', 'stop', 'ferry-agent.service', 'ferry-agent.socket'], UNIT_JOB_MS],
    [['systemctl', 'restart', 'ferry-agent.service'], UNIT_JOB_MS],
    [['systemctl', 'reload', 'ferry-agent.service'], UNIT_JOB_MS],
    [['systemctl', 'enable', '--now', 'ferry-agent.socket'], UNIT_JOB_MS],
    [['systemd-run', '--unit=node-exporter', '/usr/bin/prometheus-node-exporter'], UNIT_JOB_MS],
    [['systemctl', 'show', 'ferry-agent.service', '-p', 'MainPID'], COMMAND_MS],
    [['systemctl', 'is-active', 'ferry-agent.service'], COMMAND_MS],
    [['systemctl', 'kill', '--signal=SIGKILL', 'ferry-agent.service'], COMMAND_MS],
    [['systemctl', 'daemon-reload'], COMMAND_MS],
    [['journalctl', '--no-pager', '-u', 'ferry-agent.service'], COMMAND_MS],
    [['cat', '/proc/1/status'], COMMAND_MS],
    [['systemctl'], COMMAND_MS],
  ])('%j → %i ms', (args, expected) => {
    expect(ctlTimeoutMs(args)).toBe(expected);
  });
});
