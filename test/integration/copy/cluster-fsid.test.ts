import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { askClusterFsid } from '../../../src/rbd/cluster-fsid.js';
import { execFileRunner, type CommandRunner } from '../../../src/rbd/command-runner.js';
import { devcloud, FERRY } from '../../helpers/devcloud.js';

// The local cluster's fsid through librados (python3-rados, what ensure, the agent and the direct transfer ask), and
// through `ceph fsid` where the binding cannot run, against the dev cloud's two clusters.

const dir = mkdtempSync(join(tmpdir(), 'ferry-it-fsid-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real runner, with the programs it ran. */
function recording(): CommandRunner & { files: string[] } {
  const files: string[] = [];
  return { files, run: (file, args, options) => { files.push(file); return execFileRunner.run(file, args, options); } };
}

describe('askClusterFsid against the dev cloud', () => {
  it.each([['site-a', FERRY.transferRbdUser], ['site-b', FERRY.rbdUser]] as const)('%s as client.%s: librados answers the cluster\'s fsid; no ceph CLI runs', async (site, user) => {
    const runner = recording();
    await expect(askClusterFsid({ confFile: devcloud().ceph[site].conf, user, runner })).resolves.toBe(devcloud().ceph[site].fsid);
    expect(runner.files).toEqual(['/usr/bin/python3']);
  });

  it('without a python that has the binding (-S: no site-packages), `ceph fsid` answers the same fsid', async () => {
    const noBinding = join(dir, 'python-without-site');
    writeFileSync(noBinding, '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n', { mode: 0o755 });
    const runner = recording();
    await expect(askClusterFsid({ confFile: devcloud().ceph['site-b'].conf, user: FERRY.rbdUser, runner, python: noBinding })).resolves.toBe(devcloud().ceph['site-b'].fsid);
    expect(runner.files).toEqual([noBinding, 'ceph']);
  });

  it('mons that do not answer: FERRY_CEPH after the connect timeout (errno 110), naming mon_host', async () => {
    const site = readFileSync(devcloud().ceph['site-b'].conf, 'utf8');
    const keyring = /^\s*keyring\s*=\s*(.+)$/m.exec(site)?.[1] ?? '';
    const dead = join(dir, 'dead-mons.conf');
    writeFileSync(dead, `[global]\nmon_host = 127.0.0.1:1\nkeyring = ${keyring}\n`);
    const started = Date.now();
    await expect(askClusterFsid({ confFile: dead, user: 'nova', connectTimeoutMs: 2_000 })).rejects.toMatchObject({
      code: 'FERRY_CEPH', message: expect.stringMatching(/^librados get_fsid \(-c .*dead-mons\.conf --id nova\) failed \(exit 110\): \[errno 110\]/) as unknown,
      hint: expect.stringMatching(/did not answer: check mon_host/) as unknown });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a cephx user with no keyring: FERRY_CEPH naming the keyring', async () => {
    await expect(askClusterFsid({ confFile: devcloud().ceph['site-b'].conf, user: 'nobody-here' })).rejects.toMatchObject({
      code: 'FERRY_CEPH', hint: expect.stringMatching(/client\.nobody-here's keyring/) as unknown });
  });
});
