// nova's OWN unit tests of the image backend with ferry's patches applied (scripts/nova-unit-tests 26): Debian 12's
// nova 26.2.2, every test of nova/tests/unit/virt/libvirt/test_imagebackend.py plus the patch's tests of the agent
// path, the fallback and the verdict path. In the integration suite because it needs what the dev cloud installs
// (python3-nova) and Debian's archive (the test libraries); it needs no running service.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('nova 26.2.2 unit tests with the ferry patch', () => {
  it('scripts/nova-unit-tests 26 → every test of test_imagebackend.py passes, the patch\'s own included', () => {
    const run = spawnSync('bash', ['scripts/nova-unit-tests', '26'], { encoding: 'utf8', timeout: 1_000_000 });
    const lines = run.stdout.trim().split('\n');
    const summary = /^(\d+) passed, (\d+) failed$/.exec(lines.at(-1) ?? '');
    expect(summary, `${run.stdout}\n${run.stderr.slice(-3000)}`).not.toBeNull();
    expect(lines.filter((line) => line.startsWith('FAILED '))).toEqual([]);
    expect(Number(summary?.[2])).toBe(0);
    // 138 of nova 26.2.2's own tests (unpatched: 138 run, 138 pass) + 71 the test patch adds (ddt cases counted).
    expect(Number(summary?.[1])).toBe(210);
    expect(lines).toContain('0 skipped');
    expect(run.status).toBe(0);
  }, 1_000_000);
});
