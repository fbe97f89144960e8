import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fsidFromCephConf, readCephConfFsid } from '../../../src/rbd/ceph-conf-fsid.js';
import type { CommandOutcome, CommandRunner } from '../../../src/rbd/command-runner.js';
import { resolveLocalCluster } from '../../../src/rbd/resolve-local-cluster.js';

const FSID = '852e9454-1cdd-4bad-8b89-5238cc7df315';
const OTHER = '00000000-1111-2222-3333-444444444444';

// The head of a dev-cloud ceph.conf (ceph-rbd.md §4).
const devConf = (fsid: string) => `[global]
fsid = ${fsid}
mon_host = [v2:127.0.0.1:36789,v1:127.0.0.1:36790]
keyring = /srv/ceph/site-a/ceph.$name.keyring

[client]
rados_osd_op_timeout = 30
`;

describe('fsidFromCephConf', () => {
  it.each([
    { name: 'the [global] fsid', text: devConf(FSID), user: undefined, expected: { fsid: FSID, section: 'global', line: 2 } },
    { name: 'a tab-indented cephadm conf', text: `# minimal ceph.conf\n[global]\n\tfsid = ${FSID}\n\tmon_host = x\n`, user: 'nova', expected: { fsid: FSID, section: 'global', line: 3 } },
    { name: 'an inline comment', text: `[global]\nfsid = ${FSID} ; set by bootstrap\n`, user: undefined, expected: { fsid: FSID, section: 'global', line: 2 } },
    { name: 'uppercase is normalised', text: `[global]\nfsid=${FSID.toUpperCase()}\n`, user: undefined, expected: { fsid: FSID, section: 'global', line: 2 } },
    { name: '[client.nova] overrides [global]', text: `[global]\nfsid = ${OTHER}\n[client.nova]\nfsid = ${FSID}\n`, user: 'nova', expected: { fsid: FSID, section: 'client.nova', line: 4 } },
    { name: '[client.glance] is not read for nova', text: `[global]\nfsid = ${FSID}\n[client.glance]\nfsid = ${OTHER}\n`, user: 'nova', expected: { fsid: FSID, section: 'global', line: 2 } },
    { name: 'CRLF line ends', text: `[global]\r\nfsid = ${FSID}\r\n`, user: undefined, expected: { fsid: FSID, section: 'global', line: 2 } },
  ])('fsidFromCephConf: $name', ({ text, user, expected }) => {
    expect(fsidFromCephConf(text, user)).toEqual(expected);
  });

  it.each([
    { name: 'no fsid at all', text: '[global]\nmon_host = x\n' },
    { name: 'fsid only in [mon]', text: `[mon]\nfsid = ${FSID}\n` },
    { name: 'a commented-out fsid', text: `[global]\n# fsid = ${FSID}\n` },
  ])('fsidFromCephConf: $name → undefined', ({ text }) => {
    expect(fsidFromCephConf(text, 'nova')).toBeUndefined();
  });

  it('fsidFromCephConf: an fsid that is not a UUID is FERRY_INVALID_CONFIG naming the line', () => {
    expect(() => fsidFromCephConf('[global]\nfsid = not-a-uuid\n', undefined, '/etc/ceph/ceph.conf')).toThrow(
      expect.objectContaining({
        code: 'FERRY_INVALID_CONFIG',
        message: "/etc/ceph/ceph.conf line 2: fsid 'not-a-uuid' in [global] is not a UUID",
      }),
    );
  });

  it('readCephConfFsid: a missing file is FERRY_INVALID_CONFIG', async () => {
    await expect(readCephConfFsid('/nonexistent/ferry/ceph.conf')).rejects.toMatchObject({
      code: 'FERRY_INVALID_CONFIG',
      message: 'cannot read the Ceph config /nonexistent/ferry/ceph.conf: ENOENT',
    });
  });
});

const confDir = mkdtempSync(join(tmpdir(), 'ferry-rbd-'));
let confCount = 0;
afterAll(() => rmSync(confDir, { recursive: true, force: true }));

