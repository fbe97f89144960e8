import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedPython, LIBRBD_PYTHON_DEFAULT, pythonProgramText, type PythonProgram } from '../../../src/rbd/python-program.js';

// ferry's Python programs (src/rbd/python/): the text ferry runs is the file's, and each file's own tests
// (test/unit/rbd/python/test_*.py, Python's unittest against stand-in rados/rbd modules) run here, in `npm test`.

const PYTHON_TESTS = join('test', 'unit', 'rbd', 'python');
const PROGRAMS: readonly PythonProgram[] = ['librbd_copy', 'librados_fsid', 'rbd_store_copies'];
/** One program's unittest run: 1.3 s alone, 9.6 s inside a busy unit suite (issue 36); the test's limit is this. */
const UNITTEST_MS = 120_000;

describe('pythonProgramText / isolatedPython', () => {
  it.each(PROGRAMS)('%s: the text is src/rbd/python/%s.py, run as python3 -I -c TEXT from /', (name) => {
    const text = readFileSync(join('src', 'rbd', 'python', `${name}.py`), 'utf8');
    expect(pythonProgramText(name)).toBe(text);
    expect(isolatedPython(name, ['a', 'b'])).toEqual({ args: ['-I', '-c', text, 'a', 'b'], cwd: '/' });
  });

  it('every program in src/rbd/python/ has a name ferry runs it by, and its own tests', () => {
    const files = readdirSync(join('src', 'rbd', 'python')).filter((file) => file.endsWith('.py')).sort();
    expect(files).toEqual(PROGRAMS.map((name) => `${name}.py`).sort());
    for (const name of PROGRAMS) expect(readdirSync(PYTHON_TESTS)).toContain(`test_${name}.py`);
  });
});

describe('the Python programs\' own tests (unittest)', () => {
  it.each(PROGRAMS)('test_%s.py passes', (name) => {
    const run = spawnSync(LIBRBD_PYTHON_DEFAULT, ['-I', '-B', '-m', 'unittest', 'discover', '-v', '-s', PYTHON_TESTS, '-t', PYTHON_TESTS, '-p', `test_${name}.py`],
      { encoding: 'utf8', timeout: UNITTEST_MS });
    expect(run.status, run.stderr).toBe(0);
    const ran = Number(/^Ran (\d+) tests? in /m.exec(run.stderr)?.[1] ?? 0);
    expect(ran).toBeGreaterThanOrEqual(5);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('OK');
  }, UNITTEST_MS);
});
