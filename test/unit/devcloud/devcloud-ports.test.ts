import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/devcloud/lib/common.sh decides the dev cloud's ports; sourcing it starts nothing. A port inside Linux's
// ephemeral range may be held by any outgoing connection when a service binds it (seen: a Ceph mon could not bind
// 36790 on a fresh start), so the defaults must lie below it.

const root = join(import.meta.dirname, '..', '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'ferry-devcloud-ports-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PORT_NAMES = ['KEYSTONE_PORT', 'GLANCE_PORT', 'PLACEMENT_PORT', 'POSTGRES_PORT', 'CEPH_A_PORT', 'CEPH_B_PORT'] as const;
type Ports = Record<(typeof PORT_NAMES)[number], number>;

/** Sourcing common.sh once; a test's limit counts its calls. */
const SOURCE_MS = 15_000;

function portsOf(stateDir: string, env: Record<string, string> = {}): Ports {
  const script = `source scripts/devcloud/lib/common.sh; ${PORT_NAMES.map((name) => `echo ${name}=$${name}`).join('; ')}`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('FERRY_DEVCLOUD_')));
  const out = spawnSync('bash', ['-c', script], { cwd: root, encoding: 'utf8', timeout: SOURCE_MS, env: { ...clean, FERRY_DEVCLOUD_DIR: stateDir, ...env } });
  expect(out.status, out.stderr).toBe(0);
  return Object.fromEntries(out.stdout.trim().split('\n').map((line) => {
    const [name, value] = line.split('=');
    return [name, Number(value)];
  })) as Ports;
}

// Linux's default ip_local_port_range; the test does not read this machine's, so it holds wherever it runs.
const EPHEMERAL_LOW = 32768;

describe('dev cloud ports', () => {
  it('a new dev cloud listens below the ephemeral range only (each Ceph cluster uses port … port+99)', () => {
    const ports = portsOf(join(scratch, 'new'));
    for (const name of ['KEYSTONE_PORT', 'GLANCE_PORT', 'PLACEMENT_PORT', 'POSTGRES_PORT'] as const) expect(ports[name]).toBeLessThan(EPHEMERAL_LOW);
    for (const name of ['CEPH_A_PORT', 'CEPH_B_PORT'] as const) expect(ports[name] + 99).toBeLessThan(EPHEMERAL_LOW);
  }, SOURCE_MS);

  it('a state dir keeps the ports it was created with (the old Ceph defaults too); FERRY_DEVCLOUD_*_PORT still wins', () => {
    const old = join(scratch, 'old');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'layout'), 'layout 2\nports keystone=15000 glance=19393 placement=18779 postgres=15432 ceph-a=36789 ceph-b=36889\n');
    expect(portsOf(old)).toEqual({ KEYSTONE_PORT: 15000, GLANCE_PORT: 19393, PLACEMENT_PORT: 18779, POSTGRES_PORT: 15432, CEPH_A_PORT: 36789, CEPH_B_PORT: 36889 });
    expect(portsOf(old, { FERRY_DEVCLOUD_CEPH_B_PORT: '21200' }).CEPH_B_PORT).toBe(21200);
  }, 2 * SOURCE_MS);
});
