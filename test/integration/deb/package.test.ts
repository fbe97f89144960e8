// ferry's Debian package as an operator meets it, on a clean system (scripts/systemd/up-clean: a real systemd whose
// /etc, /usr and /var are throw-away overlays): install → the socket is active and `ferry ensure` goes through it to
// the agent, which copies site-a → site-b, with the units as shipped (credentials from root-only files, nova.conf's
// options copied by root, no nova or ceph group, the sandbox); an upgrade to a newer build keeps the edited
// /etc/default/ferry-agent (and makes an old 0644 copy of it root's alone), and `apt-get install ./newer.deb` under 200
// requests from 10 processes fails none: the socket is never removed or recreated, the agent is restarted behind it;
// python3-nova's reinstall re-applies the nova patch through the awaited dpkg trigger before anything that depends on
// python3-nova is configured (nova-compute's postinst restarts it), and a patch that no longer applies is reported
// loudly; remove gives nova its own files back and keeps the configuration, purge takes it and keeps the user ferry;
// without patch(1) the package does not configure (Depends: patch). nova's client is its own package,
// python3-ferry-agent (arch:all, dh_python3), which ferry depends on.
// The packages: built here as Debian builds a source package, `dpkg-buildpackage -us -uc` in a clean clone of this
// checkout's HEAD, by scripts/build-deb.sh --in that clone (which installs the build dependencies a machine lacks, and
// checks lintian is clean on the .changes: source and both binary packages), then the newer version +rebuild2 by
// scripts/deb-newer.sh (the same packages with a rebuild's changelog entry); or FERRY_DEB and FERRY_DEB_NEWER (ferry's
// .debs built earlier, python3-ferry-agent's beside each).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_MS, builtDebsDir, clientOf, CLONE_MS, HEAD_MS, headCommit, NEWER_MS, newerDebs } from '../../helpers/built-debs.js';
import { devcloud, markReached } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { cannotRunSystemd } from '../systemd/private-systemd.js';
import { CHANGE_MS, cleanDown, cleanUp, computeNodeScript, DPKG_MS, inside, INSIDE_MS } from './clean-system.js';

const root = process.cwd();
const reason = cannotRunSystemd();
// Outside /tmp (the dev cloud's state directory): the clone and what dpkg-buildpackage writes beside it.
const stateDir = process.env.FERRY_DEVCLOUD_DIR ?? join(root, '.devcloud');
mkdirSync(stateDir, { recursive: true });
const work = mkdtempSync(join(stateDir, 'deb-'));
const created: string[] = [];
let deb = process.env.FERRY_DEB ?? '';
let newer = process.env.FERRY_DEB_NEWER ?? '';
const SOCKET = '/run/ferry/agent.sock';
/** `ferry ensure` through the agent's socket: the socket starts the agent, which copies an image site-a → site-b. */
const ENSURE_MS = 300_000;
/** apt-get install of the newer .debs while CLIENTS processes send their requests, all in one shell. */
const UPGRADE_MS = 900_000;
/** dpkg -i of python3-nova and a package depending on it: the awaited trigger patches nova, nova-compute is configured. */
const NOVA_REINSTALL_MS = 900_000;
const NOVA_FILE = '/usr/lib/python3/dist-packages/nova/virt/libvirt/imagebackend.py';
/** The upgrade under load: CLIENTS processes, REQUESTS each, PAUSE_MS apart (spread over the whole upgrade). */
const CLIENTS = 10;
const REQUESTS = 20;
const PAUSE_MS = 4000;

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
/** beforeAll: the clone, the build, the newer version's repack, the clean system's boot (clean-system.ts cleanUp). */
const SETUP_MS = HEAD_MS + CLONE_MS + BUILD_MS + NEWER_MS + 180_000;

