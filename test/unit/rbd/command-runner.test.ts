import { describe, expect, it } from 'vitest';
import { execFileRunner } from '../../../src/rbd/command-runner.js';

// The one place unit tests spawn a process: a tiny `node -e` proves the real runner's exit codes, timeout and abort.
const NODE = process.execPath;

describe('execFileRunner', () => {
  it('execFileRunner: reports stdout, stderr and a non-zero exit code without throwing', async () => {
    const out = await execFileRunner.run(
      NODE,
      ['-e', 'process.stdout.write("out"); process.stderr.write("err"); process.exitCode = 2'],
      { timeoutMs: 10_000 },
    );
    expect(out).toEqual({ outcome: 'exited', exitCode: 2, signal: null, stdout: 'out', stderr: 'err' });
  });

  it('execFileRunner: passes arguments verbatim (no shell)', async () => {
    const tricky = '$(echo no) `x` ; | & "q"';
    const out = await execFileRunner.run(NODE, ['-e', 'process.stdout.write(process.argv[1])', tricky], {
      timeoutMs: 10_000,
    });
    expect(out).toMatchObject({ outcome: 'exited', exitCode: 0, stdout: tricky });
  });

  it('execFileRunner: kills a process that outlives its timeout', async () => {
    const out = await execFileRunner.run(NODE, ['-e', 'setTimeout(() => {}, 60_000)'], { timeoutMs: 300 });
    expect(out).toMatchObject({ outcome: 'timed-out', timeoutMs: 300 });
  });

  it('execFileRunner: an abort ends the run', async () => {
    const controller = new AbortController();
    const running = execFileRunner.run(NODE, ['-e', 'setTimeout(() => {}, 60_000)'], {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await expect(running).resolves.toEqual({ outcome: 'aborted' });
  });

  it('execFileRunner: an already aborted signal never starts the process', async () => {
    const out = await execFileRunner.run(NODE, ['-e', ''], { timeoutMs: 10_000, signal: AbortSignal.abort() });
    expect(out).toEqual({ outcome: 'aborted' });
  });

  it('execFileRunner: a missing program is failed/ENOENT', async () => {
    const out = await execFileRunner.run('/nonexistent/ferry-no-such-binary', [], { timeoutMs: 10_000 });
    expect(out).toMatchObject({ outcome: 'failed', errorCode: 'ENOENT' });
  });
});
