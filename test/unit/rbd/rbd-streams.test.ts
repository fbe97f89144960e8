import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashRbdSnapshot, pipeRbdDiff } from '../../../src/rbd/rbd-streams.js';

// The two data streams spawn rbd themselves (not through the command runner): a stand-in `rbd` records its argv, so
// that what the real one would be given is seen. Issue 25, finding 2: the specs come after `--`.

const dir = mkdtempSync(join(tmpdir(), 'ferry-rbd-streams-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const calls = join(dir, 'calls');
const fakeRbd = join(dir, 'rbd');
writeFileSync(fakeRbd, `#!/bin/sh\nmkdir -p ${calls}\nprintf '%s\\n' "$@" > "$(mktemp ${calls}/call.XXXXXX)"\ncat > /dev/null <&0 2>/dev/null || true\nexit 0\n`);
chmodSync(fakeRbd, 0o755);

/** Each recorded call's arguments from its `--` on. */
function recordedTails(): string[][] {
  const tails = readdirSync(calls).map((file) => {
    const args = readFileSync(join(calls, file), 'utf8').split('\n').slice(0, -1);
    return args.slice(args.indexOf('--'));
  });
  rmSync(calls, { recursive: true, force: true });
  return tails.sort((a, b) => a.join(' ').localeCompare(b.join(' ')));
}

describe('rbd streams put -- before their specs', () => {
  const cli = { confFile: '/etc/ceph/b.conf', rbdBinary: fakeRbd };
  it('pipeRbdDiff: export-diff SPEC - and import-diff - SPEC', async () => {
    await pipeRbdDiff(cli, { pool: 'images', image: 'src', snapshot: 'snap' }, cli, { pool: 'images', image: 'dst' }, new AbortController().signal);
    expect(recordedTails()).toEqual([['--', '-', 'images/dst'], ['--', 'images/src@snap', '-']]);
  });

  it('hashRbdSnapshot: export SPEC -', async () => {
    await hashRbdSnapshot(cli, { pool: 'images', image: 'img', snapshot: 'snap' }, 'sha512', new AbortController().signal);
    expect(recordedTails()).toEqual([['--', 'images/img@snap', '-']]);
  });
});
