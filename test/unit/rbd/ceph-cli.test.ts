import { describe, expect, it } from 'vitest';
import { cephCliFor, readClusterFsid, snapshotExists } from '../../../src/rbd/ceph-cli.js';
import type { CommandOutcome } from '../../../src/rbd/command-runner.js';
import { scriptedRunner } from '../../helpers/scripted-runner.js';

const CONF = '/etc/ceph/site-a.conf';
const FSID = '852e9454-1cdd-4bad-8b89-5238cc7df315';

const exited = (exitCode: number, stdout: string, stderr = ''): CommandOutcome => ({
  outcome: 'exited',
  exitCode,
  signal: null,
  stdout,
  stderr,
});

// stderr texts as printed by Ceph 16.2.15 (Debian 12) on the dev cloud.
const STDERR = {
  noImage: 'rbd: error opening image nosuch: (2) No such file or directory\n',
  noPool: "rbd: error opening pool 'nosuchpool': (2) No such file or directory\n",
  noSnap: 'error setting snapshot context: (2) No such file or directory\n',
  noKeyring:
    '2026-11-21T19:20:52.767+0000 7f1aa8fc0380 -1 AuthRegistry(0x7fff0aac7ef0) no keyring found at ' +
    '/srv/ceph/site-a/ceph.client.nosuchuser.keyring, disabling cephx\n\nrbd: couldn\'t connect to the cluster!\n',
  monDown:
    '2026-11-21T19:17:15.107+0000 7f16de48d380  0 monclient(hunting): authenticate timed out after 3\n\n' +
    "rbd: couldn't connect to the cluster!\n",
  cephTimedOut: 'timed out\n',
};

describe('readClusterFsid', () => {
  it('readClusterFsid: runs ceph -c conf --id user --connect-timeout fsid and returns the fsid', async () => {
    const runner = scriptedRunner(exited(0, `${FSID}\n`));
    await expect(readClusterFsid({ confFile: CONF, user: 'nova', runner })).resolves.toBe(FSID);
    expect(runner.calls).toEqual([
      {
        file: 'ceph',
        args: ['-c', CONF, '--id', 'nova', '--connect-timeout', '10', 'fsid'],
        options: { timeoutMs: 30_000 },
      },
    ]);
  });

  it('readClusterFsid: without a user no --id is passed; timeouts and the binary can be set', async () => {
    const signal = new AbortController().signal;
    const runner = scriptedRunner(exited(0, FSID.toUpperCase()));
    await expect(
      readClusterFsid({ confFile: CONF, runner, timeoutMs: 5_000, connectTimeoutMs: 2_500, cephBinary: '/opt/ceph', signal }),
    ).resolves.toBe(FSID);
    expect(runner.calls[0]).toEqual({
      file: '/opt/ceph',
      args: ['-c', CONF, '--connect-timeout', '3', 'fsid'],
      options: { timeoutMs: 5_000, signal },
    });
  });

  it('readClusterFsid: output that is not an fsid is FERRY_CEPH', async () => {
    const runner = scriptedRunner(exited(0, 'HEALTH_OK\n'));
    await expect(readClusterFsid({ confFile: CONF, runner })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
      message: `ceph fsid (-c ${CONF}) printed 'HEALTH_OK', which is not an fsid`,
    });
  });

  it('readClusterFsid: a mon that does not answer is FERRY_CEPH with the last stderr line', async () => {
    const runner = scriptedRunner(exited(1, '', STDERR.cephTimedOut));
    await expect(readClusterFsid({ confFile: CONF, user: 'nova', runner })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
      message: `ceph fsid (-c ${CONF} --id nova) failed (exit 1): timed out`,
      hint: expect.stringContaining('mon_host'),
      details: { exitCode: 1, stderr: 'timed out' },
    });
  });

  it('readClusterFsid: a zero timeout is refused before anything runs', async () => {
    const runner = scriptedRunner(exited(0, FSID));
    await expect(readClusterFsid({ confFile: CONF, runner, timeoutMs: 0 })).rejects.toMatchObject({
      code: 'FERRY_INVALID_OPTION',
      message: 'timeoutMs must be a positive number of milliseconds, got 0',
    });
    expect(runner.calls).toEqual([]);
  });
});

