import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askClusterFsid } from '../../../src/rbd/cluster-fsid.js';
import type { CommandOptions, CommandOutcome, CommandRunner } from '../../../src/rbd/command-runner.js';
import { pythonProgramText } from '../../../src/rbd/python-program.js';

// The fsid through librados (python3-rados), else `ceph fsid`. The runner stands in for both programs; the Python
// program itself (src/rbd/python/librados_fsid.py) runs against a stand-in `rados` in test/unit/rbd/python/, and
// against the real binding in every integration test that resolves the local cluster.

const FSID = '8830a20e-1ce9-4ad6-ad31-c6dc7a269792';
const CONF = '/etc/ceph/site-b.conf';
const exited = (exitCode: number, stdout: string, stderr = ''): CommandOutcome => ({ outcome: 'exited', exitCode, signal: null, stdout, stderr });

type Call = { file: string; args: readonly string[]; cwd: CommandOptions['cwd'] };
function runner(python: CommandOutcome, ceph: CommandOutcome = exited(0, `${FSID}\n`)): CommandRunner & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    run: (file, args, options) => {
      calls.push({ file, args, cwd: options.cwd });
      return Promise.resolve(file === 'ceph' ? ceph : python);
    },
  };
}

describe('askClusterFsid', () => {
  it('asks librados through python, isolated from / (conf, user, connect timeout in s), and runs no ceph CLI', async () => {
    const fake = runner(exited(0, `${FSID.toUpperCase()}\n`));
    await expect(askClusterFsid({ confFile: CONF, user: 'nova', runner: fake, python: '/usr/bin/python3', connectTimeoutMs: 2_500 })).resolves.toBe(FSID);
    expect(fake.calls).toEqual([{ file: '/usr/bin/python3', args: ['-I', '-c', pythonProgramText('librados_fsid'), CONF, 'nova', '3'], cwd: '/' }]);
  });

  it('a relative ceph.conf is given to the python as an absolute path (it runs from /); messages name it as given', async () => {
    const fake = runner(exited(110, '', '[errno 110] RADOS timed out (error connecting to the cluster)\n'));
    await expect(askClusterFsid({ confFile: 'site-b.conf', runner: fake })).rejects.toMatchObject({ message: expect.stringContaining('(-c site-b.conf)') as unknown });
    expect(fake.calls[0]?.args[3]).toBe(join(process.cwd(), 'site-b.conf'));
  });

  it.each<{ name: string; python: CommandOutcome }>([
    { name: 'no python3-rados (exit 3, "unavailable")', python: exited(3, "unavailable: No module named 'rados'\n") },
    { name: 'no python at all', python: { outcome: 'failed', message: 'spawn /usr/bin/python3 ENOENT', errorCode: 'ENOENT' } },
  ])('$name: `ceph fsid` answers instead', async ({ python }) => {
    const fake = runner(python);
    await expect(askClusterFsid({ confFile: CONF, runner: fake, python: '/usr/bin/python3' })).resolves.toBe(FSID);
    expect(fake.calls.map((call) => call.file)).toEqual(['/usr/bin/python3', 'ceph']);
    expect(fake.calls[0]?.args.slice(3)).toEqual([CONF, '', '10']);
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