/**
 * scripts/build-deb.sh ARGS: what it built (ferry's .deb first). It installs what the build needs when missing
 * (debian/control's Build-Depends by `apt-get build-dep`, lintian) and fails on any lintian error or warning on the
 * .changes: the source package and every binary package it names.
 */
function buildDeb(args: readonly string[]): string[] {
  const started = Date.now();
  const built = spawnSync('bash', [join(root, 'scripts/build-deb.sh'), ...args], { encoding: 'utf8', timeout: BUILD_MS, maxBuffer: 256 * 1024 * 1024 });
  expect(built.status, `${built.stderr}`.slice(-4000)).toBe(0);
  expect(built.stderr).toContain('lintian: no errors, no warnings');
  console.log(`scripts/build-deb.sh ${args.join(' ')}: ${Math.round((Date.now() - started) / 1000)} s`);
  return built.stdout.trim().split('\n');
}

/**
 * The source package as Debian builds it: `dpkg-buildpackage -us -uc` in a clean clone of this checkout's HEAD
 * (scripts/build-deb.sh --in CLONE, a tree not built before), lintian clean; then the upgrade's newer build.
 */
function buildFromCleanClone(): { deb: string; newer: string } {
  // Built anew in every run, where the other tests that install the .debs find them (test/helpers/built-debs.ts).
  const out = builtDebsDir(stateDir, headCommit());
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const clone = join(out, 'ferry');
  const cloned = spawnSync('git', ['clone', '--quiet', root, clone], { encoding: 'utf8', timeout: CLONE_MS });
  expect(cloned.status, cloned.stderr).toBe(0);
  const first = join(out, 'first');
  const [ferryDeb] = buildDeb(['--in', clone, '--out', first]);
  const made = readdirSync(first);
  for (const file of [`ferry_${version}.dsc`, `ferry_${version}.tar.xz`, `ferry_${version}_amd64.deb`, `python3-ferry-agent_${version}_all.deb`]) expect(made).toContain(file);
  rmSync(clone, { recursive: true, force: true });
  // The upgrade's newer version: these packages with a rebuild's changelog entry (a binary-only rebuild of the same
  // tree made the same files, in 214 s more of this lane). Not +b2: dpkg takes +bN for a binNMU and strips it from
  // ${source:Version} (seen: ferry 0.1.0+b2 depended on 0.1.0).
  return { deb: ferryDeb ?? '', newer: newerDebs(first, join(out, 'newer')) };
}

/** Must succeed inside; returns stdout. */
function ok(script: string, timeoutMs?: number): string {
  const run = inside(script, timeoutMs);
  expect(run.code, `${script}\n${run.stdout}${run.stderr}`).toBe(0);
  return run.stdout;
}

/** A compute node's configuration for site-b (clean-system.ts computeNodeScript), the agent as the dev cloud's admin. */
function configureComputeNode(): void {
  ok(computeNodeScript('devcloud-admin-appcred'));
}

