// The check that no test's verdict depends on the machine's speed through what it spawns (issue 36): the decision
// (spawn-budget.ts judgeSpawn) as a table, and the runner that applies it (spawn-limit-runner.ts) on planted tests, in
// a vitest of their own.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeSpawn, type SpawnRequest, type TaskBudget } from '../../helpers/spawn-budget.js';

const CALL = { call: "spawnSync('python3')", site: 'test/unit/x.test.ts:7' } as const;

const cases: readonly { name: string; request: SpawnRequest; task: TaskBudget; allowed: boolean; says?: string }[] = [
  { name: 'no timeout', request: { ...CALL, timeoutMs: undefined }, task: { limitMs: 120_000, declaredMs: 0 }, allowed: false,
    says: "spawnSync('python3') at test/unit/x.test.ts:7 has no timeout" },
  { name: 'a timeout of 0 (none)', request: { ...CALL, timeoutMs: 0 }, task: { limitMs: 5_000, declaredMs: 0 }, allowed: false, says: 'has no timeout' },
  { name: 'the issue: 120 s under vitest\'s 5 s default', request: { ...CALL, timeoutMs: 120_000 }, task: { limitMs: 5_000, declaredMs: 0 }, allowed: false,
    says: 'may run 120 s, but the test (or hook) that spawns it has a limit of 5 s' },
  { name: 'the limit covers it exactly', request: { ...CALL, timeoutMs: 120_000 }, task: { limitMs: 120_000, declaredMs: 0 }, allowed: true },
  { name: 'earlier spawns count', request: { ...CALL, timeoutMs: 30_000 }, task: { limitMs: 60_000, declaredMs: 40_000 }, allowed: false,
    says: 'may run 30 s after 40 s its earlier spawns may take, but the test (or hook) that spawns it has a limit of 60 s' },
  { name: 'outside any test or hook (a file being collected): a timeout is enough', request: { ...CALL, timeoutMs: 600_000 }, task: { limitMs: undefined, declaredMs: 0 }, allowed: true },
  { name: 'a service without a timeout (its lifetime)', request: { ...CALL, timeoutMs: undefined, service: true }, task: { limitMs: 120_000, declaredMs: 0 },
    allowed: false, says: 'has no timeout' },
  { name: 'a hook without a limit (0)', request: { ...CALL, timeoutMs: 600_000 }, task: { limitMs: 0, declaredMs: 0 }, allowed: true },
];

describe('judgeSpawn', () => {
  it.each(cases)('$name', ({ request, task, allowed, says }) => {
    const verdict = judgeSpawn(request, task);
    expect(verdict.allowed).toBe(allowed);
    if (!verdict.allowed) expect(verdict.reason).toContain(says);
    if (verdict.allowed) expect(verdict).toEqual({ allowed: true, startsAtMs: task.declaredMs, endsAtMs: task.declaredMs + (request.timeoutMs ?? 0) });
  });

  it('a service (an agent the tests use, then stop): its lifetime is past the limit, and moves no clock', () => {
    expect(judgeSpawn({ ...CALL, timeoutMs: 3_600_000, service: true }, { limitMs: 120_000, declaredMs: 40_000 }))
      .toEqual({ allowed: true, startsAtMs: 40_000, endsAtMs: 40_000 });
  });

  it('names the limit the test needs', () => {
    const verdict = judgeSpawn({ ...CALL, timeoutMs: 30_000 }, { limitMs: 60_000, declaredMs: 40_000 });
    expect(verdict.allowed ? '' : verdict.reason).toContain('Give the test a limit of at least 70 s');
  });
});

// Planted tests, run by a vitest of their own under the runner, in a directory inside the checkout (so that `vitest`
// resolves) whose test/ holds them: the runner judges code under its working directory's test/.
const ROOT = process.cwd();
const planted = mkdtempSync(join(ROOT, 'test', '.planted-spawns-'));
afterAll(() => rmSync(planted, { recursive: true, force: true }));

