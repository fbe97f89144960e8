// scripts/fresh-root/ (a fresh Debian 12 root for one command; docs/devcloud.md#a-fresh-machine-scriptsfresh-root):
// the proxy's rule — the root reaches Debian's archive and the npm registry and nothing else —, the proxy refusing on
// its Unix socket as the root meets it, and run's argument checks (its dry part: making a root takes minutes and is
// run by hand).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without types
import * as proxy from '../../../scripts/fresh-root/proxy.mjs';

const { refusal, connectTarget } = proxy as {
  refusal: (host: string, port: number) => string | undefined;
  connectTarget: (authority: string) => { host: string; port: number };
};
const root = join(import.meta.dirname, '..', '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'ferry-fresh-root-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** run's argument checks answer before anything is made: bash's start and a git rev-parse. */
const RUN_MS = 15_000;
/** The proxy's start on a Unix socket and one refused request. */
const PROXY_MS = 20_000;

describe('fresh-root proxy: where the root may go', () => {
  it.each([
    ['deb.debian.org', 80, true],
    ['DEB.debian.org.', 80, true],
    ['security.debian.org', 80, true],
    ['registry.npmjs.org', 443, true],
    ['deb.debian.org', 443, false],
    ['registry.npmjs.org', 80, false],
    ['github.com', 443, false],
    ['deb.debian.org.evil.example', 80, false],
    ['127.0.0.1', 5000, false],
    ['registry.npmjs.org', Number.NaN, false],
  ])('%s:%s → %s', (host, port, allowed) => {
    const reason = refusal(host, port);
    expect(reason === undefined).toBe(allowed);
    if (!allowed) expect(reason).toMatch(/not a (package registry|port)/);
  });

  it.each([
    ['registry.npmjs.org:443', 'registry.npmjs.org', 443],
    ['[::1]:80', '::1', 80],
    ['no-port', 'no-port', Number.NaN],
  ])('CONNECT %s', (authority, host, port) => {
    expect(connectTarget(authority)).toEqual({ host, port });
  });
});

describe('fresh-root proxy on its socket', () => {
  it('refuses what is not a registry with 403, naming it, and logs it', { timeout: PROXY_MS }, async () => {
    const socket = join(scratch, 'proxy.sock');
    const log = join(scratch, 'refused.log');
    const server = spawn(process.execPath, [join(root, 'scripts/fresh-root/proxy.mjs'), 'serve', socket, log], { stdio: 'ignore', timeout: PROXY_MS });
    try {
      for (let i = 0; i < 100 && !existsSync(socket); i += 1) await new Promise((done) => setTimeout(done, 100));
      // Raw bytes on the socket (the unit project's nock intercepts node:http), as apt writes them to a proxy.
      const answer = await new Promise<string>((resolve, reject) => {
        const client = connect(socket, () => client.end('GET http://example.org/x HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n'));
        let text = '';
        client.on('data', (chunk: Buffer) => { text += chunk.toString(); });
        client.on('end', () => resolve(text));
        client.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 403 /);
      expect(answer).toContain('example.org:80 is not a package registry');
      expect(readFileSync(log, 'utf8')).toMatch(/refused GET http:\/\/example\.org\/x: example\.org:80 is not/);
    } finally {
      server.kill();
    }
  });
});

describe('fresh-root run: bad arguments', () => {
  const run = (args: readonly string[]) => spawnSync('bash', [join(root, 'scripts/fresh-root/run'), ...args], { encoding: 'utf8', timeout: RUN_MS });

  it.each([
    [[], /no COMMIT/],
    [['HEAD'], /no '--' after COMMIT 'HEAD'/],
    [['HEAD', '--'], /no COMMAND after '--'/],
    [['--bogus'], /unknown option '--bogus'/],
    [['no-such-commit-here', '--', 'true'], /'no-such-commit-here' is not a commit/],
  ])('%j → exit 2 naming it', (args, message) => {
    const out = run(args);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it('--help shows how to call it', () => {
    const out = run(['--help']);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('scripts/fresh-root/run HEAD -- CI=true bash .ci/run');
  });
});
