// ferry's .deb on a kolla compute node (issue 37): a host with no `nova` group (nova-compute runs in kolla's
// nova_compute container as kolla's nova, UID/GID 42436) and kolla-ansible's /etc/kolla. Before, the package's
// ferry-agent.socket (SocketGroup=nova) failed there with status=216/GROUP, and a numeric SocketGroup=42436 drop-in fails
// the same way while no group has that GID. Now postinst creates the system group nova with kolla's GID
// (debian/ferry-socket-group), the socket listens 0660 ferry:42436, and a process of kolla's nova UID/GID (what
// nova_compute runs as) has ferry copy an image into site-b through it; any other GID is refused.
// On the clean system of scripts/systemd/up-clean (a real systemd, /etc, /usr, /var throw-away overlays), without the
// group nova up-clean makes. Skipped (loudly) only when the machine cannot run systemd.
import { join } from 'node:path';
import { mkdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devcloud, markReached } from '../../helpers/devcloud.js';
import { imagesDeletedAfterAll, uploadImage } from '../../helpers/glance-admin.js';
import { cannotRunSystemd } from '../systemd/private-systemd.js';
import { cleanDown, cleanUp, inside } from '../deb/clean-system.js';
import { BUILD_MS, CLONE_MS, clientOf, HEAD_MS, kollaDebs } from '../../helpers/built-debs.js';

const reason = cannotRunSystemd();
if (reason !== '') console.warn(`\n${'!'.repeat(78)}\nKOLLA DEB TEST SKIPPED: cannot run systemd here: ${reason}\n${'!'.repeat(78)}\n`);
const root = process.cwd();
const stateDir = process.env.FERRY_DEVCLOUD_DIR ?? join(root, '.devcloud');
mkdirSync(stateDir, { recursive: true });
const SOCKET = '/run/ferry/agent.sock';
const KOLLA_NOVA = 42436;
/** A command inside that reads a file or asks systemd: seconds. */
const QUICK_MS = 30_000;
/** dpkg -i of both packages (postinst, sysusers, the socket's start), or one `ferry ensure` that copies 1 MiB. */
const SLOW_MS = 300_000;
const created = imagesDeletedAfterAll();
let deb = '';

/** Must succeed inside the clean system; its stdout. */
function ok(script: string, timeoutMs = QUICK_MS): string {
  const run = inside(script, timeoutMs);
  expect(run.code, `${script}\n${run.stdout}${run.stderr}`).toBe(0);
  return run.stdout;
}

/**
 * As kolla's nova in nova_compute: UID and GID 42436, no other group (the host has no account of that number), from `/`
 * (a directory nova may read; the test's own is the checkout, /root/ferry on a fresh machine, 0700 to nova).
 */
const asKollaNova = (command: string): string => `cd / && setpriv --reuid ${KOLLA_NOVA} --regid ${KOLLA_NOVA} --clear-groups -- ${command}`;