const PLANTED_TESTS = `import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnWithoutLimit } from '../lib/spawner.js';

describe('spawning tests', () => {
  it('a 60 s spawn under the default 5 s', () => { spawnSync('true', [], { timeout: 60_000 }); });
  it('a spawn without a timeout', () => { execFileSync('true'); });
  it('a spawn its limit covers', () => { expect(spawnSync('true', [], { timeout: 20_000 }).status).toBe(0); }, 20_000);
  it('two in a row past the limit together', () => { spawnSync('true', [], { timeout: 12_000 }); spawnSync('true', [], { timeout: 12_000 }); }, 20_000);
  it('two side by side within it', async () => {
    const ends = [spawn('true', [], { timeout: 15_000 }), spawn('true', [], { timeout: 15_000 })]
      .map((child) => new Promise((resolve) => child.once('exit', resolve)));
    await Promise.all(ends);
  }, 20_000);
  it('a program spawned by the code under test (not test/) keeps its own limits', () => { expect(spawnWithoutLimit()).toBe(0); });
});

describe('a hook', () => {
  beforeAll(() => { spawnSync('true', [], { timeout: 30_000 }); });
  it('runs after it', () => { expect(1).toBe(1); });
});
`;

/** What each planted test became (its status and first failure message), and what vitest printed. */
function runPlanted(): { results: Record<string, { status: string; message: string }>; printed: string } {
  mkdirSync(join(planted, 'test'));
  mkdirSync(join(planted, 'lib'));
  writeFileSync(join(planted, 'lib', 'spawner.ts'),
    "import { spawnSync } from 'node:child_process';\nexport const spawnWithoutLimit = (): number | null => spawnSync('true').status;\n");
  writeFileSync(join(planted, 'test', 'spawning.test.ts'), PLANTED_TESTS);
  writeFileSync(join(planted, 'vitest.config.ts'), `import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { include: ['test/*.test.ts'], runner: ${JSON.stringify(join(ROOT, 'test/helpers/spawn-limit-runner.ts'))} } });\n`);
  const report = join(planted, 'report.json');
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    { cwd: planted, encoding: 'utf8', timeout: PLANTED_RUN_MS, env: { ...process.env, NO_COLOR: '1' } });
  expect(run.status, `${run.stdout}${run.stderr}`).toBe(1);
  const results = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[] })
    .testResults.flatMap((file) => file.assertionResults);
  return { results: Object.fromEntries(results.map((result) => [result.title, { status: result.status, message: result.failureMessages[0] ?? '' }])),
    printed: `${run.stdout}${run.stderr}` };
}
/** A vitest of its own: 2-3 s on a quiet machine. */
const PLANTED_RUN_MS = 120_000;

describe('spawn-limit-runner on planted tests', () => {
  it('fails a spawn without a timeout or past its test\'s limit, on any machine; passes what the limit covers', () => {
    const { results, printed } = runPlanted();
    expect(results['a 60 s spawn under the default 5 s']).toMatchObject({ status: 'failed',
      message: expect.stringContaining("spawnSync('true') at test/spawning.test.ts:6 may run 60 s, but the test (or hook) that spawns it has a limit of 5 s") });
    expect(results['a spawn without a timeout']).toMatchObject({ status: 'failed',
      message: expect.stringContaining("execFileSync('true') at test/spawning.test.ts:7 has no timeout") });
    expect(results['a spawn its limit covers']).toMatchObject({ status: 'passed' });
    expect(results['two in a row past the limit together']).toMatchObject({ status: 'failed',
      message: expect.stringContaining('may run 12 s after 12 s its earlier spawns may take, but the test (or hook) that spawns it has a limit of 20 s') });
    expect(results['two side by side within it']).toMatchObject({ status: 'passed' });
    expect(results['a program spawned by the code under test (not test/) keeps its own limits']).toMatchObject({ status: 'passed' });
    // beforeAll's limit is vitest's default hook timeout (10 s): the hook fails, and the test under it does not run.
    expect(printed).toContain("spawnSync('true') at test/spawning.test.ts:19 may run 30 s, but the test (or hook) that spawns it has a limit of 10 s");
    expect(results['runs after it']).toMatchObject({ status: 'skipped' });
  }, PLANTED_RUN_MS);
});
