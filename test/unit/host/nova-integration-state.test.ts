import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeNovaCompute, judgeNovaIntegration, readNovaIntegration } from '../../../src/host/nova-integration-state.js';

// The Debian package's dpkg trigger records whether nova still carries ferry's patch (debian/ferry-nova-integration);
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

  it('nova-compute started before the patch was applied again: failing, naming the PID, both times and the restart', () => {
    const stale = judgeNovaCompute(JSON.stringify({ running: true, stale: true, pid: 4242, started_at: '2026-11-27T04:00:00.000Z',
      code_changed_at: '2026-11-27T04:10:00.000Z', at: '2026-11-27T04:10:01.000Z' }));
    const check = judgeNovaIntegration(JSON.stringify({ state: 'applied' }), PATH, stale);
    expect(check).toMatchObject({ ok: false, state: 'applied', code: 'FERRY_NOVA_INTEGRATION', nova_compute: { stale: true, pid: 4242 } });
    expect(check?.ok === false ? check.message : '').toMatch(/PID 4242\) started at 2026-11-27T04:00:00.000Z, before nova's files changed at 2026-11-27T04:10:00.000Z.*systemctl restart nova-compute/s);
    // restarted since: passing, and still telling which process
    const current = judgeNovaCompute(JSON.stringify({ running: true, stale: false, pid: 4343, started_at: '2026-11-27T04:11:00.000Z',
      code_changed_at: '2026-11-27T04:10:00.000Z' }));
    expect(judgeNovaIntegration(JSON.stringify({ state: 'applied' }), PATH, current)).toMatchObject({ ok: true, nova_compute: { stale: false, pid: 4343 } });
  });

  it('nova-compute not running, or no record: no nova_compute; a stale process under a patch that is off is not ferry\'s concern', () => {
    expect(judgeNovaCompute(JSON.stringify({ running: false, stale: false }))).toBeUndefined();
    expect(judgeNovaCompute(undefined)).toBeUndefined();
    expect(judgeNovaCompute('garbage')).toBeUndefined();
    expect(judgeNovaIntegration(JSON.stringify({ state: 'applied' }), PATH, undefined)).toEqual({ ok: true, state: 'applied' });
    expect(judgeNovaIntegration(JSON.stringify({ state: 'off' }), PATH, { stale: true, pid: 1 })).toMatchObject({ ok: true, state: 'off' });
  });

  it('reads nova-compute\'s record beside the state file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-nova-state-'));
    writeFileSync(join(dir, 'nova-integration.json'), JSON.stringify({ state: 'applied' }));
    writeFileSync(join(dir, 'nova-compute.json'), JSON.stringify({ running: true, stale: true, pid: 7 }));
    expect(await readNovaIntegration(join(dir, 'nova-integration.json'))).toMatchObject({ ok: false, nova_compute: { stale: true, pid: 7 } });
  });
});