/** `ferry ensure` through the agent's socket, run with no credentials at all: only the agent has them. */
function ensureThroughSocket(id: string): Record<string, unknown> {
  const run = inside(`env -i PATH=/usr/bin:/bin HOME=/nonexistent /usr/bin/ferry ensure ${id} --store site-b --agent ${SOCKET} --json`, ENSURE_MS);
  // The agent's side of a failure: what systemd and the agent logged.
  const journal = (): string => inside('systemctl status ferry-agent.service --no-pager; journalctl -u ferry-agent.service -n 40 --no-pager -o cat').stdout;
  expect(run.code, run.code === 0 ? '' : `${run.stdout}${run.stderr}\n${journal()}`).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe.skipIf(reason !== '')('the Debian package on a clean system (scripts/systemd/up-clean)', () => {
  beforeAll(() => {
    if (deb === '' || newer === '') ({ deb, newer } = buildFromCleanClone());
    for (const file of [deb, newer, clientOf(deb), clientOf(newer)]) expect(existsSync(file), file).toBe(true);
    const up = cleanUp();
    expect(up.code, up.stdout + up.stderr).toBe(0);
    markReached('systemd');
  }, SETUP_MS);

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
    ok(`dpkg -i '${clientOf(deb)}' '${deb}' </dev/null`, DPKG_MS);
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
    for (const doc of ['agent.md', 'install.md', 'prewarm.md', 'security.md', 'upgrade.md', 'runbooks.md', 'cli.md', 'evict.md', 'operator-guide.md', 'deploy/README.md']) ok(`head -n 1 /usr/share/doc/ferry/${doc} | grep -q '^# '`);
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
    // nova's client: python3-ferry-agent's, where nova's python3 imports it (isolated, from /), byte-compiled by
    // dh_python3's py3compile; ferry depends on that very build and carries no copy in dist-packages.
    expect(ok('cd / && /usr/bin/python3 -I -c "import ferry_agent; print(ferry_agent.__file__)"').trim()).toBe('/usr/lib/python3/dist-packages/ferry_agent.py');
    expect(ok('dpkg -S /usr/lib/python3/dist-packages/ferry_agent.py').trim()).toBe('python3-ferry-agent: /usr/lib/python3/dist-packages/ferry_agent.py');
    ok('ls /usr/lib/python3/dist-packages/__pycache__/ferry_agent.cpython-3*.pyc');
    expect(ok("dpkg-query -W -f '${Architecture} ${Section}' python3-ferry-agent")).toBe('all python');
    expect(ok("dpkg-query -W -f '${Depends}' ferry").split(/,\s*/)).toContain(`python3-ferry-agent (= ${version})`);
    expect(ok('dpkg -L ferry | grep dist-packages || true')).toBe('');
    ok('test -s /usr/share/man/man1/ferry.1.gz && zcat /usr/share/man/man1/ferry.1.gz | grep -q "^.SS \\"ferry ensure\\""');
    ok('grep -q "complete -F _ferry ferry" /usr/share/bash-completion/completions/ferry && head -n 1 /usr/share/zsh/vendor-completions/_ferry | grep -q "^#compdef ferry"');
    ok('/usr/lib/ferry/integrations/nova/ferry-nova-patch --help >/dev/null && ls /usr/lib/ferry/integrations/nova/nova-26-imagebackend.patch');
    ok('zcat /usr/share/doc/ferry/changelog.gz | head -n 1 | grep -q "^ferry (0.1.0)" && grep -q "^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" /usr/share/doc/ferry/copyright');
  }, DPKG_MS + 39 * INSIDE_MS);

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
  }, INTEGRATION_TEST_MS + ENSURE_MS + 9 * INSIDE_MS);

  it('deb: apt-get install ./newer.deb under 200 requests from 10 processes fails none: the socket stays, the agent is restarted behind it; the edited conffile is kept (made root 0600 if an older package left it 0644)', () => {
    const before = ok('cat /etc/default/ferry-agent');
    // What the package before issue 25 installed: 0644. dpkg keeps an edited conffile's mode; postinst does not.
    ok('chmod 0644 /etc/default/ferry-agent');
    const id = created[0] ?? '';
    expect(ensureThroughSocket(id)).toMatchObject({ image: id, copied: false }); // the agent runs: the upgrade restarts it
    const socketBefore = ok(`stat -c %i ${SOCKET}; systemctl show -p ActiveEnterTimestampMonotonic --value ferry-agent.socket`);
    const agentBefore = ok('systemctl show -p MainPID --value ferry-agent.service').trim();
    const load = join(work, 'load');
    mkdirSync(load, { recursive: true });
    // The clients and the upgrade in one shell inside the clean system: nova's requests while an operator upgrades.
    const upgrade = ok(`set -e
cd '${load}'
for c in $(seq 1 ${CLIENTS}); do
  /usr/lib/ferry/node/bin/node '${join(root, 'test/integration/systemd/socket-client.mjs')}' ${SOCKET} ${REQUESTS} ${PAUSE_MS} '${JSON.stringify({ image: id })}' >client-$c.jsonl &
done
# The upgrade starts once every client has had an answer (bounded: 120 s).
for _ in $(seq 1 600); do [ "$(cat client-*.jsonl 2>/dev/null | wc -l)" -ge ${CLIENTS} ] && break; sleep 0.2; done
date +%s%3N >upgrade-start
DEBIAN_FRONTEND=noninteractive apt-get install -y -q '${clientOf(newer)}' '${newer}' </dev/null >apt.log 2>&1 || { cat apt.log; exit 1; }
date +%s%3N >upgrade-end
wait
cat apt.log`, UPGRADE_MS);
    const outcomes = readdirSync(load).filter((name) => name.startsWith('client-'))
      .flatMap((name) => readFileSync(join(load, name), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { status?: number; error?: string; at: number }));
    const failed = outcomes.filter((outcome) => outcome.status !== 200);
    const [started, ended] = ['upgrade-start', 'upgrade-end'].map((name) => Number(readFileSync(join(load, name), 'utf8')));
    const answered = outcomes.map((outcome) => outcome.at);
    console.log(`deb upgrade under load: ${outcomes.length} requests, ${failed.length} failed, upgrade ${((ended ?? 0) - (started ?? 0)) / 1000} s`);
    expect(outcomes.length).toBe(CLIENTS * REQUESTS);
    expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
    // The load covered the upgrade: answers before it began and after it ended.
    expect(Math.min(...answered)).toBeLessThan(started ?? 0);
    expect(Math.max(...answered)).toBeGreaterThan(ended ?? 0);
    // The same socket, never stopped or started again; the agent restarted to run the new version.
    expect(ok(`stat -c %i ${SOCKET}; systemctl show -p ActiveEnterTimestampMonotonic --value ferry-agent.socket`)).toBe(socketBefore);
    expect(ok('systemctl show -p MainPID --value ferry-agent.service').trim()).not.toBe(agentBefore);
    expect(upgrade).toContain('ferry: /etc/default/ferry-agent was root:root 644; now root:root 600');
    expect(ok("stat -c '%a %U %G' /etc/default/ferry-agent").trim()).toBe('600 root root');
    expect(ok("dpkg-query -W -f '${Version} ' ferry python3-ferry-agent")).toBe('0.1.0+rebuild2 0.1.0+rebuild2 ');
    expect(ok('cat /etc/default/ferry-agent')).toBe(before);
    expect(before).toContain('OS_CLOUD=devcloud-admin-appcred');
    ok('test ! -e /etc/default/ferry-agent.dpkg-new && test ! -e /etc/default/ferry-agent.dpkg-dist');
    expect(ok('systemctl is-active ferry-agent.socket').trim()).toBe('active');
    expect(ensureThroughSocket(id)).toMatchObject({ image: id, store: 'site-b', copied: false });
    // Two ferry ensure runs (before and after), the upgrade's shell, and the reads.
  }, 2 * ENSURE_MS + UPGRADE_MS + 13 * INSIDE_MS);

  it('deb: a rollback installs the previous build over the newer one: the edited conffile stays, the agent answers again', () => {
    const before = ok('cat /etc/default/ferry-agent');
    ok(`dpkg -i '${clientOf(deb)}' '${deb}' </dev/null`, DPKG_MS);
    expect(ok("dpkg-query -W -f '${Version}' ferry")).toBe('0.1.0');
    expect(ok('cat /etc/default/ferry-agent')).toBe(before);
    expect(ok('systemctl is-active ferry-agent.socket').trim()).toBe('active');
    const id = created[0] ?? '';
    expect(ensureThroughSocket(id)).toMatchObject({ image: id, store: 'site-b', copied: false });
  }, DPKG_MS + ENSURE_MS + 5 * INSIDE_MS);

  it('deb: FERRY_NOVA_PATCH=1 is a yes, as /etc/default/ferry-agent documents', () => {
    ok("sed -i 's/^FERRY_NOVA_PATCH=.*/FERRY_NOVA_PATCH=1/' /etc/default/ferry-agent && /usr/lib/ferry/nova-integration sync", CHANGE_MS);
    expect(JSON.parse(ok('cat /var/lib/ferry/nova-integration.json'))).toMatchObject({ state: 'applied' });
    ok('/usr/lib/ferry/integrations/nova/ferry-nova-patch check');
  }, CHANGE_MS + 2 * INSIDE_MS);

  it('deb: python3-nova reinstalled → the awaited dpkg trigger applies the nova patch again before nova-compute is configured, and says nova-compute runs the code from before; one that no longer applies is said loudly', () => {
    ok("sed -i 's/^FERRY_NOVA_PATCH=.*/FERRY_NOVA_PATCH=yes/' /etc/default/ferry-agent && /usr/lib/ferry/nova-integration sync", CHANGE_MS);
    ok('/usr/lib/ferry/integrations/nova/ferry-nova-patch check');
    // nova-compute's stand-in: depends on python3-nova, and its postinst (where nova-compute's restarts the service)
    // records whether the nova it would start carries the patch.
    const probe = join(work, 'probe');
    mkdirSync(join(probe, 'DEBIAN'), { recursive: true });
    writeFileSync(join(probe, 'DEBIAN/control'), 'Package: ferry-test-nova-compute\nVersion: 1\nArchitecture: all\n'
      + 'Maintainer: ferry tests <ferry@lists.example.org>\nDepends: python3-nova\nDescription: nova-compute stand-in\n test\n');
    writeFileSync(join(probe, 'DEBIAN/postinst'), '#!/bin/sh\nif /usr/lib/ferry/integrations/nova/ferry-nova-patch check >/dev/null 2>&1; '
      + 'then echo patched; else echo stock; fi >>/var/lib/ferry-test-nova-compute\n', { mode: 0o755 });
    ok(`dpkg-deb --root-owner-group -b '${probe}' '${work}/probe.deb' && dpkg -i '${work}/probe.deb' </dev/null && rm -f /var/lib/ferry-test-nova-compute`, DPKG_MS);
    // ... and nova-compute itself: a service that loaded nova's code when it started.
    ok(`printf '[Service]\\nExecStart=/usr/bin/python3 -I -c "import time; time.sleep(86400)"\\n' >/etc/systemd/system/nova-compute.service
systemctl daemon-reload && systemctl start nova-compute.service`, CHANGE_MS);
    // What an upgrade of nova does: python3-nova's own files replace the patched ones, nova-compute is configured after it.
    const nova = ok('ls /var/cache/apt/archives/python3-nova_*_all.deb | tail -n 1').trim();
    const reinstall = ok(`dpkg -i '${nova}' '${work}/probe.deb' </dev/null 2>&1`, NOVA_REINSTALL_MS);
    expect(reinstall).toMatch(/Processing triggers for ferry/);
    expect(ok('cat /var/lib/ferry-test-nova-compute').trim(), reinstall).toBe('patched');
    ok('/usr/lib/ferry/integrations/nova/ferry-nova-patch check'); // patched again, by the trigger
    expect(JSON.parse(ok('cat /var/lib/ferry/nova-integration.json'))).toMatchObject({ state: 'applied', nova_package: expect.stringMatching(/^2:26\./) });
    expect(ok('journalctl -t ferry-nova-integration --no-pager -o cat')).toContain('nova patch applied again after python3-nova changed imagebackend.py');
    ok('dpkg -r ferry-test-nova-compute </dev/null', DPKG_MS);

    // nova-compute started before the trigger patched nova again: it runs the stock code it loaded. Said by dpkg, the
    // journal, /var/lib/ferry/nova-compute.json, /healthz and the metric, until nova-compute is restarted.
    expect(reinstall).toMatch(/nova-compute \(PID \d+\) started at \S+ runs nova's code from before its files changed at \S+ .*restart nova-compute/);
    expect(ok('journalctl -t ferry-nova-integration -p warning --no-pager -o cat')).toContain("runs nova's code from before its files changed");
    const novaPid = Number(ok('systemctl show -p MainPID --value nova-compute.service'));
    expect(JSON.parse(ok('cat /var/lib/ferry/nova-compute.json'))).toMatchObject({ running: true, stale: true, pid: novaPid });
    const healthz = (): { code: string; body: Record<string, unknown> } => {
      const lines = ok(`curl -s -o - -w '\\n%{http_code}' --unix-socket ${SOCKET} http://agent/healthz`).trim().split('\n');
      return { code: lines.at(-1) ?? '', body: JSON.parse(lines.slice(0, -1).join('\n')) as Record<string, unknown> };
    };
    const staleMetric = (): string => ok(`curl -s --unix-socket ${SOCKET} http://agent/metrics | grep '^ferry_agent_nova_integration_stale ' || true`).trim();
    const stale = healthz();
    expect(stale.code).toBe('503');
    expect(stale.body).toMatchObject({ ok: false, failing: ['nova_integration'], checks: { nova_integration: { ok: false, state: 'applied',
      code: 'FERRY_NOVA_INTEGRATION', nova_compute: { stale: true, pid: novaPid }, message: expect.stringContaining('Restart nova-compute') } } });
    expect(staleMetric()).toBe('ferry_agent_nova_integration_stale 1');
    // Restarted: the next check (ferry-nova-check.timer runs it every minute; started by hand here) clears it.
    expect(ok('systemctl is-enabled ferry-nova-check.timer; systemctl is-active ferry-nova-check.timer').trim().split('\n')).toEqual(['enabled', 'active']);
    ok('systemctl restart nova-compute.service && systemctl start ferry-nova-check.service', CHANGE_MS);
    expect(JSON.parse(ok('cat /var/lib/ferry/nova-compute.json'))).toMatchObject({ running: true, stale: false });
    const current = healthz();
    expect(current.body, JSON.stringify(current.body)).toMatchObject({ checks: { nova_integration: { ok: true, state: 'applied', nova_compute: { stale: false } } } });
    expect(staleMetric()).toBe('ferry_agent_nova_integration_stale 0');
    ok('systemctl stop nova-compute.service && rm /etc/systemd/system/nova-compute.service && systemctl daemon-reload', CHANGE_MS);

    // A nova whose file the patch no longer fits (pristine file, one changed line in Rbd.copy_to_store's context).
    ok(`/usr/lib/ferry/integrations/nova/ferry-nova-patch revert && sed -i 's/^\\(\\s*\\)def copy_to_store(self, context, image_meta):/&\\n\\1    # changed by a newer nova/' ${NOVA_FILE} && grep -q 'changed by a newer nova' ${NOVA_FILE}`, CHANGE_MS);
    ok(`dpkg-trigger --no-await ${NOVA_FILE} && dpkg --triggers-only --pending </dev/null`, DPKG_MS);
    expect(inside('/usr/lib/ferry/integrations/nova/ferry-nova-patch check').code).not.toBe(0);
    expect(JSON.parse(ok('cat /var/lib/ferry/nova-integration.json'))).toMatchObject({ state: 'failed' });
    expect(ok('journalctl -t ferry-nova-integration -p err --no-pager -o cat')).toContain('NOVA PATCH NO LONGER APPLIES');
    // ... and the agent's /healthz says so too: 503, the failing check nova_integration
    const health = ok(`curl -s -o - -w '\\n%{http_code}' --unix-socket ${SOCKET} http://agent/healthz`).trim().split('\n');
    expect(health.at(-1)).toBe('503');
    expect(JSON.parse(health.slice(0, -1).join('\n'))).toMatchObject({ ok: false, failing: ['nova_integration'],
      checks: { nova_integration: { ok: false, state: 'failed', code: 'FERRY_NOVA_INTEGRATION' } } });
    // nova's file as python3-nova ships it again, patched by the package (the next test removes ferry).
    ok(`sed -i '/# changed by a newer nova/d' ${NOVA_FILE} && /usr/lib/ferry/nova-integration sync && /usr/lib/ferry/integrations/nova/ferry-nova-patch check`, CHANGE_MS);
  }, NOVA_REINSTALL_MS + 3 * DPKG_MS + 6 * CHANGE_MS + 19 * INSIDE_MS);

  it('deb: remove gives nova its own files back and keeps the configuration', () => {
    expect(ok('dpkg --verify python3-nova || true')).toContain(NOVA_FILE); // patched, as the package keeps it
    const removal = ok('dpkg -r ferry </dev/null 2>&1', DPKG_MS);
    expect(ok('dpkg --verify python3-nova || true'), removal).toBe(''); // nova's files are python3-nova's again
    expect(removal).toContain("nova's own image backend is back");
    expect(ok('journalctl -t ferry-nova-integration --no-pager -o cat')).toContain('restart nova-compute to run it');
    ok('test ! -e /usr/bin/ferry && test ! -e /usr/lib/ferry/node/bin/node');
    ok('test -f /etc/default/ferry-agent && grep -q "^OS_CLOUD=devcloud-admin-appcred" /etc/default/ferry-agent');
    ok('getent passwd ferry');
    expect(ok("dpkg-query -W -f '${db:Status-Status}' ferry")).toBe('config-files');
    expect(inside('systemctl is-active ferry-agent.socket').stdout.trim()).not.toBe('active');
  }, DPKG_MS + 8 * INSIDE_MS);

  it('deb: purge removes the configuration and state, and keeps the user ferry', () => {
    ok('dpkg -P ferry </dev/null', DPKG_MS);
    ok('test ! -e /etc/default/ferry-agent && test ! -e /var/lib/ferry');
    // Debian keeps a system user at purge: files it owned may outlive the package, and a later user must not get them.
    expect(ok('getent passwd ferry')).toMatch(/^ferry:x:\d+:\d+:.*:\/nonexistent:\/usr\/sbin\/nologin$/m);
    ok('getent group ferry');
    expect(inside('dpkg-query -W ferry').code).not.toBe(0);
    // nova's client outlives ferry (nothing else of ferry needs it), until it is purged itself.
    ok('cd / && /usr/bin/python3 -I -c "import ferry_agent"');
    ok('dpkg -P python3-ferry-agent </dev/null', DPKG_MS);
    expect(inside('cd / && /usr/bin/python3 -I -c "import ferry_agent"').code).not.toBe(0);
  }, 2 * DPKG_MS + 6 * INSIDE_MS);

  it('deb: without patch(1) or nova\'s client the package does not configure (Depends: patch, python3-ferry-agent), rather than record the nova patch as failed later', () => {
    ok('dpkg --remove --force-depends patch </dev/null', DPKG_MS); // the clean system's overlay only: gone at its next boot
    const install = inside(`dpkg -i '${deb}' </dev/null 2>&1`, DPKG_MS);
    expect(install.code, install.stdout).not.toBe(0);
    expect(install.stdout).toMatch(/ferry depends on patch; however:\n\s+Package patch is not installed/);
    expect(install.stdout).toMatch(new RegExp(`ferry depends on python3-ferry-agent \\(= ${version.replace(/\./g, '\\.')}\\); however:\\n\\s+Package python3-ferry-agent is not installed`));
    expect(ok("dpkg-query -W -f '${db:Status-Status}' ferry")).not.toBe('installed');
  }, 2 * DPKG_MS + INSIDE_MS);
});
