import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeNovaIntegration, readNovaIntegration } from '../../../src/host/nova-integration-state.js';

// The Debian package's dpkg trigger records whether nova still carries ferry's patch (packaging/debian/ferry-nova-integration);
// the agent's /healthz reports it. These are the texts that script writes.
const PATH = '/var/lib/ferry/nova-integration.json';

describe('the nova integration state, as /healthz reports it', () => {
  it.each([
    { state: 'applied', ok: true },
    { state: 'off', ok: true },
    { state: 'nova-absent', ok: true },
    { state: 'failed', ok: false },
  ])('$state → ok: $ok', ({ state, ok }) => {
    const text = JSON.stringify({ state, detail: 'ferry-nova-patch check: exit 5', nova_package: '2:26.2.2-1~deb12u3', at: '2026-11-25T04:50:00Z' });
    expect(judgeNovaIntegration(text, PATH)).toMatchObject({ ok, state });
  });

  it('failed names the nova package, that nova runs stock, and the fix', () => {
    const check = judgeNovaIntegration(JSON.stringify({ state: 'failed', nova_package: '2:26.2.2-1~deb12u3' }), PATH);
    expect(check).toMatchObject({ ok: false, code: 'FERRY_NOVA_INTEGRATION' });
    expect(check?.ok === false ? check.message : '').toMatch(/2:26\.2\.2-1~deb12u3.*stock copy loop.*nova-integration sync/s);
  });

  it('no file → no check; a file that is not the state file → a failing check naming it', () => {
    expect(judgeNovaIntegration(undefined, PATH)).toBeUndefined();
    expect(judgeNovaIntegration('{"state": "maybe"}', PATH)).toMatchObject({ ok: false, state: 'unreadable', message: expect.stringContaining(PATH) as unknown });
    expect(judgeNovaIntegration('not json', PATH)).toMatchObject({ ok: false, state: 'unreadable' });
  });

  it('reads the file the package writes, and says nothing where there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-nova-state-'));
    const file = join(dir, 'nova-integration.json');
    expect(await readNovaIntegration(file)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ state: 'failed', detail: 'x' }));
    expect(await readNovaIntegration(file)).toMatchObject({ ok: false, state: 'failed' });
  });
});
