// nova's client of the ferry agent (integrations/nova/ferry_agent.py): its own Python tests
// (test/unit/nova/python/test_ferry_agent.py, unittest against a stand-in agent on a Unix socket) run here, in
// `npm test`, with Debian's python3 as nova-compute runs it: the user's token goes as X-Auth-Token on POST /v1/ensure
// (the body unchanged), none without one, and it shows in no error's text.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const PYTHON_TESTS = join('test', 'unit', 'nova', 'python');
// One test waits out the client's answer margin (0.2 s there); the whole file runs in ~5 s idle.
const RUN_TIMEOUT_MS = 120_000;

describe('ferry_agent.py (nova\'s client) under its own Python tests', () => {
  it('test_ferry_agent.py passes: X-Auth-Token sent when given, never shown, refused unsent when not a header value; without a timeout it waits as long as the agent may', () => {
    const run = spawnSync('/usr/bin/python3', ['-I', '-B', '-m', 'unittest', 'discover', '-v', '-s', PYTHON_TESTS, '-t', PYTHON_TESTS, '-p', 'test_ferry_agent.py'],
      { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
    expect(run.status, run.stderr).toBe(0);
    expect(Number(/^Ran (\d+) tests? in /m.exec(run.stderr)?.[1] ?? 0)).toBe(13);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('OK');
  }, RUN_TIMEOUT_MS);
});