function writeConf(text: string): string {
  confCount += 1;
  const file = join(confDir, `ceph-${confCount}.conf`);
  writeFileSync(file, text);
  return file;
}

function runnerAnswering(outcome: CommandOutcome): CommandRunner & { runs: number } {
  const runner = {
    runs: 0,
    run: () => {
      runner.runs += 1;
      return Promise.resolve(outcome);
    },
  };
  return runner;
}

const fsidOut = (fsid: string): CommandOutcome => ({ outcome: 'exited', exitCode: 0, signal: null, stdout: `${fsid}\n`, stderr: '' });
const monDown: CommandOutcome = { outcome: 'exited', exitCode: 1, signal: null, stdout: '', stderr: 'timed out\n' };

describe('resolveLocalCluster', () => {
  it('resolveLocalCluster: an fsid option wins and nothing runs', async () => {
    const runner = runnerAnswering(fsidOut(OTHER));
    await expect(resolveLocalCluster({ fsid: ` ${FSID.toUpperCase()} `, confFile: '/x', cli: { runner } })).resolves.toEqual({
      fsid: FSID,
      source: 'option',
      confFile: '/x',
      user: undefined,
      warnings: [],
    });
    expect(runner.runs).toBe(0);
  });

  it('resolveLocalCluster: a malformed fsid option is FERRY_INVALID_OPTION', async () => {
    await expect(resolveLocalCluster({ fsid: 'site-a' })).rejects.toMatchObject({
      code: 'FERRY_INVALID_OPTION',
      message: "fsid must be a UUID, got 'site-a' (from --fsid)",
    });
  });

  it('resolveLocalCluster: neither fsid nor conf is FERRY_INVALID_OPTION naming the ways out', async () => {
    await expect(resolveLocalCluster({})).rejects.toMatchObject({
      code: 'FERRY_INVALID_OPTION',
      hint: expect.stringMatching(/--fsid.*--ceph-conf.*images_rbd_ceph_conf/),
    });
  });

  it('resolveLocalCluster: the cluster is asked first and agrees with the conf', async () => {
    const confFile = writeConf(devConf(FSID));
    await expect(resolveLocalCluster({ confFile, user: 'nova', cli: { runner: runnerAnswering(fsidOut(FSID)) } })).resolves.toEqual({
      fsid: FSID,
      source: 'cluster',
      confFile,
      user: 'nova',
      warnings: [],
    });
  });

  it('resolveLocalCluster: the cluster wins over a conf naming another fsid, with a warning', async () => {
    const confFile = writeConf(devConf(OTHER));
    const resolved = await resolveLocalCluster({ confFile, cli: { runner: runnerAnswering(fsidOut(FSID)) } });
    expect(resolved).toMatchObject({ fsid: FSID, source: 'cluster' });
    expect(resolved.warnings).toEqual([expect.stringContaining(`says fsid ${OTHER} but the cluster reports ${FSID}`)]);
  });

  it('resolveLocalCluster: a cluster that cannot be asked falls back to the conf, with a warning', async () => {
    const confFile = writeConf(devConf(FSID));
    const resolved = await resolveLocalCluster({ confFile, cli: { runner: runnerAnswering(monDown) } });
    expect(resolved).toMatchObject({ fsid: FSID, source: 'ceph-conf' });
    expect(resolved.warnings).toEqual([expect.stringContaining('could not ask the cluster for its fsid')]);
  });

  it('resolveLocalCluster: no fsid in the conf and the cluster down is the FERRY_CEPH error', async () => {
    const confFile = writeConf('[global]\nmon_host = x\n');
    await expect(resolveLocalCluster({ confFile, cli: { runner: runnerAnswering(monDown) } })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
    });
  });

  it('resolveLocalCluster: an abort is not turned into a fallback', async () => {
    const confFile = writeConf(devConf(FSID));
    await expect(resolveLocalCluster({ confFile, cli: { runner: runnerAnswering({ outcome: 'aborted' }) } })).rejects.toMatchObject({
      code: 'FERRY_ABORTED',
    });
  });
});
