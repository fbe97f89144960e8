// Integration files whose spawn-limit findings (spawn-limit-runner.ts) are still only reported, not failed: each had
// findings in a lane run of 2026-11-29 (or was not run clean yet) and keeps them until fixed. Every other file, and
// every new one, fails on a finding as the unit project does. Remove a file here once a run lists nothing for it in
// $FERRY_DEVCLOUD_DIR/spawn-limits.txt (each finding names its test); when the list is empty, remove this file and
// REPORT_ONLY in spawn-limit-runner.ts. How the files that left were fixed, to do the same here: each program's
// timeout named where its helper is (CEPH_MS, COMMAND_MS and UNIT_JOB_MS by what ctl() waits for, INSIDE_MS/DPKG_MS,
// FERRY_CHILD_MS, FERRY_RUN_MS, DIGEST_MS, novaCloneMs), each test's limit INTEGRATION_TEST_MS plus the sum of what
// it spawns, and a poll waiting in one program (waitForRbd, waitInside, waitForJournal) instead of a spawn per round.
// Left, by where they spawn (rehearsal of 2026-11-29):
// - ceph() called again and again in one test, 70 s each, beside ferrySync/ferryAsync and the digests (copy/rbd-transfer,
//   faults/rbd-forged, rbd-transfer-faults, rbd-two-hosts, tenant-boot, nova-fallback, least-privilege, evict/evict);
// - polls through one spawn per round: rbd-forged's wait for ferry's mark (rbdMeta), rbd-two-hosts' rbdWatchers,
//   evict's fenced() every 200 ms during a run, boot-race's evict loop (ferryChild per round);
const FILES: string[] = [
];

export const SPAWN_LIMIT_DEBT: ReadonlySet<string> = new Set(FILES.map((file) => `test/integration/${file}`));
