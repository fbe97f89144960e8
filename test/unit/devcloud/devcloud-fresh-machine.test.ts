import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/devcloud/up on a fresh machine (issue 36, found in scripts/fresh-root): before ensure_packages has installed
// postgresql there is no /usr/lib/postgresql, and common.sh's PostgreSQL lookup — run when up sources it, under
// `set -euo pipefail` — failed there, so up (and npm run demo) exited 1 without a word. Here `find` is a stand-in that
// answers as find does for a missing start directory, or lists PostgreSQL versions.

const root = join(import.meta.dirname, '..', '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'ferry-devcloud-fresh-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Sourcing common.sh once: bash's start and a few dpkg-free lines. */
const SOURCE_MS = 15_000;

/** A bin/ whose `find` prints LINES and exits STATUS, first on PATH. */
function fakeFind(name: string, lines: readonly string[], status: number): string {
  const bin = join(scratch, name);
  rmSync(bin, { recursive: true, force: true });
  spawnSync('mkdir', ['-p', bin], { timeout: SOURCE_MS });
  writeFileSync(join(bin, 'find'), `#!/bin/bash\nprintf '%s\\n' ${lines.map((line) => `'${line}'`).join(' ')}\nexit ${status}\n`);
  chmodSync(join(bin, 'find'), 0o755);
  return bin;
}

function sourceCommon(bin: string): { status: number | null; stdout: string; stderr: string } {
  const script = 'set -euo pipefail; source scripts/devcloud/lib/common.sh; echo "PG_BIN=[$PG_BIN]"';
  return spawnSync('bash', ['-c', script], {
    cwd: root, encoding: 'utf8', timeout: SOURCE_MS,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, FERRY_DEVCLOUD_DIR: join(scratch, 'state') },
  });
}

describe('devcloud common.sh on a machine without PostgreSQL yet', () => {
  it('sources under set -euo pipefail (as up does) with PG_BIN empty', () => {
    const out = sourceCommon(fakeFind('missing', [], 1));
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain('PG_BIN=[]');
  });

  it('takes the newest version when several are installed', () => {
    const out = sourceCommon(fakeFind('several', ['/usr/lib/postgresql/9.6/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/13/bin'], 0));
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain('PG_BIN=[/usr/lib/postgresql/15/bin]');
  });

});
