import { describe, expect, it } from 'vitest';
import type { CommandOutcome } from '../../../src/rbd/command-runner.js';
import type { CephCliOptions } from '../../../src/rbd/ceph-cli.js';
import {
  countRbdWatchers, createRbdImage, getRbdImageMeta, listRbdImageNames, listRbdObjectExtents, protectRbdSnapshot, readRbdImageInfo, readRbdNameHolder,
  removeRbdImage, renameRbdImage, setRbdImageMeta,
} from '../../../src/rbd/rbd-image-commands.js';
import { scriptedRunner } from '../../helpers/scripted-runner.js';

const CONF = '/etc/ceph/site-b.conf';
type RbdCli = CephCliOptions;
const exited = (exitCode: number, stderr: string, stdout = ''): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout, stderr });

// What Ceph 16.2.15 (Debian 12) printed on the dev cloud, 2026-11-26, for an image whose header object was removed
// (scripts/devcloud/fault rbd-half-created: a creator killed inside `rbd create`) and for a name nobody holds.
const RECORDED = {
  infoHalfCreated: exited(2, '2026-11-26T16:20:55.072+0000 7f94c08a06c0 -1 librbd::image::OpenRequest: failed to retrieve initial metadata: '
    + '(2) No such file or directory\n\nrbd: error opening image halfx: (2) No such file or directory\n'),
  infoAbsent: exited(2, 'rbd: error opening image absentx: (2) No such file or directory\n'),
  info: exited(0, '', JSON.stringify({ name: 'img', id: '85448003cbfa', size: 4194304, object_size: 8388608, features: ['layering'],
    create_timestamp: 'Thu Nov 26 16:20:55 2026' })),
  lsWithHalf: exited(0, '', '["halfx"]\n'),
  lsEmpty: exited(0, '', '[]\n'),
};

describe('readRbdNameHolder', () => {
  it('an image that opens: its info, and no listing of the pool', async () => {
    const runner = scriptedRunner(RECORDED.info);
    const holder = await readRbdNameHolder({ confFile: CONF, user: 'glance', runner }, { pool: 'images', image: 'img' });
    expect(holder).toMatchObject({ kind: 'image', info: { size: 4194304, objectSize: 8388608, features: ['layering'] } });
    expect(runner.calls.map((call) => call.args.slice(-5))).toEqual([['info', '--format', 'json', '--', 'images/img']]);
  });

  it('rbd info says "No such file" but the pool\'s directory lists the name: half-created', async () => {
    const runner = scriptedRunner(RECORDED.infoHalfCreated, RECORDED.lsWithHalf);
    expect(await readRbdNameHolder({ confFile: CONF, user: 'glance', runner }, { pool: 'images', image: 'halfx' })).toEqual({ kind: 'half-created' });
    expect(runner.calls[1]?.args.slice(-5)).toEqual(['ls', '--format', 'json', '--', 'images']);
    expect(runner.calls[1]?.args.slice(0, 4)).toEqual(['-c', CONF, '--id', 'glance']);
    expect(runner.calls).toHaveLength(2);
  });

  it('neither opens nor listed: nobody holds the name', async () => {
    const runner = scriptedRunner(RECORDED.infoAbsent, RECORDED.lsEmpty);
    expect(await readRbdNameHolder({ confFile: CONF, runner }, { pool: 'images', image: 'absentx' })).toEqual({ kind: 'none' });
    expect(runner.calls).toHaveLength(2);
  });

  it('a cluster that cannot be reached is FERRY_CEPH, never "nobody"', async () => {
    const runner = scriptedRunner(exited(110, "rbd: couldn't connect to the cluster!\nrbd: error opening image x: (110) Connection timed out\n"));
    await expect(readRbdNameHolder({ confFile: CONF, runner }, { pool: 'images', image: 'x' })).rejects.toMatchObject({ code: 'FERRY_CEPH' });
    expect(runner.calls).toHaveLength(1);
  });

  it('a listing that fails is FERRY_CEPH too', async () => {
    const runner = scriptedRunner(RECORDED.infoAbsent, exited(13, 'rbd: listing images failed: (13) Permission denied\n'));
    await expect(readRbdNameHolder({ confFile: CONF, runner }, { pool: 'images', image: 'x' })).rejects.toMatchObject({ code: 'FERRY_CEPH' });
  });
});

// Issue 25, finding 2: names reach rbd's argv after `--`, so that a name with a leading `-` is a name, never an option
// (rbd 16 accepts `--` before the specs of each of these commands: checked by hand on the dev cloud).
describe('every rbd command puts -- before its specs', () => {
  const ok = exited(0, '', '{}');
  const ref = { pool: 'images', image: 'img' };
  const snap = { ...ref, snapshot: 'snap' };
  it.each([
    { name: 'info', run: (cli: RbdCli) => readRbdImageInfo(cli, snap), after: ['images/img@snap'] },
    { name: 'ls', run: (cli: RbdCli) => listRbdImageNames(cli, 'images').catch(() => undefined), after: ['images'] },
    { name: 'diff', run: (cli: RbdCli) => listRbdObjectExtents(cli, snap).catch(() => undefined), after: ['images/img@snap'] },
    { name: 'create', run: (cli: RbdCli) => createRbdImage(cli, ref, { id: 'abc', hasParent: false, size: 1, objectSize: 4194304, features: ['layering'], protected: false, modifiedAtSec: 0 }),
      after: ['images/img'] },
    { name: 'rename', run: (cli: RbdCli) => renameRbdImage(cli, 'images', 'img', 'other'), after: ['images/img', 'images/other'] },
    { name: 'snap protect', run: (cli: RbdCli) => protectRbdSnapshot(cli, ref, 'snap'), after: ['images/img@snap'] },
    { name: 'image-meta get', run: (cli: RbdCli) => getRbdImageMeta(cli, ref, 'ferry.verified'), after: ['images/img', 'ferry.verified'] },
    { name: 'image-meta set', run: (cli: RbdCli) => setRbdImageMeta(cli, ref, 'ferry.writer', '-h:1'), after: ['images/img', 'ferry.writer', '-h:1'] },
    { name: 'status', run: (cli: RbdCli) => countRbdWatchers(cli, ref), after: ['images/img'] },
  ])('$name: the spec comes after --', async ({ run, after }) => {
    const runner = scriptedRunner(ok);
    await run({ confFile: CONF, runner });
    expect(runner.calls).toHaveLength(1);
    const args = runner.calls[0]?.args ?? [];
    expect(args.slice(args.indexOf('--'))).toEqual(['--', ...after]);
  });

  it('rm: unprotect, purge and rm each put -- before the spec', async () => {
    const runner = scriptedRunner(ok);
    await removeRbdImage({ confFile: CONF, runner }, ref, 'snap');
    expect(runner.calls.map((call) => call.args.slice(call.args.indexOf('--')))).toEqual([['--', 'images/img@snap'], ['--', 'images/img'], ['--', 'images/img']]);
  });
});
