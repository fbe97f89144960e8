// debian/ferry-socket-group: the group of the agent's socket on a host without a `nova` group (issue 37, kolla).
// ferry-agent.socket says SocketGroup=nova; systemd fails it with status=216/GROUP when no group nova exists, and a
// numeric SocketGroup=42436 too while no group has that GID (seen with systemd 252 here). The script decides from an
// /etc/group and whether kolla-ansible's /etc/kolla exists, and postinst runs it before the socket starts.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = process.cwd();
const script = join(root, 'debian/ferry-socket-group');
/** One run of the script: a few awk and cut calls. */
const SCRIPT_MS = 10_000;
let dir = '';

const GROUPS_DEBIAN = 'root:x:0:\nnova:x:995:\nferry:x:994:\n';
const GROUPS_KOLLA = 'root:x:0:\nkolla:x:1001:\ndocker:x:998:kolla\n';

function run(action: string, groups: string, options: { kolla: boolean; gid?: string }): { code: number; stdout: string; stderr: string } {
  const groupFile = join(dir, 'group');
  writeFileSync(groupFile, groups);
  const kollaDir = join(dir, 'etc-kolla');
  rmSync(kollaDir, { recursive: true, force: true });
  if (options.kolla) mkdirSync(kollaDir);
  // groupadd as the script calls it, on the test's group file: what the real one does to /etc/group.
  const groupadd = join(dir, 'groupadd');
  writeFileSync(groupadd, `#!/bin/sh\n[ "$1 $2" = "--system --gid" ] || exit 9\necho "$4:x:$3:" >>"${groupFile}"\n`);
  chmodSync(groupadd, 0o755);
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', FERRY_GROUP_FILE: groupFile, FERRY_KOLLA_DIR: kollaDir, FERRY_GROUPADD: groupadd };
  if (options.gid !== undefined) env.FERRY_KOLLA_NOVA_GID = options.gid;
  const result = spawnSync('sh', [script, action], { encoding: 'utf8', timeout: SCRIPT_MS, env });
  return { code: result.status ?? -1, stdout: result.stdout.trim(), stderr: result.stderr };
}

describe('debian/ferry-socket-group', { timeout: SCRIPT_MS * 2 }, () => {
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ferry-socket-group-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    { name: 'a Debian node (nova-common\'s group)', groups: GROUPS_DEBIAN, kolla: false, gid: undefined, decision: 'keep 995' },
    { name: 'a kolla host whose operator made nova with kolla\'s GID', groups: `${GROUPS_KOLLA}nova:x:42436:\n`, kolla: true, gid: undefined, decision: 'keep 42436' },
    { name: 'a kolla host without nova', groups: GROUPS_KOLLA, kolla: true, gid: undefined, decision: 'create 42436' },
    { name: 'a kolla host, images built with another nova GID', groups: GROUPS_KOLLA, kolla: true, gid: '42500', decision: 'create 42500' },
    { name: 'a kolla host where kolla\'s GID is another group\'s', groups: `${GROUPS_KOLLA}libvirt-qemu:x:42436:\n`, kolla: true, gid: undefined, decision: 'conflict libvirt-qemu 42436' },
    { name: 'a Debian node before nova-common', groups: 'root:x:0:\n', kolla: false, gid: undefined, decision: 'wait' },
    { name: 'a GID that is no number', groups: GROUPS_KOLLA, kolla: true, gid: 'nova', decision: 'invalid FERRY_KOLLA_NOVA_GID \'nova\'' },
  ])('$name: $decision', ({ groups, kolla, gid, decision }) => {
    const result = run('decide', groups, { kolla, gid });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(decision);
  });

  it('ensure on a kolla host without nova creates the system group nova with kolla\'s GID, once', () => {
    const first = run('ensure', GROUPS_KOLLA, { kolla: true });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('created the system group nova with GID 42436');
    const groups = readFileSync(join(dir, 'group'), 'utf8');
    expect(groups.split('\n').filter((line) => line.startsWith('nova:'))).toEqual(['nova:x:42436:']);
    const again = spawnSync('sh', [script, 'decide'], { encoding: 'utf8', timeout: SCRIPT_MS, env: { PATH: process.env.PATH, FERRY_GROUP_FILE: join(dir, 'group'), FERRY_KOLLA_DIR: join(dir, 'etc-kolla') } });
    expect(again.stdout.trim()).toBe('keep 42436');
  });

  it.each([
    { name: 'a Debian node', groups: GROUPS_DEBIAN, kolla: false, says: '' },
    { name: 'a kolla host whose nova has another GID', groups: `${GROUPS_KOLLA}nova:x:995:\n`, kolla: true, says: 'nova_compute must run with that GID' },
    { name: 'a conflict', groups: `${GROUPS_KOLLA}other:x:42436:\n`, kolla: true, says: 'SocketGroup=other' },
    { name: 'before nova-common', groups: 'root:x:0:\n', kolla: false, says: 'nova-common creates it' },
  ])('ensure on $name changes no group and says why', ({ groups, kolla, says }) => {
    const result = run('ensure', groups, { kolla });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(dir, 'group'), 'utf8')).toBe(groups);
    if (says === '') expect(result.stderr).toBe('');
    else expect(result.stderr).toContain(says);
  });

  it('ensure refuses a GID that is no number (exit 2, naming the variable)', () => {
    const result = run('ensure', GROUPS_KOLLA, { kolla: true, gid: '4243x' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('FERRY_KOLLA_NOVA_GID');
  });

  it('the package installs it and postinst runs it before debhelper starts the socket', () => {
    expect(readFileSync(join(root, 'debian/rules'), 'utf8')).toContain('install -D -m 0755 debian/ferry-socket-group $(PKG)/usr/lib/ferry/socket-group');
    const postinst = readFileSync(join(root, 'debian/ferry.postinst'), 'utf8');
    const call = postinst.indexOf('/usr/lib/ferry/socket-group ensure');
    expect(call).toBeGreaterThan(0);
    expect(call).toBeLessThan(postinst.indexOf('#DEBHELPER#'));
  });
});