describe.skipIf(reason !== '')('the .deb on a kolla host: no nova group (scripts/systemd/up-clean)', () => {
  beforeAll(() => {
    ({ deb } = kollaDebs(stateDir, false));
    const up = cleanUp();
    expect(up.code, up.stdout + up.stderr).toBe(0);
    markReached('systemd');
    // A kolla compute node: kolla-ansible's /etc/kolla, no group nova (up-clean makes one for Debian's nova-common).
    ok('groupdel nova && mkdir -p /etc/kolla/nova-compute');
  }, HEAD_MS + CLONE_MS + BUILD_MS + 180_000 + QUICK_MS);

  afterAll(() => {
    const down = cleanDown();
    expect(down.code, `scripts/systemd/down: ${down.stdout}${down.stderr}`).toBe(0);
  }, 120_000);

  it('install: postinst creates the system group nova with kolla\'s GID, and the socket listens 0660 ferry:42436', () => {
    expect(inside('getent group nova', QUICK_MS).code).not.toBe(0);
    expect(inside(`getent group ${KOLLA_NOVA}`, QUICK_MS).code).not.toBe(0);
    const installed = ok(`dpkg -i '${clientOf(deb)}' '${deb}' </dev/null 2>&1`, SLOW_MS);
    expect(installed).toContain(`created the system group nova with GID ${KOLLA_NOVA}`);
    expect(ok('getent group nova').trim()).toBe(`nova:x:${KOLLA_NOVA}:`);
    expect(ok('systemctl is-active ferry-agent.socket').trim()).toBe('active');
    expect(ok(`stat -c '%a %U %g' ${SOCKET}`).trim()).toBe(`660 ferry ${KOLLA_NOVA}`);
    expect(ok('journalctl -u ferry-agent.socket --no-pager -o cat')).not.toContain('216/GROUP');
  }, SLOW_MS + 6 * QUICK_MS);

  it('kolla\'s nova (UID/GID 42436) has ferry copy an image into site-b through the socket; another GID is refused', async () => {
    const facts = devcloud();
    const siteB = facts.ceph['site-b'];
    const monHost = /^mon_host *= *(.+)$/m.exec(readFileSync(siteB.conf, 'utf8'))?.[1] ?? '';
    // What kolla-ansible writes (the merged nova.conf, with a secret of nova's) and what the operator adds for ferry.
    ok(`set -e
mkdir -p /etc/ceph
printf '[global]\\nfsid = %s\\nmon_host = %s\\n\\n[client]\\nkeyring = /etc/ceph/ceph.$name.keyring\\n' '${siteB.fsid}' '${monHost}' >/etc/ceph/ceph.conf
printf '[DEFAULT]\\ntransport_url = rabbit://openstack:KOLLA-RABBIT-SECRET@192.0.2.1:5672//\\n\\n[libvirt]\\nimages_type = rbd\\nimages_rbd_pool = vms\\nimages_rbd_ceph_conf = /etc/ceph/ceph.conf\\nrbd_user = nova\\nimages_rbd_glance_store_name = site-b\\nimages_rbd_ferry_agent_socket = /run/ferry/agent.sock\\n' >/etc/kolla/nova-compute/nova.conf
chmod 0660 /etc/kolla/nova-compute/nova.conf
install -m 0600 -o root -g root '${join(siteB.conf, '..', 'ceph.client.ferry.keyring')}' /etc/ceph/ceph.client.ferry.keyring
install -m 0600 -o root -g root '${join(facts.dir, 'clouds.yaml')}' /etc/ferry/clouds.yaml
sed -i 's|^#OS_CLOUD=.*|OS_CLOUD=devcloud-ferry-appcred|' /etc/default/ferry-agent
echo 'FERRY_NOVA_CONF=/etc/kolla/nova-compute/nova.conf' >>/etc/default/ferry-agent`);
    const id = await uploadImage({ name: 'it-kolla-deb', store: 'site-a' });
    created.push(id);
    const ensure = inside(asKollaNova(`env -i PATH=/usr/bin:/bin HOME=/nonexistent /usr/bin/ferry ensure ${id} --store site-b --agent ${SOCKET} --json`), SLOW_MS);
    const journal = (): string => inside('journalctl -u ferry-agent.service -n 40 --no-pager -o cat', QUICK_MS).stdout;
    expect(ensure.code, `${ensure.stdout}${ensure.stderr}\n${ensure.code === 0 ? '' : journal()}`).toBe(0);
    expect(JSON.parse(ensure.stdout)).toMatchObject({ image: id, store: 'site-b', copied: true, target: { fsid: siteB.fsid, image: id } });
    // The agent read kolla's nova.conf (its options, copied by root), not nova's secret.
    const subset = ok('cat /run/ferry-agent/nova.conf');
    expect(subset).toContain('images_rbd_glance_store_name = site-b');
    expect(subset).not.toContain('KOLLA-RABBIT-SECRET');
    // Neither the socket's group nor its owner: refused by the socket's mode.
    const other = inside(`setpriv --reuid 42437 --regid 42437 --clear-groups -- curl -sS --unix-socket ${SOCKET} -o /dev/null -w '%{http_code}' http://agent/healthz`, QUICK_MS);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/Permission denied|Couldn't connect/);
  }, 60_000 + SLOW_MS + 5 * QUICK_MS);
});
