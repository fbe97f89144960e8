import { describe, expect, it } from 'vitest';
import type { CommandOutcome } from '../../../src/rbd/command-runner.js';
import { readRbdNameHolder } from '../../../src/rbd/rbd-image-commands.js';
import { scriptedRunner } from '../../helpers/scripted-runner.js';

const CONF = '/etc/ceph/site-b.conf';
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
    expect(runner.calls.map((call) => call.args.slice(-4))).toEqual([['info', '--format', 'json', 'images/img']]);
  });

  it('rbd info says "No such file" but the pool\'s directory lists the name: half-created', async () => {
    const runner = scriptedRunner(RECORDED.infoHalfCreated, RECORDED.lsWithHalf);
    expect(await readRbdNameHolder({ confFile: CONF, user: 'glance', runner }, { pool: 'images', image: 'halfx' })).toEqual({ kind: 'half-created' });
    expect(runner.calls[1]?.args.slice(-4)).toEqual(['ls', '--format', 'json', 'images']);
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
