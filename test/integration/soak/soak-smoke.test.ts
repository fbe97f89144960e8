// The soak's 3-minute smoke (issue 35, docs/soak.md): four compute nodes of two sites, real agents and nova 26's
// patched Rbd.clone(), booting every kind of tenant image while the seeded schedule injects faults and ferry's jobs
// run; every invariant must hold. The long runs: `npm run soak -- --minutes 60 --seed S`.
// The soak runs as `npm run soak` runs it, one child program (scripts/soak/main.ts) bounded by soakLimitSeconds: in
// this process its hundreds of sequential rbd and ferry calls, each with its own timeout, would add up far past any
// test limit under the spawn-limit guard (test/helpers/spawn-limit-runner.ts), which failed the smoke before.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { soakLimitSeconds, type SoakResult } from '../../../scripts/soak/run.js';

const MINUTES = 3;
/** Seed 15's 3 minutes: a token expiry, a forged copy, answers lost, a Glance outage, a tenant's delete, an agent restart. */
const SEED = Number(process.env.FERRY_SOAK_SEED ?? 15);
/** The soak's own bound, and the reading of its report after it. */
const SOAK_MS = soakLimitSeconds(MINUTES) * 1000;
const READ_MS = 30_000;

// Part of every full run, on a dev cloud of its own beside the others (scripts/integration-lanes.mjs OWN_CLOUD);
// `npm run test:soak` runs it alone.

/** `npm run soak -- --minutes M --seed S --out DIR`, its output passed through; resolves with its exit code. */
function runSoakProgram(out: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), ['scripts/soak/main.ts', '--minutes', String(MINUTES), '--seed', String(SEED), '--out', out],
      { stdio: ['ignore', 'inherit', 'inherit'], timeout: SOAK_MS });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

describe('the soak, 3 minutes', () => {
  it(`seed ${SEED}: every invariant holds, boots of every kind through the agents`, async () => {
    const out = mkdtempSync(join(tmpdir(), 'ferry-soak-'));
    const code = await runSoakProgram(out);
    const reportFile = join(out, 'report.json');
    expect(existsSync(reportFile), `the soak exited ${code} without a report (${out})`).toBe(true);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as SoakResult['report'] & { violations: SoakResult['violations'] };
    expect(report.violations).toEqual([]);
    expect(code).toBe(0);
    expect(report.boots.filter((boot) => boot.route === 'agent-clone').length).toBeGreaterThan(0);
    expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  }, SOAK_MS + READ_MS);
});
