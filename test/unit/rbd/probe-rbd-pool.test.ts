import { describe, expect, it } from 'vitest';
import { probeRbdPool } from '../../../src/rbd/probe-rbd-pool.js';
import type { CommandOutcome } from '../../../src/rbd/command-runner.js';
import { scriptedRunner } from '../../helpers/scripted-runner.js';

const CONF = '/etc/ceph/site-b.conf';

const exited = (exitCode: number, stderr: string, stdout = ''): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout, stderr });

// stderr and exit codes of `rbd ls --pool …` as Ceph 16.2.15 (Debian 12) printed them on the dev cloud, 2026-11-23.
const RECORDED = {
  osdKilled: exited(110, '2026-11-23T15:47:53.940+0000 7fc4eec9b380 -1 librbd::api::Image: list_images: error listing v1 images: '
    + '(110) Connection timed out\n\nrbd: listing images failed: (110) Connection timed out\n'),
  monKilled: exited(110, '2026-11-23T15:48:07.924+0000 7fe35701f380  0 monclient(hunting): authenticate timed out after 5\n\n'
    + "rbd: couldn't connect to the cluster!\nrbd: listing images failed: (110) Connection timed out\n"),
  noPool: exited(2, "rbd: error opening pool 'nope': (2) No such file or directory\nrbd: listing images failed: (2) No such file or directory\n"),
  noKeyring: exited(2, '2026-11-23T15:47:44.628+0000 7f42871c2380 -1 auth: unable to find a keyring on '
    + '/srv/ceph/site-b/ceph.client.nobody.keyring: (2) No such file or directory\n\n'
    + '2026-11-23T15:47:44.628+0000 7f42871c2380 -1 AuthRegistry(0x55c77e2e1478) no keyring found at '
    + '/srv/ceph/site-b/ceph.client.nobody.keyring, disabling cephx\n\n'
    + "rbd: couldn't connect to the cluster!\nrbd: listing images failed: (2) No such file or directory\n"),
  noConf: exited(1, 'global_init: unable to open config file from search list /nonexistent.conf\n'),
};

describe('probeRbdPool', () => {
  it('probeRbdPool: runs rbd ls --pool with Ceph timeouts of half the bound and kills it at the bound', async () => {
    const runner = scriptedRunner(exited(0, '', 'a1b2\nc3d4\n'));
    const probe = await probeRbdPool({ confFile: CONF, user: 'nova', pool: 'images', timeoutMs: 10_000, runner });
    expect(probe).toEqual({ answers: true, why: `rbd ls --pool images (-c ${CONF} --id nova) answered (2 RBD images)` });
    expect(runner.calls).toEqual([{
      file: 'rbd',
      args: ['-c', CONF, '--id', 'nova', '--client-mount-timeout', '5', '--rados-mon-op-timeout', '5', '--rados-osd-op-timeout', '5',
        'ls', '--pool', 'images'],
      options: { timeoutMs: 10_000 },
    }]);
  });

  it('probeRbdPool: the default bound is 10 s; Ceph never gets 0 (= wait forever), at least 1 s', async () => {
    const byDefault = scriptedRunner(exited(0, ''));
    await probeRbdPool({ confFile: CONF, pool: 'images', runner: byDefault });
    expect(byDefault.calls[0]?.options.timeoutMs).toBe(10_000);
    expect(byDefault.calls[0]?.args).toContain('--client-mount-timeout');
    const short = scriptedRunner(exited(0, ''));
    await probeRbdPool({ confFile: CONF, pool: 'images', timeoutMs: 1_500, runner: short });
    expect(short.calls[0]?.args.slice(2, 4)).toEqual(['--client-mount-timeout', '1']);
  });

  it.each([
    { name: 'an empty pool answers', outcome: exited(0, ''), answers: true, why: /answered \(0 RBD images\)$/ },
    { name: 'OSD killed: false, the OSDs did not answer', outcome: RECORDED.osdKilled, answers: false,
      why: /^the mons answer, but pool images's OSDs did not within 5 s \(.*\(110\) Connection timed out\)$/ },
    { name: 'mon killed: false, the mons did not answer', outcome: RECORDED.monKilled, answers: false,
      why: new RegExp(`^the mons named in ${CONF} did not answer within 5 s`) },
    { name: 'no such pool: false', outcome: RECORDED.noPool, answers: false, why: /^the cluster answers but has no pool images / },
    { name: 'killed at the bound: false', outcome: { outcome: 'timed-out', timeoutMs: 10_000, stdout: '', stderr: '' } as const, answers: false,
      why: /did not finish within 10000 ms and was killed$/ },
    { name: 'no keyring: null (says nothing about the store)', outcome: RECORDED.noKeyring, answers: null,
      why: /^could not check: .* failed \(exit 2\): no keyring for this cephx user$/ },
    { name: 'no caps: null', outcome: exited(1, 'rbd: listing images failed: (1) Operation not permitted\n'), answers: null,
      why: /this cephx user may not read the pool$/ },
    { name: 'unreadable ceph.conf: null', outcome: RECORDED.noConf, answers: null, why: /\(exit 1\): global_init: unable to open config file/ },
    { name: 'rbd not installed: null', outcome: { outcome: 'failed', message: 'spawn rbd ENOENT', errorCode: 'ENOENT' } as const, answers: null,
      why: /^could not run rbd \(ENOENT\): install the Ceph client tools/ },
  ])('probeRbdPool: $name', async ({ outcome, answers, why }) => {
    const probe = await probeRbdPool({ confFile: CONF, user: 'nova', pool: 'images', runner: scriptedRunner(outcome) });
    expect(probe.answers).toBe(answers);
    expect(probe.why).toMatch(why);
  });

  it('probeRbdPool: an abort is FERRY_ABORTED, never a verdict', async () => {
    await expect(probeRbdPool({ confFile: CONF, pool: 'images', runner: scriptedRunner({ outcome: 'aborted' }) }))
      .rejects.toMatchObject({ code: 'FERRY_ABORTED' });
  });
});
