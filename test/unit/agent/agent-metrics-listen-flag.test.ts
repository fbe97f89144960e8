import { describe, expect, it } from 'vitest';
import { runFerry } from '../../helpers/run-ferry.js';

// The flag is read and checked before the agent connects to anything or binds its socket: these runs need no cloud.
describe('ferry agent --metrics-listen', () => {
  const cases: readonly { title: string; args: string[]; env: Record<string, string>; message: string }[] = [
    { title: 'an IPv6 address without brackets', args: ['--metrics-listen', '::1:9464'], env: {},
      message: '--metrics-listen must be HOST:PORT, got "::1:9464": an IPv6 address goes in brackets' },
    { title: 'no port', args: ['--metrics-listen', '127.0.0.1'], env: {}, message: '--metrics-listen must be HOST:PORT, got "127.0.0.1": no port' },
    { title: 'no host', args: ['--metrics-listen', ':9464'], env: {},
      message: '--metrics-listen must be HOST:PORT, got ":9464": no host (name the interface; 0.0.0.0 or [::] for all)' },
    { title: 'a bad value in the environment', args: [], env: { FERRY_AGENT_METRICS_LISTEN: '127.0.0.1:99999' },
      message: 'FERRY_AGENT_METRICS_LISTEN must be HOST:PORT, got "127.0.0.1:99999": the port must be a number from 0 to 65535, got \'99999\'' },
  ];
  it.each(cases)('ferry agent: $title → exit 2 FERRY_INVALID_OPTION with the fix', async ({ args, env, message }) => {
    const run = await runFerry(['agent', '--socket', '/nonexistent/ferry-test/agent.sock', ...args, '--json'], { env });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({ error: { code: 'FERRY_INVALID_OPTION', message,
      hint: 'Pass e.g. 127.0.0.1:9464, 0.0.0.0:9464 (every IPv4 interface), [::1]:9464 or [::]:9464.',
      details: { option: args[0] ?? 'FERRY_AGENT_METRICS_LISTEN' } } });
    expect(run.stderr).not.toContain('    at ');
  });

  it('ferry agent: the flag wins over a bad FERRY_AGENT_METRICS_LISTEN (which is then not read)', async () => {
    const run = await runFerry(['agent', '--socket', '/nonexistent/ferry-test/agent.sock', '--metrics-listen', 'bad', '--json'],
      { env: { FERRY_AGENT_METRICS_LISTEN: 'also bad' } });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { message: expect.stringMatching(/^--metrics-listen must be HOST:PORT, got "bad"/) as unknown } });
  });

  it('ferry agent --help lists --metrics-listen', async () => {
    const run = await runFerry(['agent', '--help']);
    expect(run.stdout).toMatch(/--metrics-listen HOST:PORT\s+serve GET \/metrics and GET \/healthz over TCP here/);
  });
});
