// ferry's Debian package as an operator meets it, on a clean system (scripts/systemd/up-clean: a real systemd whose
// /etc, /usr and /var are throw-away overlays): install → the socket is active and `ferry ensure` goes through it to
// the agent, which copies site-a → site-b, with the units as shipped (credentials from root-only files, nova.conf's
// options copied by root, no nova or ceph group, the sandbox); an upgrade to a newer build keeps the edited
// /etc/default/ferry-agent (and makes an old 0644 copy of it root's alone);
// python3-nova's reinstall re-applies the nova patch through the dpkg trigger, and a patch that no longer applies is
// reported loudly; remove keeps the configuration, purge takes it and the user ferry.
// The packages: FERRY_DEB and FERRY_DEB_NEWER (built earlier), else built here from one artifact (about 10 min).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devcloud, markReached } from '../../helpers/devcloud.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { cannotRunSystemd } from '../systemd/private-systemd.js';
import { cleanDown, cleanUp, inside } from './clean-system.js';

const root = process.cwd();
const reason = cannotRunSystemd();
const work = mkdtempSync(join(tmpdir(), 'ferry-deb-'));
const created: string[] = [];
let deb = process.env.FERRY_DEB ?? '';
let newer = process.env.FERRY_DEB_NEWER ?? '';
const SOCKET = '/run/ferry/agent.sock';
const NOVA_FILE = '/usr/lib/python3/dist-packages/nova/virt/libvirt/imagebackend.py';

function build(args: readonly string[]): string {
  const built = spawnSync('bash', [join(root, 'scripts/build-deb.sh'), '--out', join(work, 'out'), ...args], { encoding: 'utf8', timeout: 1_200_000 });
  expect(built.status, built.stderr.slice(-3000)).toBe(0);
  expect(built.stderr).toContain('lintian: no errors, no warnings');
  return built.stdout.trim().split('\n').at(-1) ?? '';
}

/** Must succeed inside; returns stdout. */
function ok(script: string, timeoutMs?: number): string {
  const run = inside(script, timeoutMs);
  expect(run.code, `${script}\n${run.stdout}${run.stderr}`).toBe(0);
  return run.stdout;
}

/**
 * A compute node's configuration for site-b, as an operator writes it after installing the package (docs/install.md):
 * nova's files with nova's owners and modes (nova.conf with nova's own secrets in it, which the agent must never hold),
 * and the agent's Keystone credentials in /etc/ferry/clouds.yaml, root's alone.
 */
function configureComputeNode(): void {
  const facts = devcloud();
  const siteB = facts.ceph['site-b'];
  const conf = readFileSync(siteB.conf, 'utf8');
  const monHost = /^mon_host *= *(.+)$/m.exec(conf)?.[1] ?? '';
  const keyring = join(siteB.conf, '..', 'ceph.client.nova.keyring');
  ok(`set -e
mkdir -p /etc/ceph /etc/nova
printf '[global]\\nfsid = %s\\nmon_host = %s\\n\\n[client]\\nkeyring = /etc/ceph/ceph.$name.keyring\\n' '${siteB.fsid}' '${monHost}' >/etc/ceph/ceph.conf
printf '[database]\\nconnection = mysql+pymysql://nova:NOVA-DB-SECRET@192.0.2.1/nova\\n\\n[libvirt]\\nimages_type = rbd\\nimages_rbd_pool = vms\\nimages_rbd_ceph_conf = /etc/ceph/ceph.conf\\nrbd_user = nova\\nimages_rbd_glance_store_name = site-b\\n' >/etc/nova/nova.conf
chown root:nova /etc/nova/nova.conf && chmod 0640 /etc/nova/nova.conf
install -m 0600 -o root -g root '${keyring}' /etc/ceph/ceph.client.nova.keyring
install -m 0600 -o root -g root '${join(facts.dir, 'clouds.yaml')}' /etc/ferry/clouds.yaml
# The operator's edit of the conffile: which entry of /etc/ferry/clouds.yaml is the agent's.
sed -i 's|^#OS_CLOUD=.*|OS_CLOUD=devcloud-admin-appcred|' /etc/default/ferry-agent
grep -q '^OS_CLOUD=devcloud-admin-appcred' /etc/default/ferry-agent`);
}

