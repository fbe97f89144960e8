// integrations/ansible's role ferry_agent run for real, as a compute node runs it (issue 37): ansible-playbook with a
// local connection inside a clean private systemd (scripts/systemd/up-clean: /etc, /usr and /var are throw-away
// overlays), on a node configured as nova's deployment leaves it (nova.conf for site-b, nova's keyring, python3-nova
// from Debian 12, a nova-compute unit) and the vars an operator gives: both .debs, ferry's least-privilege identity
// (the Glance path's application credential) and its read-only cephx key, the nova patch kept by the package, the
// metrics listener. The first run installs and configures everything and restarts nova-compute; the second changes
// nothing (changed=0); then nova 26's real Rbd.clone(), from the patched python3-nova the package keeps, clones a
// tenant's private image through the agent the role enabled.
// nova-compute itself cannot run here (no libvirt, message queue or database): nova-compute.service is a stand-in
// (nova_compute_standin.py) that does what of nova-compute's start matters to ferry — nova's own config parsing of
// its files and the import of its image backend — so a restart is seen as a new process that read the new options.
// The packages: FERRY_DEB (ferry's .deb, python3-ferry-agent's beside it), else built by scripts/build-deb.sh --out
// into the dev cloud's directory. Needs Debian's `ansible` (community.general's ini_file) and python3-apt (the apt
// module), installed when missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLONE_MS, HEAD_MS, kollaDebs } from '../../helpers/built-debs.js';
import { ceph, devcloud, FERRY, markReached } from '../../helpers/devcloud.js';
import { deleteImage, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { cleanDown, cleanUp, inside } from '../deb/clean-system.js';
import { cannotRunSystemd } from '../systemd/private-systemd.js';
import type { CloneResult } from '../agent/nova-tree.js';

const root = process.cwd();
const reason = cannotRunSystemd();
const work = join(process.env.FERRY_DEVCLOUD_DIR ?? join(root, '.devcloud'), 'ansible-rollout');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
let deb = process.env.FERRY_DEB ?? '';
const clientOf = (ferryDeb: string): string => ferryDeb.replace(/\/ferry_([^/]+)_amd64\.deb$/, '/python3-ferry-agent_$1_all.deb');
/** The agent's scrape listener the role asks for (a port of this checkout's range: FERRY_DEVCLOUD_KEYSTONE_PORT + 50). */
const METRICS = `127.0.0.1:${Number(process.env.FERRY_DEVCLOUD_KEYSTONE_PORT ?? 5000) + 50}`;
const NOVA_CONF = '/etc/nova/nova.conf';
const created: string[] = [];
const clones: string[] = [];
const createdByAdmin: string[] = [];
/** The site controller's identity: role ferry-evict (implies ferry) on the images' project. */
const EVICT_CLOUD = 'devcloud-ferry-evict';

/** One scripts/build-deb.sh: build dependencies when missing, npm ci and the build, lintian (package.test.ts's bound). */
const BUILD_MS = 1_800_000;
/** One ansible-playbook run: the first installs two .debs with apt (their triggers: man-db, py3compile), ~3 min here. */
const PLAYBOOK_MS = 900_000;

/** A quick look inside (systemctl, stat, cat): well under a second, 15 s at most under load. */
const LOOK_MS = 15_000;

/** Must succeed inside the clean system (a quick look unless told); returns stdout. */
function ok(script: string, timeoutMs = LOOK_MS): string {
  const run = inside(script, timeoutMs);
  expect(run.code, `${script}\n${run.stdout}${run.stderr}`).toBe(0);
  return run.stdout;
}

/** Debian's package PKG when PATH is missing on this machine (the clean system's /usr is an overlay on it). */
function ensureDebianPackage(path: string, pkg: string): void {
  if (existsSync(path)) return;
  const installed = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '-q', '--no-install-recommends', pkg],
    { encoding: 'utf8', timeout: 600_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (installed.status !== 0 || !existsSync(path)) throw new Error(`${path} is missing and apt-get install ${pkg} did not bring it (run as root): ${installed.stderr.trim()}`);
}

/**
 * The node before the role, as nova's deployment leaves a Debian compute node for site-b: ceph.conf and nova's keyring,
 * nova.conf (with nova's own secrets, which ferry must never hold) and nova-compute.conf owned root:nova 0640, user
 * nova, and nova-compute.service (the stand-in) running.
 */
function configureNovaNode(): void {
  const facts = devcloud();
  const siteB = facts.ceph['site-b'];
  const monHost = /^mon_host *= *(.+)$/m.exec(readFileSync(siteB.conf, 'utf8'))?.[1] ?? '';
  ok(`set -e
getent passwd nova >/dev/null || useradd --system -g nova --home-dir /var/lib/nova --shell /usr/sbin/nologin nova
mkdir -p /etc/ceph /etc/nova /var/lib/nova
printf '[global]\\nfsid = %s\\nmon_host = %s\\n\\n[client]\\nkeyring = /etc/ceph/ceph.$name.keyring\\n' '${siteB.fsid}' '${monHost}' >/etc/ceph/ceph.conf
install -m 0600 -o root -g root '${join(siteB.conf, '..', 'ceph.client.nova.keyring')}' /etc/ceph/ceph.client.nova.keyring
cat >${NOVA_CONF} <<'CONF'
[DEFAULT]
state_path = /var/lib/nova
transport_url = rabbit://nova:NOVA-RABBIT-SECRET@192.0.2.1:5672/

[glance]
api_servers = ${facts.glance.url}

[libvirt]
images_type = rbd
images_rbd_pool = vms
images_rbd_ceph_conf = /etc/ceph/ceph.conf
rbd_user = nova
images_rbd_glance_store_name = site-b
CONF
printf '[libvirt]\\nvirt_type = qemu\\n' >/etc/nova/nova-compute.conf
chown root:nova ${NOVA_CONF} /etc/nova/nova-compute.conf && chmod 0640 ${NOVA_CONF} /etc/nova/nova-compute.conf
cat >/etc/systemd/system/nova-compute.service <<'UNIT'
[Unit]
Description=stand-in for nova-compute (test/integration/ansible): nova's config parsing and image backend import
[Service]
Type=exec
ExecStart=/usr/bin/python3 -I ${root}/test/integration/ansible/nova_compute_standin.py --config-file ${NOVA_CONF} --config-file /etc/nova/nova-compute.conf
[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
systemctl enable --now nova-compute.service`, 120_000);
}

/**
 * A site controller's vars for site-c (pool images-c of site-b's cluster): site-c's ceph.conf and client.ferry-evict's
 * key, the evict identity, a dry-run evict timer, and a sync policy that places this test's image in site-c with a
 * budget there (its pool is read with that key).
 */
function writeControllerVars(marker: string): string {
  const facts = devcloud();
  const siteB = facts.ceph['site-b'];
  const clouds = (parse(readFileSync(join(facts.dir, 'clouds.yaml'), 'utf8')) as { clouds: Record<string, unknown> }).clouds;
  const monHost = /^mon_host *= *(.+)$/m.exec(readFileSync(siteB.conf, 'utf8'))?.[1] ?? '';
  const vars = {
    ferry_deb: deb,
    ferry_site_store: 'site-c',
    ferry_site_ceph_conf_content: `[global]\nfsid = ${siteB.fsid}\nmon_host = ${monHost}\n`,
    ferry_site_evict_keyring_content: readFileSync(join(siteB.conf, '..', 'ceph.client.ferry-evict.keyring'), 'utf8'),
    // User ferry-evict's password entry, not its application credential: the dev cloud's carries access-rules-evict.json
    // alone, which refuses sync's copies (POST …/import: 401, seen); a site's credential needs the Glance path's rules too.
    ferry_site_clouds: { [EVICT_CLOUD]: clouds[EVICT_CLOUD] },
    ferry_site_os_cloud: EVICT_CLOUD,
    ferry_site_evict_args: ['--dry-run', '--idle', '0', '--json', '--log-level', 'error'],
    ferry_site_sync_policy: {
      version: 1,
      placements: [{ name: 'this test\'s image at site-c', images: { properties: { ferry_it_rollout: marker } }, stores: ['site-c'] }],
      stores: { 'site-c': { budget: '100%', ceph_conf: '/etc/ceph/site-c.sync.conf', rbd_user: 'ferry-evict' } },
    },
    ferry_site_sync_args: ['--interval', '5s', '--log-level', 'info'],
  };
  const file = join(work, 'controller-vars.json');
  writeFileSync(file, JSON.stringify(vars), { mode: 0o600 });
  return file;
}

/** The operator's vars: the .debs, ferry's identity and key (never nova's), the patch, the listener. */
function writeVars(): string {
  const facts = devcloud();
  const clouds = (parse(readFileSync(join(facts.dir, 'clouds.yaml'), 'utf8')) as { clouds: Record<string, unknown> }).clouds;
  const vars = {
    ferry_deb: deb,
    ferry_nova_conf_files: [NOVA_CONF, '/etc/nova/nova-compute.conf'],
    ferry_clouds: { [FERRY.cloud]: clouds[FERRY.cloud] },
    ferry_os_cloud: FERRY.cloud,
    ferry_ceph_keyring_content: readFileSync(join(facts.ceph['site-b'].conf, '..', 'ceph.client.ferry.keyring'), 'utf8'),
    ferry_nova_patch: true,
    ferry_agent_args: ['--log-level', 'info'],
    ferry_agent_metrics_listen: METRICS,
  };
  const file = join(work, 'ferry-vars.json');
  writeFileSync(file, JSON.stringify(vars), { mode: 0o600 });
  return file;
}

interface PlaybookRun { readonly output: string; readonly changed: readonly string[]; readonly recap: Record<string, number> }

/** integrations/ansible/compute.yml on the node itself, as `ansible-playbook -c local` there; what changed, the recap. */
function runPlaybook(vars: string, playbook = 'compute.yml'): PlaybookRun {
  const started = Date.now();
  const run = inside(`cd '${join(root, 'integrations/ansible')}' && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
ANSIBLE_ROLES_PATH='${join(root, 'integrations/ansible/roles')}' ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP='${work}/tmp-local' \
ANSIBLE_REMOTE_TEMP='${work}/tmp-remote' ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 \
ansible-playbook -c local -i localhost, -e ferry_hosts=localhost -e @'${vars}' ${playbook}`, PLAYBOOK_MS);
  const output = run.stdout + run.stderr;
  console.log(`ansible-playbook: ${Math.round((Date.now() - started) / 1000)} s\n${output.split('\n').filter((line) => /^(TASK|RUNNING HANDLER|changed|localhost +:)/.test(line)).join('\n')}`);
  expect(run.code, output.slice(-6000)).toBe(0);
  const changed: string[] = [];
  let task = '';
  for (const line of output.split('\n')) {
    const named = /^(?:TASK|RUNNING HANDLER) \[(?:[a-z_]+ : )?(.+?)\] \*/.exec(line);
    if (named) task = named[1] ?? '';
    else if (line.startsWith('changed: [localhost]') && !changed.includes(task)) changed.push(task);
  }
  const recapLine = /^localhost\s+:\s+(.+)$/m.exec(output)?.[1] ?? '';
  const recap = Object.fromEntries([...recapLine.matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1] ?? '', Number(m[2])]));
  return { output, changed, recap };
}

