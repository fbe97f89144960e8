// Per-step timing of a ferry process's rbd/ceph children, for `bench/transfer.ts`: a directory with `rbd` and `ceph`
// wrappers put first in PATH. Each wrapper runs the real binary and appends "start end exit name args…" (epoch
// seconds) to a log whose path is written into the wrapper: ferry hands its children only PATH and a few others of its
// environment (src/process/child-environment.ts), so a log named in a variable of its own never reached them and
// every wrapped run failed (exit 35, FERRY_CEPH). The wrapper adds a shell and two `date` runs per process (~5 ms), so the headline timings are
// taken without it and this run only says where the time goes.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StepLog {
  /** PATH with the wrappers first. */
  readonly env: { readonly PATH: string };
  read(startedAtSec: number): Step[];
  dispose(): void;
}

export interface Step { readonly name: string; readonly startS: number; readonly endS: number; readonly exit: number }

/** Wrappers for `programs` (rbd and ceph; a test wraps one every machine has). */
export function createStepLog(programs: readonly string[] = ['rbd', 'ceph']): StepLog {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-bench-steps-'));
  const log = join(dir, 'steps.log');
  for (const name of programs) {
    const real = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (real === '') throw new Error(`bench: ${name} is not on PATH`);
    const wrapper = join(dir, name);
    writeFileSync(wrapper, `#!/bin/sh\ns=$(date +%s.%N)\n${real} "$@"\nrc=$?\ne=$(date +%s.%N)\n`
      + `printf '%s %s %s %s\\n' "$s" "$e" "$rc" "${name} $(printf '%s ' "$@" | sed 's/-c [^ ]* //; s/--id [^ ]* //; s/--[a-z-]*-timeout [0-9]* //g')" >> '${log}'\nexit $rc\n`);
    chmodSync(wrapper, 0o755);
  }
  return {
    env: { PATH: `${dir}:${process.env.PATH ?? ''}` },
    read(startedAtSec) {
      let text = '';
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        return [];
      }
      writeFileSync(log, '');
      return text.split('\n').filter((line) => line !== '').map((line) => {
        const [start = '0', end = '0', exit = '0', ...rest] = line.split(' ');
        return { name: rest.join(' ').trim(), startS: Number(start) - startedAtSec, endS: Number(end) - startedAtSec, exit: Number(exit) };
      }).sort((a, b) => a.startS - b.startS);
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
