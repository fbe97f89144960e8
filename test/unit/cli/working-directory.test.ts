// Contract: ferry started in a directory that no longer exists (removed under a shell, a test's temporary directory)
// says so in one message with exit 3 (FERRY_INVALID_CONFIG: ./clouds.yaml and relative paths are looked up there),
// in JSON with --json, and never prints Node's stack trace; --version needs no directory and still answers.
// Runs bin/ferry as a user does (it loads dist/, which `npm test` builds first).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FERRY = join(process.cwd(), 'bin', 'ferry');
/** One ferry process that reads no cloud: seconds; a loaded 2-core machine, a few more. */
const RUN_MS = 30_000;

/** bin/ferry ARGS run from a directory removed just before (by the shell that then execs node there). */
function fromRemovedDirectory(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-gone-'));
  return spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec "$@"', 'sh', dir, process.execPath, FERRY, ...args], {
    encoding: 'utf8', timeout: RUN_MS, env: { ...process.env, OS_CLOUD: 'none-here' },
  });
}

describe('ferry in a removed working directory', { timeout: RUN_MS + 5_000 }, () => {
  it('--json: one error document, FERRY_INVALID_CONFIG naming the directory and the fix, exit 3, no stack trace', () => {
    const run = fromRemovedDirectory('ensure', '00000000-0000-4000-8000-000000000000', '--store', 'site-b', '--json');
    expect(run.status, run.stderr).toBe(3);
    const document = JSON.parse(run.stdout) as { error: { code: string; message: string; hint: string; details?: unknown } };
    expect(document.error).toMatchObject({ code: 'FERRY_INVALID_CONFIG', details: { cwd: 'ENOENT' } });
    expect(document.error.message).toContain('the current working directory cannot be read (ENOENT)');
    expect(document.error.hint).toContain('cd to a directory that exists');
    expect(run.stderr).not.toMatch(/uv_cwd|\n\s+at /);
  });

  it('text: "ferry: error:" on stderr with the hint, exit 3, no stack trace', () => {
    const run = fromRemovedDirectory('status');
    expect(run.status, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/^ferry: error: the current working directory cannot be read \(ENOENT\)/);
    expect(run.stderr).not.toMatch(/uv_cwd|\n\s+at /);
  });

  it('--version needs no directory: it answers, exit 0', () => {
    const run = fromRemovedDirectory('--version');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
