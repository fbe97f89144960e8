import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { askClusterFsid, LIBRADOS_FSID_PY } from '../../../src/rbd/cluster-fsid.js';
import type { CommandOutcome, CommandRunner } from '../../../src/rbd/command-runner.js';
import { LIBRBD_PYTHON_DEFAULT } from '../../../src/rbd/librbd-copy.js';

// The fsid through librados (python3-rados), else `ceph fsid`. The runner stands in for both programs; the Python
// script itself runs below against stand-in `rados` modules (the real binding runs in every integration test that
// resolves the local cluster).

const FSID = '8830a20e-1ce9-4ad6-ad31-c6dc7a269792';
const CONF = '/etc/ceph/site-b.conf';
const exited = (exitCode: number, stdout: string, stderr = ''): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout, stderr });

function runner(python: CommandOutcome, ceph: CommandOutcome = exited(0, `${FSID}\n`)): CommandRunner & { calls: { file: string; args: readonly string[] }[] } {
  const calls: { file: string; args: readonly string[] }[] = [];
  return {
    calls,
    run: (file, args) => {
      calls.push({ file, args });
      return Promise.resolve(file === 'ceph' ? ceph : python);
    },
  };
}

describe('askClusterFsid', () => {
  it('asks librados through python (conf, user, connect timeout in s) and runs no ceph CLI', async () => {
    const fake = runner(exited(0, `${FSID.toUpperCase()}\n`));
    await expect(askClusterFsid({ confFile: CONF, user: 'nova', runner: fake, python: '/usr/bin/python3', connectTimeoutMs: 2_500 })).resolves.toBe(FSID);
    expect(fake.calls).toEqual([{ file: '/usr/bin/python3', args: ['-c', LIBRADOS_FSID_PY, CONF, 'nova', '3'] }]);
  });

  it.each<{ name: string; python: CommandOutcome }>([
    { name: 'no python3-rados (exit 3, "unavailable")', python: exited(3, "unavailable: No module named 'rados'\n") },
    { name: 'no python at all', python: { outcome: 'failed', message: 'spawn /usr/bin/python3 ENOENT', errorCode: 'ENOENT' } },
  ])('$name: `ceph fsid` answers instead', async ({ python }) => {
    const fake = runner(python);
    await expect(askClusterFsid({ confFile: CONF, runner: fake, python: '/usr/bin/python3' })).resolves.toBe(FSID);
    expect(fake.calls.map((call) => call.file)).toEqual(['/usr/bin/python3', 'ceph']);
    expect(fake.calls[0]?.args.slice(2)).toEqual([CONF, '', '10']);
  });

  it.each<{ name: string; out: CommandOutcome; message: string; hint: RegExp }>([
    { name: 'the mons do not answer', out: exited(110, '', '[errno 110] RADOS timed out (error connecting to the cluster)\n'),
      message: `librados get_fsid (-c ${CONF} --id nova) failed (exit 110): [errno 110] RADOS timed out (error connecting to the cluster)`, hint: /did not answer: check mon_host in/ },
    { name: 'no keyring for the user', out: exited(2, '', '[errno 2] RADOS object not found (error connecting to the cluster)\n'),
      message: `librados get_fsid (-c ${CONF} --id nova) failed (exit 2): [errno 2] RADOS object not found (error connecting to the cluster)`, hint: /client\.nova's keyring/ },
    { name: 'no conf file', out: exited(2, '', '[errno 2] RADOS object not found (error calling conf_read_file)\n'),
      message: `librados get_fsid (-c ${CONF} --id nova) failed (exit 2): [errno 2] RADOS object not found (error calling conf_read_file)`, hint: /exists and that ferry may read it/ },
    { name: 'an answer that is not an fsid', out: exited(0, 'hello\n'),
      message: `librados get_fsid (-c ${CONF} --id nova) failed (exit 0): hello`, hint: /by hand/ },
    { name: 'killed after its timeout', out: { outcome: 'timed-out', timeoutMs: 30_000, stdout: '', stderr: '' },
      message: `librados get_fsid (-c ${CONF} --id nova) did not finish within 30000 ms and was killed`, hint: /reaches the mons/ },
  ])('$name: FERRY_CEPH naming the cause, and no second try through the CLI', async ({ out, message, hint }) => {
    const fake = runner(out);
    await expect(askClusterFsid({ confFile: CONF, user: 'nova', runner: fake })).rejects.toMatchObject({ code: 'FERRY_CEPH', message, hint: expect.stringMatching(hint) });
    expect(fake.calls).toHaveLength(1);
  });

  it('an abort is FERRY_ABORTED', async () => {
    await expect(askClusterFsid({ confFile: CONF, runner: runner({ outcome: 'aborted' }) })).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
  });
});

describe('the Python script itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-fsid-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // -S: no site-packages, so only the stand-in `rados` below (or none) can be imported.
  const run = (modules: string | undefined, args: readonly string[]) => spawnSync(LIBRBD_PYTHON_DEFAULT, ['-S', '-c', LIBRADOS_FSID_PY, ...args],
    { encoding: 'utf8', env: { ...process.env, PYTHONPATH: modules ?? '' } });
  const standIn = (name: string, connect: string): string => {
    const modules = join(dir, name);
    mkdirSync(modules, { recursive: true });
    writeFileSync(join(modules, 'rados.py'), `import sys
class Error(Exception):
    def __init__(self, message, errno=None):
        Exception.__init__(self, message)
        self.errno = errno
class Rados:
    def __init__(self, conffile, rados_id):
        sys.stderr.write("conffile=%s rados_id=%s\\n" % (conffile, rados_id))
    def conf_set(self, key, value):
        sys.stderr.write("%s=%s\\n" % (key, value))
    def connect(self, timeout):
        sys.stderr.write("connect timeout=%s\\n" % timeout)
        ${connect}
    def get_fsid(self):
        return "${FSID}"
    def shutdown(self):
        pass
`);
    return modules;
  };

  it('prints the fsid librados reports, with the conf, the user and the timeouts it was given', () => {
    const out = run(standIn('ok', 'pass'), [CONF, 'nova', '7']);
    expect({ status: out.status, stdout: out.stdout }).toEqual({ status: 0, stdout: `${FSID}\n` });
    expect(out.stderr.trim().split('\n')).toEqual([`conffile=${CONF} rados_id=nova`, 'client_mount_timeout=7', 'rados_mon_op_timeout=7', 'connect timeout=7']);
    expect(run(standIn('ok', 'pass'), [CONF, '', '7']).stderr).toContain('rados_id=None');
  });

  it('exits with librados\' errno and its message on stderr', () => {
    const out = run(standIn('down', 'raise Error("[errno 110] RADOS timed out (error connecting to the cluster)", 110)'), [CONF, 'nova', '7']);
    expect({ status: out.status, stdout: out.stdout, last: out.stderr.trim().split('\n').at(-1) })
      .toEqual({ status: 110, stdout: '', last: '[errno 110] RADOS timed out (error connecting to the cluster)' });
  });

  it('says "unavailable" (exit 3) where the binding cannot be imported', () => {
    const out = run(undefined, [CONF, 'nova', '7']);
    expect(out.status).toBe(3);
    expect(out.stdout).toMatch(/^unavailable: No module named 'rados'/);
  });
});