describe('snapshotExists', () => {
  const ref = { confFile: CONF, user: 'nova', pool: 'images', image: 'img1', snapshot: 'snap' };

  it('snapshotExists: rc 0 is true, and each name bound to its option (no shell, no pool/image@snap parsing)', async () => {
    const runner = scriptedRunner(exited(0, "rbd image 'img1':\n\tsize 20 MiB in 5 objects\n"));
    await expect(snapshotExists({ ...ref, runner })).resolves.toBe(true);
    expect(runner.calls[0]?.file).toBe('rbd');
    expect(runner.calls[0]?.args).toEqual([
      '-c', CONF, '--id', 'nova',
      '--client-mount-timeout', '10', '--rados-mon-op-timeout', '10', '--rados-osd-op-timeout', '10',
      'info', '--pool=images', '--image=img1', '--snap=snap',
    ]);
  });

  // Issue 25, finding 2: with `--image <value>`, rbd 16 reads a value such as `--log_file=/tmp/x` as an option of its
  // own (checked by hand: the file was created). Such names are refused before any command runs.
  it.each([
    { name: 'an image read as an option', over: { image: '--log_file=/tmp/x' }, message: /image '--log_file=\/tmp\/x' starts with '-'/ },
    { name: 'a pool read as an option', over: { pool: '-x' }, message: /pool '-x' starts with '-'/ },
    { name: 'a snapshot with an @', over: { snapshot: 'a@b' }, message: /snapshot 'a@b' contains/ },
  ])('snapshotExists: $name is FERRY_INVALID_OPTION, and rbd is never run', async ({ over, message }) => {
    const runner = scriptedRunner(exited(0, ''));
    await expect(snapshotExists({ ...ref, ...over, runner })).rejects.toMatchObject({ code: 'FERRY_INVALID_OPTION', message: expect.stringMatching(message) as unknown });
    expect(runner.calls).toEqual([]);
  });

  it.each([
    { name: 'no such image', stderr: STDERR.noImage },
    { name: 'no such pool', stderr: STDERR.noPool },
    { name: 'no such snapshot', stderr: STDERR.noSnap },
  ])('snapshotExists: $name (rc 2) is false', async ({ stderr }) => {
    await expect(snapshotExists({ ...ref, runner: scriptedRunner(exited(2, '', stderr)) })).resolves.toBe(false);
  });

  it.each([
    { name: 'rc 2 without a keyring', out: exited(2, '', STDERR.noKeyring), last: "rbd: couldn't connect to the cluster!", hint: 'No keyring for client.nova' },
    { name: 'rc 110 when the mons are down', out: exited(110, '', STDERR.monDown), last: "rbd: couldn't connect to the cluster!", hint: 'The cluster did not answer' },
    { name: 'rc 13 (permission)', out: exited(13, '', 'rbd: error opening image img1: (13) Permission denied\n'), last: 'rbd: error opening image img1: (13) Permission denied', hint: "caps mon 'profile rbd'" },
    { name: 'rc 1 (no conf file)', out: exited(1, '', `global_init: unable to open config file from search list ${CONF}\n`), last: `global_init: unable to open config file from search list ${CONF}`, hint: 'Run the command by hand' },
  ])('snapshotExists: $name is FERRY_CEPH, not "does not exist"', async ({ out, last, hint }) => {
    const exitCode = out.outcome === 'exited' ? out.exitCode : null;
    await expect(snapshotExists({ ...ref, runner: scriptedRunner(out) })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
      message: `rbd info images/img1@snap (-c ${CONF} --id nova) failed (exit ${String(exitCode)}): ${last}`,
      hint: expect.stringContaining(hint),
      details: { exitCode, stderr: last },
    });
  });

  it('snapshotExists: a Ceph log line printed after the message does not hide it', async () => {
    const stderr =
      "rbd: couldn't connect to the cluster!\n" +
      '2026-11-21T19:22:35.771+0000 7fb95dd95380 -1 AuthRegistry(0x7fff5f8bb9e0) no keyring found at /k, disabling cephx\n';
    await expect(snapshotExists({ ...ref, runner: scriptedRunner(exited(2, '', stderr)) })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
      details: { stderr: "rbd: couldn't connect to the cluster!" },
      hint: expect.stringContaining('No keyring for client.nova'),
    });
    const notFound = `${STDERR.noSnap}2026-11-21T19:22:35.771+0000 7fb95dd95380 -1 some late log line\n`;
    await expect(snapshotExists({ ...ref, runner: scriptedRunner(exited(2, '', notFound)) })).resolves.toBe(false);
  });

  it('snapshotExists: a kill by a foreign signal is FERRY_CEPH', async () => {
    const runner = scriptedRunner({ outcome: 'exited', exitCode: null, signal: 'SIGSEGV', stdout: '', stderr: '' });
    await expect(snapshotExists({ ...ref, runner })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
      message: expect.stringContaining('failed (killed by SIGSEGV)'),
    });
  });

  it('snapshotExists: a timeout is FERRY_CEPH naming the limit', async () => {
    const runner = scriptedRunner({ outcome: 'timed-out', timeoutMs: 30_000, stdout: '', stderr: '' });
    await expect(snapshotExists({ ...ref, runner })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
      message: `rbd info images/img1@snap (-c ${CONF} --id nova) did not finish within 30000 ms and was killed`,
    });
  });

  it('snapshotExists: an abort is FERRY_ABORTED', async () => {
    await expect(snapshotExists({ ...ref, runner: scriptedRunner({ outcome: 'aborted' }) })).rejects.toMatchObject({
      code: 'FERRY_ABORTED',
    });
  });

  it('snapshotExists: rbd not installed is FERRY_CEPH with an install hint', async () => {
    const runner = scriptedRunner({ outcome: 'failed', message: 'spawn rbd ENOENT', errorCode: 'ENOENT' });
    await expect(snapshotExists({ ...ref, runner })).rejects.toMatchObject({
      code: 'FERRY_CEPH',
      message: 'could not run rbd: spawn rbd ENOENT',
      hint: expect.stringContaining('ceph-common'),
    });
  });
});

describe('cephCliFor', () => {
  const signal = new AbortController().signal;
  it.each([
    { name: 'the cluster\'s conf and user, and what the run sets', cluster: { confFile: CONF, user: 'glance' }, run: { signal, timeoutMs: 5_000 },
      expected: { confFile: CONF, user: 'glance', signal, timeoutMs: 5_000 } },
    { name: 'no user: the CLI\'s own; a setting left undefined is left out', cluster: { confFile: CONF }, run: { signal: undefined, runner: undefined },
      expected: { confFile: CONF } },
    { name: 'a resolved fsid stays with the cluster, not on the command line', cluster: { confFile: CONF, user: 'nova', fsid: FSID }, run: {},
      expected: { confFile: CONF, user: 'nova' } },
  ])('cephCliFor: $name', ({ cluster, run, expected }) => {
    expect(cephCliFor(cluster, run)).toStrictEqual(expected);
  });
});
