// Contract: integrations/ansible's role ferry_agent is valid Ansible (`ansible-playbook --syntax-check`, Debian 12's
// ansible 7.7: ansible-core 2.14 and community.general) and writes what the package reads, the way the package installs it: /etc/default/ferry-agent
// root 0600 with every setting the package's own file has, /etc/ferry/clouds.yaml and the keyring root 0600 (what the
// unit's LoadCredential= and AssertPathExists= name). ansible-playbook is Debian's ansible (ini_file from community.general),
// installed here when missing as the monitoring tests install promtool (a fresh machine has none); where it cannot be
// installed the test fails saying so.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const ansible = join(root, 'integrations', 'ansible');
const role = join(ansible, 'roles', 'ferry_agent');
const read = (path: string): string => readFileSync(path, 'utf8');
/** The variables a defaults file sets (`NAME=value` lines, commented ones left out). */
const settingsOf = (text: string): string[] => [...text.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1] ?? '');

describe('integrations/ansible: the ferry_agent role', () => {
  it('ansible-playbook --syntax-check accepts the example playbooks and their roles (compute nodes, site controllers)', () => {
    // Debian's ansible: ansible-core and its collections (the role sets nova.conf's options with community.general.ini_file).
    const ensured = spawnSync('bash', ['-c', 'source scripts/lib/ensure-debian-tool.sh && ensure_debian_tool ansible-role ansible-playbook ansible'],
      { cwd: root, encoding: 'utf8', timeout: 600_000 });
    if (ensured.status !== 0) throw new Error(`ansible-playbook is missing and could not be installed: ${ensured.stderr.trim()}`);
    for (const playbook of ['compute.yml', 'site-controller.yml']) {
      const run = spawnSync(ensured.stdout.trim(), ['--syntax-check', '-i', 'localhost,', playbook],
        { cwd: ansible, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ANSIBLE_ROLES_PATH: join(ansible, 'roles'), ANSIBLE_NOCOLOR: '1' } });
      if (run.error !== undefined) throw new Error(`ansible-playbook: ${run.error.message} (apt-get install ansible: the test checks the role with it)`);
      expect(run.status, `${run.stdout}${run.stderr}${/community\.general/.test(run.stderr) ? '\n(ansible-core alone: apt-get install ansible, Debian\'s, brings community.general)' : ''}`).toBe(0);
      expect(run.stdout).toContain(`playbook: ${playbook}`);
    }
  }, 960_000);

  it('its /etc/default/ferry-agent sets every setting of the package\'s, root 0600 as the package installs it', () => {
    const packaged = settingsOf(read(join(root, 'debian', 'ferry-agent.default')));
    expect(packaged).toEqual(expect.arrayContaining(['FERRY_NOVA_CONF', 'FERRY_AGENT_ARGS', 'FERRY_NOVA_PATCH']));
    const template = read(join(role, 'templates', 'ferry-agent.default.j2'));
    // OS_CLOUD and FERRY_AGENT_METRICS_LISTEN: commented out in the package's file, set by the role when asked.
    expect(settingsOf(template).sort()).toEqual([...packaged, 'OS_CLOUD', 'FERRY_AGENT_METRICS_LISTEN'].sort());
    expect(template).toContain("FERRY_NOVA_CONF={{ ferry_nova_conf_files | join(':') }}");
    expect(read(join(root, 'debian', 'rules'))).toMatch(/install -D -m 0600 \S+ \$\(PKG\)\/etc\/default\/ferry-agent/);
    const tasks = read(join(role, 'tasks', 'main.yml'));
    expect(tasks).toMatch(/dest: \/etc\/default\/ferry-agent\n\s+owner: root\n\s+group: root\n\s+mode: "0600"/);
  });

  it('the credentials go where the unit loads them from, root 0600, never logged', () => {
    const unit = read(join(root, 'packaging', 'systemd', 'ferry-agent.service'));
    expect(unit).toContain('LoadCredential=clouds.yaml:/etc/ferry/clouds.yaml');
    expect(unit).toContain('LoadCredential=ceph.keyring:/etc/ceph/ceph.client.ferry.keyring');
    const tasks = read(join(role, 'tasks', 'main.yml'));
    expect(tasks).toMatch(/dest: \/etc\/ferry\/clouds\.yaml\n\s+owner: root\n\s+group: root\n\s+mode: "0600"/);
    expect(tasks).toMatch(/dest: "\{\{ ferry_ceph_keyring_path \}\}"\n\s+owner: root\n\s+group: root\n\s+mode: "0600"/);
    expect(tasks.match(/no_log: true/g)).toHaveLength(2);
  });

  // Issue 37: the keyring's drop-in went into /etc/systemd/system/ferry-agent.service.d, which nothing created on a
  // fresh node; nova.conf's option was never set and nova-compute never restarted; no metrics variable.
  it('as a rollout tool: the drop-in directory made first, nova.conf\'s option set with a restart of nova-compute, the metrics listener', () => {
    const tasks = read(join(role, 'tasks', 'main.yml'));
    const dir = tasks.indexOf('path: /etc/systemd/system/ferry-agent.service.d\n');
    expect(dir).toBeGreaterThan(0);
    expect(dir).toBeLessThan(tasks.indexOf('dest: /etc/systemd/system/ferry-agent.service.d/keyring.conf'));
    expect(read(join(role, 'defaults', 'main.yml'))).toMatch(/ferry_nova_options:\n\s+images_rbd_ferry_agent_socket: \/run\/ferry\/agent\.sock\n/);
    expect(tasks).toMatch(/community\.general\.ini_file:\n\s+path: "\{\{ ferry_nova_conf_path \}\}"\n\s+section: libvirt\n[\s\S]*?notify: Restart nova-compute/);
    const handlers = read(join(role, 'handlers', 'main.yml'));
    expect(handlers).toContain('name: "{{ ferry_nova_compute_service }}"');
    // nova-compute restarts after the agent: its first clone finds the agent's new settings.
    expect(handlers.indexOf('- name: Restart the ferry agent')).toBeLessThan(handlers.indexOf('- name: Restart nova-compute'));
    expect(read(join(role, 'templates', 'ferry-agent.default.j2'))).toContain('FERRY_AGENT_METRICS_LISTEN={{ ferry_agent_metrics_listen }}');
  });

  // Issue 34: ferry_ceph_keyring_content went to nova's keyring path by default, so the role overwrote nova's own key
  // (nova-compute's, write on vms) with ferry's, or ferry's agent got nova's rights under ferry's name.
  it('the cephx keyring it writes is ferry\'s own file, never nova\'s: the default path, a refusal of nova\'s, a drop-in naming it and its user', () => {
    const defaults = read(join(role, 'defaults', 'main.yml'));
    expect(defaults).toContain('ferry_ceph_keyring_path: /etc/ceph/ceph.client.ferry.keyring');
    expect(defaults).toContain('ferry_ceph_user: ferry');
    const tasks = read(join(role, 'tasks', 'main.yml'));
    expect(tasks).toContain("- ferry_ceph_keyring_path != '/etc/ceph/ceph.client.nova.keyring'");
    const dropIn = /- name: The agent's own keyring needs a drop-in[\s\S]*?when: (.*)\n/.exec(tasks);
    expect(dropIn?.[0]).toContain('LoadCredential=ceph.keyring:{{ ferry_ceph_keyring_path }}');
    expect(dropIn?.[0]).toContain('BindReadOnlyPaths=%d/ceph.keyring:{{ ferry_ceph_keyring_path }}');
    expect(dropIn?.[0]).toContain('Environment=FERRY_RBD_USER={{ ferry_ceph_user }}');
    expect(dropIn?.[1]).toBe('ferry_ceph_keyring_content | length > 0');
    // An upgrade from 0.1.0 installs the package before the keyring is there: its postinst keeps nova's key through
    // ceph-keyring-nova.conf (with UnsetEnvironment=FERRY_RBD_USER). The role's own keyring replaces that drop-in.
    expect(dropIn?.[0]).toMatch(/^\s+UnsetEnvironment=$/m);
    const stale = /- name: The package's interim drop-in for nova's keyring goes[\s\S]*?when: (.*)\n/.exec(tasks);
    expect(stale?.[0]).toContain('path: /etc/systemd/system/ferry-agent.service.d/ceph-keyring-nova.conf');
    expect(stale?.[0]).toContain('state: absent');
    expect(stale?.[1]).toBe('ferry_ceph_keyring_content | length > 0');
  });
});