/** `ferry ensure` through the agent's socket, run with no credentials at all: only the agent has them. */
function ensureThroughSocket(id: string): Record<string, unknown> {
  const run = inside(`env -i PATH=/usr/bin:/bin HOME=/nonexistent /usr/bin/ferry ensure ${id} --store site-b --agent ${SOCKET} --json`, 300_000);
  // The agent's side of a failure: what systemd and the agent logged.
  const journal = (): string => inside('systemctl status ferry-agent.service --no-pager; journalctl -u ferry-agent.service -n 40 --no-pager -o cat').stdout;
  expect(run.code, run.code === 0 ? '' : `${run.stdout}${run.stderr}\n${journal()}`).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe.skipIf(reason !== '')('the Debian package on a clean system (scripts/systemd/up-clean)', () => {
  beforeAll(() => {
    if (deb === '' || newer === '') {
      const artifact = spawnSync('bash', [join(root, 'scripts/build-artifact.sh'), '--out', join(work, 'artifact')], { encoding: 'utf8', timeout: 600_000 });
      expect(artifact.status, artifact.stderr).toBe(0);
      const tarball = artifact.stdout.trim().split('\n').at(-1) ?? '';
      deb = build(['--artifact', tarball]);
      newer = build(['--artifact', tarball, '--version-suffix', '+b2']);
    }
    expect(existsSync(deb) && existsSync(newer), `${deb} ${newer}`).toBe(true);
    const up = cleanUp();
    expect(up.code, up.stdout + up.stderr).toBe(0);
    markReached('systemd');
  }, 2_700_000);

  afterAll(async () => {
    const down = cleanDown();
    if (down.code !== 0) console.error(`scripts/systemd/down: ${down.stdout}${down.stderr}`);
    for (const id of created) {
      await waitUnlocked(id);
      await deleteImage(id);
    }
    rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it('deb: installs on a clean system: the socket is active, the files are where Debian keeps them', () => {
    expect(inside('getent passwd ferry').code).not.toBe(0); // clean: no user ferry before
    ok(`dpkg -i '${deb}' </dev/null`);
    expect(ok('systemctl is-active ferry-agent.socket').trim()).toBe('active');
    expect(ok('systemctl is-enabled ferry-agent.socket').trim()).toBe('enabled');
    expect(ok(`stat -c '%a %U %G' ${SOCKET}`).trim()).toBe('660 ferry nova');
    expect(ok('getent passwd ferry')).toMatch(/^ferry:x:\d+:\d+:.*:\/nonexistent:\/usr\/sbin\/nologin$/m);
    expect(ok('/usr/bin/ferry --version').trim()).toBe('0.1.0');
    expect(ok("dpkg-query -W -f '${Conffiles}' ferry")).toContain('/etc/default/ferry-agent');
    // Issue 25: the settings file may hold OS_* secrets: root's alone, as dpkg installed it (was 0644).
    expect(ok("stat -c '%a %U %G' /etc/default/ferry-agent").trim()).toBe('600 root root');
    expect(ok("stat -c '%a %U %G' /etc/ferry").trim()).toBe('755 root root'); // where /etc/ferry/clouds.yaml (0600) goes
    // The units as systemd reads them from the package: silent, their ferry(1) and docs there (Documentation=).
    const verify = inside('systemd-analyze verify /lib/systemd/system/ferry-agent.socket /lib/systemd/system/ferry-agent.service /lib/systemd/system/ferry-sync.service');
    expect(verify.stdout + verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    for (const doc of ['agent.md', 'install.md', 'prewarm.md', 'security.md']) ok(`head -n 1 /usr/share/doc/ferry/${doc} | grep -q '^# '`);
    // ferry's Glance policy and access rules, for the Glance API nodes, as in the tree (docs/security.md).
    for (const file of ['ferry-policy.yaml', 'access-rules-glance-path.json', 'access-rules-transfer.json', 'opt-in/nova-fallback.yaml', 'opt-in/private-images.yaml']) {
      expect(ok(`cat /usr/share/ferry/glance/${file}`), file).toBe(readFileSync(`packaging/glance/${file}`, 'utf8'));
    }
    for (const unit of ['ferry-agent.service', 'ferry-sync.service']) {
      const rated = ok(`systemd-analyze security --offline=yes --no-pager /lib/systemd/system/${unit} | tail -n 1`);
      expect(Number(/exposure level for \S+: (\d+\.\d)/.exec(rated)?.[1]), rated).toBeLessThanOrEqual(3.0);
    }
    expect(ok('systemctl show ferry-agent.service -p ExecStart')).toContain('argv[]=/usr/bin/python3 -IS /usr/lib/ferry/bin/ferry-notify-exec /usr/bin/ferry agent ');
    expect(ok('systemctl show ferry-sync.service -p ExecStart')).toContain('path=/usr/bin/ferry ;');
    expect(ok('/usr/bin/python3 -c "import ferry_agent; print(ferry_agent.__file__)"').trim()).toBe('/usr/lib/python3/dist-packages/ferry_agent.py');
    ok('test -s /usr/share/man/man1/ferry.1.gz && zcat /usr/share/man/man1/ferry.1.gz | grep -q "^.SS \\"ferry ensure\\""');
    ok('grep -q "complete -F _ferry ferry" /usr/share/bash-completion/completions/ferry && head -n 1 /usr/share/zsh/vendor-completions/_ferry | grep -q "^#compdef ferry"');
    ok('/usr/lib/ferry/integrations/nova/ferry-nova-patch --help >/dev/null && ls /usr/lib/ferry/integrations/nova/nova-26-imagebackend.patch');
    ok('zcat /usr/share/doc/ferry/changelog.gz | head -n 1 | grep -q "^ferry (0.1.0)" && grep -q "^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" /usr/share/doc/ferry/copyright');
  }, 300_000);

  it('deb: ferry ensure goes through the socket: the socket starts the agent, which copies site-a → site-b', async () => {
    configureComputeNode();
    expect(ok('systemctl is-active ferry-agent.service || true').trim()).not.toBe('active');
    const id = await uploadImage({ name: 'it-deb-ensure', store: 'site-a' });
    created.push(id);
    const doc = ensureThroughSocket(id);
    expect(doc).toMatchObject({ image: id, store: 'site-b', copied: true, target: { fsid: devcloud().ceph['site-b'].fsid, image: id } });
    expect(ok('systemctl is-active ferry-agent.service').trim()).toBe('active');
    expect(ok('systemctl show ferry-agent.service -p MainPID -p User')).toContain('User=ferry');
    // The agent as installed: user ferry and no other group; nova.conf's options (not its secrets) in /run/ferry-agent.
    const pid = ok('systemctl show -p MainPID --value ferry-agent.service').trim();
    expect(ok(`id -g ferry`).trim()).toBe(/^Groups:\s*(.*)$/m.exec(ok(`cat /proc/${pid}/status`))?.[1]?.trim());
    const subset = ok('cat /run/ferry-agent/nova.conf');
    expect(subset).toContain('images_rbd_glance_store_name = site-b');
    expect(subset).not.toContain('NOVA-DB-SECRET');
  }, 600_000);

  it('deb: an upgrade to a newer build keeps the edited conffile (made root 0600 if an older package left it 0644), and the agent answers again', () => {
    const before = ok('cat /etc/default/ferry-agent');
    // What the package before issue 25 installed: 0644. dpkg keeps an edited conffile's mode; postinst does not.
    ok('chmod 0644 /etc/default/ferry-agent');
    const upgrade = ok(`dpkg -i '${newer}' </dev/null 2>&1`);
    expect(upgrade).toContain('ferry: /etc/default/ferry-agent was root:root 644; now root:root 600');
    expect(ok("stat -c '%a %U %G' /etc/default/ferry-agent").trim()).toBe('600 root root');
    expect(ok("dpkg-query -W -f '${Version}' ferry")).toBe('0.1.0+b2');
    expect(ok('cat /etc/default/ferry-agent')).toBe(before);
    expect(before).toContain('OS_CLOUD=devcloud-admin-appcred');
    ok('test ! -e /etc/default/ferry-agent.dpkg-new && test ! -e /etc/default/ferry-agent.dpkg-dist');
    expect(ok('systemctl is-active ferry-agent.socket').trim()).toBe('active');
    const id = created[0] ?? '';
    expect(ensureThroughSocket(id)).toMatchObject({ image: id, store: 'site-b', copied: false });
  }, 600_000);

  it('deb: a rollback installs the previous build over the newer one: the edited conffile stays, the agent answers again', () => {
    const before = ok('cat /etc/default/ferry-agent');
    ok(`dpkg -i '${deb}' </dev/null`);
    expect(ok("dpkg-query -W -f '${Version}' ferry")).toBe('0.1.0');
    expect(ok('cat /etc/default/ferry-agent')).toBe(before);
    expect(ok('systemctl is-active ferry-agent.socket').trim()).toBe('active');
    const id = created[0] ?? '';
    expect(ensureThroughSocket(id)).toMatchObject({ image: id, store: 'site-b', copied: false });
  }, 600_000);

  it('deb: python3-nova reinstalled → the dpkg trigger applies the nova patch again; one that no longer applies is said loudly', () => {
    ok("sed -i 's/^FERRY_NOVA_PATCH=.*/FERRY_NOVA_PATCH=yes/' /etc/default/ferry-agent && /usr/lib/ferry/nova-integration sync");
    ok('/usr/lib/ferry/integrations/nova/ferry-nova-patch check');
    // What an upgrade of python3-nova does to the file: nova's own copy replaces the patched one.
    const reinstall = ok('DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall python3-nova </dev/null 2>&1', 900_000);
    expect(reinstall).toMatch(/Processing triggers for ferry/);
    ok('/usr/lib/ferry/integrations/nova/ferry-nova-patch check'); // patched again, by the trigger
    expect(JSON.parse(ok('cat /var/lib/ferry/nova-integration.json'))).toMatchObject({ state: 'applied', nova_package: expect.stringMatching(/^2:26\./) });
    expect(ok('journalctl -t ferry-nova-integration --no-pager -o cat')).toContain('nova patch applied again after python3-nova changed imagebackend.py');

    // A nova whose file the patch no longer fits (pristine file, one changed line in Rbd.copy_to_store's context).
    ok(`/usr/lib/ferry/integrations/nova/ferry-nova-patch revert && sed -i 's/^\\(\\s*\\)def copy_to_store(self, context, image_meta):/&\\n\\1    # changed by a newer nova/' ${NOVA_FILE} && grep -q 'changed by a newer nova' ${NOVA_FILE}`);
    ok(`dpkg-trigger --no-await ${NOVA_FILE} && dpkg --triggers-only --pending </dev/null`);
    expect(inside('/usr/lib/ferry/integrations/nova/ferry-nova-patch check').code).not.toBe(0);
    expect(JSON.parse(ok('cat /var/lib/ferry/nova-integration.json'))).toMatchObject({ state: 'failed' });
    expect(ok('journalctl -t ferry-nova-integration -p err --no-pager -o cat')).toContain('NOVA PATCH NO LONGER APPLIES');
    // ... and the agent's /healthz says so too: 503, the failing check nova_integration
    const health = ok(`curl -s -o - -w '\\n%{http_code}' --unix-socket ${SOCKET} http://agent/healthz`).trim().split('\n');
    expect(health.at(-1)).toBe('503');
    expect(JSON.parse(health.slice(0, -1).join('\n'))).toMatchObject({ ok: false, failing: ['nova_integration'],
      checks: { nova_integration: { ok: false, state: 'failed', code: 'FERRY_NOVA_INTEGRATION' } } });
  }, 1_200_000);

  it('deb: remove keeps the configuration; purge removes it and the user ferry', () => {
    ok('dpkg -r ferry </dev/null');
    ok('test ! -e /usr/bin/ferry && test ! -e /usr/lib/ferry/node/bin/node');
    ok('test -f /etc/default/ferry-agent && grep -q "^OS_CLOUD=devcloud-admin-appcred" /etc/default/ferry-agent');
    ok('getent passwd ferry');
    expect(ok("dpkg-query -W -f '${db:Status-Status}' ferry")).toBe('config-files');
    expect(inside('systemctl is-active ferry-agent.socket').stdout.trim()).not.toBe('active');
    ok('dpkg -P ferry </dev/null');
    ok('test ! -e /etc/default/ferry-agent && test ! -e /var/lib/ferry');
    expect(inside('getent passwd ferry').code).not.toBe(0);
    expect(inside('getent group ferry').code).not.toBe(0);
    expect(inside('dpkg-query -W ferry').code).not.toBe(0);
  }, 300_000);
});