const mainPid = (unit: string): string => ok(`systemctl show -p MainPID --value ${unit}`).trim();

/** Waits (bounded: one process) until UNIT's journal holds a line matching the extended regexp PATTERN; returns the journal. */
function journalOf(unit: string, pattern: string, withinMs: number): string {
  const seconds = Math.ceil(withinMs / 1000);
  inside(`timeout ${seconds} sh -c 'until journalctl -u ${unit} --no-pager -o cat | grep -qE "${pattern}"; do sleep 1; done'`, withinMs + 10_000);
  return ok(`journalctl -u ${unit} --no-pager -o cat`);
}
/** The stand-in's start: python3 importing nova (~5-20 s on this machine under load). */
const NOVA_START_MS = 90_000;

describe.skipIf(reason !== '')('the ansible role ferry_agent, run for real on a compute node (clean private systemd)', () => {
  let vars = '';

  beforeAll(() => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    // Debian's ansible (ansible-core and its collections: community.general's ini_file), python3-apt for the apt module.
    ensureDebianPackage('/usr/lib/python3/dist-packages/ansible_collections/community/general/plugins/modules/ini_file.py', 'ansible');
    ensureDebianPackage('/usr/lib/python3/dist-packages/apt/__init__.py', 'python3-apt');
    // Built once per commit (the .deb test builds them first in a full run): test/helpers/built-debs.ts.
    if (deb === '') ({ deb } = kollaDebs(process.env.FERRY_DEVCLOUD_DIR ?? join(root, '.devcloud'), false));
    for (const file of [deb, clientOf(deb)]) expect(existsSync(file), file).toBe(true);
    const up = cleanUp();
    expect(up.code, up.stdout + up.stderr).toBe(0);
    markReached('systemd');
    configureNovaNode();
    vars = writeVars();
  }, 2 * 600_000 + HEAD_MS + CLONE_MS + BUILD_MS + 180_000 + 120_000 + 60_000);

  afterAll(async () => {
    const down = cleanDown();
    if (down.code !== 0) console.error(`scripts/systemd/down: ${down.stdout}${down.stderr}`);
    for (const clone of clones) ceph('site-b', 'rbd', ['rm', '--no-progress', clone]);
    for (const id of created) {
      await waitUnlocked(id, 30_000);
      await deleteImage(id, 'tenant-a');
    }
    for (const id of createdByAdmin) {
      await waitUnlocked(id, 30_000);
      await deleteImage(id);
    }
  }, 300_000);

  it('first run: installs both packages, writes the credentials, the keyring and its drop-in, nova.conf\'s option, enables the socket and the listener, restarts nova-compute', () => {
    const novaBefore = mainPid('nova-compute.service');
    expect(journalOf('nova-compute.service', 'patched=', NOVA_START_MS)).toContain('images_rbd_ferry_agent_socket=<not an option: nova is not patched> patched=False');
    const first = runPlaybook(vars);
    expect(first.recap).toMatchObject({ failed: 0, unreachable: 0 });
    expect(first.changed).toEqual(expect.arrayContaining([
      'The directory the .debs are copied to', 'Install python3-ferry-agent\'s .deb (nova\'s client)', 'Install ferry\'s .deb (its other dependencies from the host\'s archive)',
      'The settings of ferry-agent.service (/etc/default/ferry-agent, root 0600 as the package installs it)',
      'The agent\'s Keystone credentials (/etc/ferry/clouds.yaml, root 0600: systemd hands them to the agent)',
      'ferry\'s own cephx keyring (root 0600: systemd hands it to the agent), never nova\'s',
      'The drop-in directory of ferry-agent.service', 'The agent\'s own keyring needs a drop-in',
      'Enable and start the agent itself, for its metrics listener',
      'nova.conf\'s [libvirt] options of ferry\'s patch (docs/nova-conf.md)',
      'Keep the nova patch as asked', 'Restart the ferry agent', 'Restart nova-compute',
    ]));
    // The socket was enabled and started by the package's postinst already (the role's task finds it so: ok).
    expect(first.changed).not.toContain('Enable the agent\'s socket (the agent starts on nova\'s first connection)');
    expect(first.recap.changed).toBe(first.changed.length);
    // Both packages, this build.
    expect(ok("dpkg-query -W -f '${Version} ${Status}\\n' python3-ferry-agent ferry")).toBe(`${version} install ok installed\n${version} install ok installed\n`);
    // What the unit reads, where it reads it, with the package's modes; nova's keyring untouched.
    expect(ok("stat -c '%n %a %U %G' /etc/default/ferry-agent /etc/ferry/clouds.yaml /etc/ceph/ceph.client.ferry.keyring /etc/ceph/ceph.client.nova.keyring"))
      .toBe('/etc/default/ferry-agent 600 root root\n/etc/ferry/clouds.yaml 600 root root\n/etc/ceph/ceph.client.ferry.keyring 600 root root\n/etc/ceph/ceph.client.nova.keyring 600 root root\n');
    expect(ok('cat /etc/ceph/ceph.client.ferry.keyring')).toContain('[client.ferry]');
    const settings = ok('cat /etc/default/ferry-agent');
    for (const line of [`FERRY_NOVA_CONF=${NOVA_CONF}:/etc/nova/nova-compute.conf`, `OS_CLOUD=${FERRY.cloud}`, 'FERRY_NOVA_PATCH=yes', `FERRY_AGENT_METRICS_LISTEN=${METRICS}`]) {
      expect(settings).toContain(`\n${line}\n`);
    }
    expect(ok('systemctl show ferry-agent.service -p Environment -p LoadCredential')).toMatch(/FERRY_RBD_USER=ferry/);
    // nova.conf: the option added in [libvirt], nova's owner and mode kept, nothing else changed.
    const novaConf = ok(`cat ${NOVA_CONF}`);
    expect(novaConf).toMatch(/\[libvirt\][^[]*\nimages_rbd_ferry_agent_socket = \/run\/ferry\/agent\.sock\n/);
    expect(novaConf).toContain('NOVA-RABBIT-SECRET');
    expect(ok(`stat -c '%a %U %G' ${NOVA_CONF}`).trim()).toBe('640 root nova');
    // The socket and the agent (for its listener), enabled and running as user ferry.
    expect(ok('systemctl is-enabled ferry-agent.socket ferry-agent.service')).toBe('enabled\nenabled\n');
    expect(ok('systemctl is-active ferry-agent.socket ferry-agent.service')).toBe('active\nactive\n');
    expect(ok("stat -c '%a %U %G' /run/ferry/agent.sock").trim()).toBe('660 ferry nova');
    // nova-compute restarted after the patch and the option: the new process reads both.
    expect(mainPid('nova-compute.service')).not.toBe(novaBefore);
    expect(journalOf('nova-compute.service', 'patched=True', NOVA_START_MS)).toContain('images_rbd_ferry_agent_socket=/run/ferry/agent.sock patched=True');
    expect(ok('/usr/lib/ferry/nova-integration status')).toContain('"state":"applied"');
  }, PLAYBOOK_MS + 2 * (NOVA_START_MS + 10_000) + 20 * LOOK_MS);

  it('the metrics listener answers on TCP', async () => {
    const metrics = await fetch(`http://${METRICS}/metrics`, { signal: AbortSignal.timeout(30_000) });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('ferry_agent_');
  }, 60_000);

  it('second run: changed=0, nothing restarted', () => {
    const before = { nova: mainPid('nova-compute.service'), agent: mainPid('ferry-agent.service'), conf: ok(`stat -c %Y ${NOVA_CONF}`) };
    const second = runPlaybook(vars);
    expect(second.changed).toEqual([]);
    expect(second.recap).toMatchObject({ changed: 0, failed: 0, unreachable: 0 });
    expect({ nova: mainPid('nova-compute.service'), agent: mainPid('ferry-agent.service'), conf: ok(`stat -c %Y ${NOVA_CONF}`) }).toEqual(before);
  }, PLAYBOOK_MS + 8 * LOOK_MS);

  it('then nova 26\'s real Rbd.clone() (the patched python3-nova, the role\'s nova.conf) clones a tenant\'s private image through the agent', async () => {
    const id = await uploadImage({ name: 'it-ansible-rollout', store: 'site-a', sizeBytes: 8 * 1024 * 1024, as: 'tenant-a', visibility: 'private' });
    created.push(id);
    const name = `it-ansible-${id.slice(0, 8)}_disk`;
    const token = await tokenFor('tenant-a');
    const run = ok(`cd / && env -i PATH=/usr/bin:/bin LANG=C.UTF-8 OS_TOKEN='${token}' timeout 240 /usr/bin/python3 ${root}/test/integration/agent/nova_clone.py /usr/lib/python3/dist-packages ${NOVA_CONF} ${id} ${name}`, 300_000);
    clones.push(`vms/${name}`);
    const result = JSON.parse(run.trim().split('\n').at(-1) ?? '{}') as CloneResult;
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, patched: true, client: true, version: '26.2.2', warnings: [] });
    expect(result.module).toBe('/usr/lib/python3/dist-packages/nova/virt/libvirt/imagebackend.py');
    const info = ceph('site-b', 'rbd', ['info', `vms/${name}`]);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain(`parent: images/${id}@snap`);
    expect(ok(`journalctl -u ferry-agent.service --no-pager -o cat | grep '${id}' | head -n 5`)).not.toBe('');
  }, 300_000 + 4 * LOOK_MS + 60_000);

  // The same throw-away system as site-c's controller, after the compute node's tests (the role stops the agent's socket).
  it('a site controller (ferry_site_controller, site-c): site-c\'s key only, ferry-sync copies the policy\'s image and reads the budget\'s pool, ferry-evict@site-c runs; a second run changes nothing', async () => {
    const marker = `rollout-${Date.now()}`;
    const id = await uploadImage({ name: 'it-ansible-site-c', store: 'site-a', sizeBytes: 8 * 1024 * 1024, properties: { ferry_it_rollout: marker } });
    createdByAdmin.push(id);
    const controllerVars = writeControllerVars(marker);
    const first = runPlaybook(controllerVars, 'site-controller.yml');
    expect(first.recap).toMatchObject({ failed: 0, unreachable: 0 });
    expect(first.changed).toEqual(expect.arrayContaining(['No agent socket here',
      'The site\'s evict identity (/etc/ferry/clouds.yaml, root 0600: systemd hands it to the units)',
      'The site\'s client.ferry-evict keyring, for ferry-evict@ (root 0600)', 'ferry-evict@site-c.timer', 'ferry-sync.service, when the site has a policy']));
    // site-c's key and nothing else: one keyring for sync, one for evict, root's alone.
    expect(ok('ls /etc/ferry/keyrings')).toBe('site-c.client.ferry-evict.keyring\n');
    expect(ok("stat -c '%n %a %U' /etc/ceph/site-c.client.ferry-evict.keyring /etc/ferry/keyrings/site-c.client.ferry-evict.keyring"))
      .toBe('/etc/ceph/site-c.client.ferry-evict.keyring 600 root\n/etc/ferry/keyrings/site-c.client.ferry-evict.keyring 600 root\n');
    expect(ok('systemctl is-enabled ferry-evict@site-c.timer ferry-sync.service')).toBe('enabled\nenabled\n');
    expect(ok('systemctl is-active ferry-agent.socket || true').trim()).toBe('inactive');
    const synced = journalOf('ferry-sync.service', 'pass [0-9]+ · 1 wanted · drift [0-9] → 0', 300_000);
    expect(synced, synced.slice(-3000)).toMatch(/pass \d+ · 1 wanted · drift 1 → 0 · copied 1/);
    expect(synced).toContain('site-c');
    const evict = inside('systemctl start ferry-evict@site-c.service', 300_000);
    expect(evict.code, `${evict.stderr}\n${ok('journalctl -u ferry-evict@site-c.service --no-pager -o cat | tail -n 20')}`).toBe(0);
    expect(ok('systemctl show -p Result --value ferry-evict@site-c.service').trim()).toBe('success');
    const second = runPlaybook(controllerVars, 'site-controller.yml');
    expect(second.changed).toEqual([]);
    expect(second.recap).toMatchObject({ changed: 0, failed: 0 });
  }, 2 * PLAYBOOK_MS + 310_000 + 300_000 + 12 * LOOK_MS + 60_000);
});
