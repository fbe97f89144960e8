// Integration files whose spawn-limit findings (spawn-limit-runner.ts) are still only reported, not failed: each had
// findings in a lane run of 2026-11-29 (or was not run clean yet) and keeps them until fixed. Every other file, and
// every new one, fails on a finding as the unit project does. Remove a file here once a run lists nothing for it in
// $FERRY_DEVCLOUD_DIR/spawn-limits.txt (each finding names its test). Findings seen, by where they spawn:
// - ceph() (devcloud.ts) called again and again in one test, 70 s each; ferryChild's 240 s under the 120 s default;
// - the private systemd's ctl() 90 s per call and getent (private-systemd.ts), deb's inside() 300 s per call;
// - polls of a journal or rbd through one spawn per round (systemd/*, boot-race's evict loop).
const FILES = [
  'agent/nova-fallback.test.ts', 'agent/tenant-boot.test.ts',
  'config/nova-conf.test.ts',
  'copy/rbd-transfer.test.ts',
  'devcloud/restart.test.ts', 
  'evict/boot-race.test.ts', 'evict/evict.test.ts',
  'faults/glance-state-faults.test.ts', 'faults/process-faults.test.ts', 
  'faults/rbd-forged.test.ts', 'faults/rbd-kill-faults.test.ts', 'faults/rbd-source-lost.test.ts', 'faults/rbd-transfer-faults.test.ts',
  'faults/rbd-two-hosts.test.ts', 'faults/signals-faults.test.ts', 
  'install/artifact.test.ts',
  
  
  'security/least-privilege.test.ts',
  'stores/stores-answers.test.ts',
  
  
];

export const SPAWN_LIMIT_DEBT: ReadonlySet<string> = new Set(FILES.map((file) => `test/integration/${file}`));
