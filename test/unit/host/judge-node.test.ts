import { describe, expect, it } from 'vitest';
import { judgeNode, type NodeFacts } from '../../../src/host/judge-node.js';
import { judgeNovaIntegration } from '../../../src/host/nova-integration-state.js';

const SOCKET = '/run/ferry/agent.sock';
const STATE = '/var/lib/ferry/nova-integration.json';

/** A node where ferry is right: the packaged socket, a healthy agent of this version, nova.conf asking it, the patch applied. */
const GOOD: NodeFacts = {
  socket: { path: SOCKET, stat: { isSocket: true, mode: 0o140660, gid: 113, group: 'nova' } },
  socketGroup: 'nova',
  agent: { answered: true, status: 200, version: '0.1.0', checks: {
    token: { ok: true }, glance: { ok: true }, fsid: { ok: true, source: 'cluster' }, transfer: { ok: true }, stores: { ok: true } } },
  version: '0.1.0',
  nova: { files: ['/etc/nova/nova.conf', '/etc/nova/nova-compute.conf'], libvirt: {
    images_type: 'rbd', images_rbd_glance_store_name: 'site-b', images_rbd_ferry_agent_socket: SOCKET } },
  novaPatch: judgeNovaIntegration('{"state": "applied", "at": "2026-11-29T08:00:00Z"}', STATE)!,
};

const withLibvirt = (libvirt: Record<string, string>): NodeFacts => ({ ...GOOD, nova: { files: ['/etc/nova/nova.conf'], libvirt: { ...(GOOD.nova as { libvirt: Record<string, string> }).libvirt, ...libvirt } } });

interface Planted { readonly planted: string; readonly facts: NodeFacts; readonly check: string; readonly status: string; readonly code: string | null; readonly words: string }

/** One planted misconfiguration per row: the check that finds it, its status, the verdict's code, words of its message. */
const PLANTED: readonly Planted[] = [
    { planted: 'no socket', facts: { ...GOOD, socket: { path: SOCKET, error: 'ENOENT' }, agent: { answered: false, code: 'FERRY_AGENT_UNAVAILABLE', message: 'does not answer: ENOENT' } },
      check: 'socket', status: 'fail', code: 'FERRY_AGENT_UNAVAILABLE', words: 'no agent socket at /run/ferry/agent.sock' },
    { planted: 'a file, not a socket', facts: { ...GOOD, socket: { path: SOCKET, stat: { isSocket: false, mode: 0o100644, gid: 0, group: 'root' } } },
      check: 'socket', status: 'fail', code: 'FERRY_AGENT_UNAVAILABLE', words: 'is not a socket' },
    { planted: 'the socket of another group (kolla: no nova group)', facts: { ...GOOD, socket: { path: SOCKET, stat: { isSocket: true, mode: 0o140660, gid: 114, group: 'ferry' } } },
      check: 'socket_group', status: 'fail', code: 'FERRY_AGENT_UNAVAILABLE', words: 'belongs to group ferry, not nova' },
    { planted: 'mode 0600', facts: { ...GOOD, socket: { path: SOCKET, stat: { isSocket: true, mode: 0o140600, gid: 113, group: 'nova' } } },
      check: 'socket_group', status: 'fail', code: 'FERRY_AGENT_UNAVAILABLE', words: 'mode 0600: group nova cannot read and write' },
    { planted: 'mode 0666', facts: { ...GOOD, socket: { path: SOCKET, stat: { isSocket: true, mode: 0o140666, gid: 113, group: 'nova' } } },
      check: 'socket_group', status: 'warn', code: null, words: 'anyone on this host' },
    { planted: 'an agent that does not answer', facts: { ...GOOD, agent: { answered: false, code: 'FERRY_AGENT_UNAVAILABLE', message: 'the ferry agent at /run/ferry/agent.sock does not answer: ECONNREFUSED' } },
      check: 'agent', status: 'fail', code: 'FERRY_AGENT_UNAVAILABLE', words: 'ECONNREFUSED' },
    { planted: 'something else on the socket', facts: { ...GOOD, agent: { answered: true, status: 404 } },
      check: 'agent', status: 'fail', code: 'FERRY_AGENT_UNAVAILABLE', words: 'HTTP 404, not ferry\'s health report' },
    { planted: 'the agent\'s credentials refused', facts: { ...GOOD, agent: { answered: true, status: 503, version: '0.1.0', checks: {
      token: { ok: false, code: 'FERRY_AUTH_FAILED', message: 'Keystone refused the credentials' }, glance: { ok: true } } } },
    check: 'agent.token', status: 'fail', code: 'FERRY_AUTH_FAILED', words: 'Keystone refused' },
    { planted: 'an fsid from ceph.conf, unconfirmed', facts: { ...GOOD, agent: { answered: true, status: 200, checks: {
      fsid: { ok: true, source: 'ceph-conf', warnings: ['ceph fsid failed: keyring not readable'] } } } },
    check: 'agent.fsid', status: 'warn', code: null, words: 'keyring not readable' },
    { planted: 'an agent not restarted after an upgrade', facts: { ...GOOD, agent: { ...GOOD.agent, version: '0.0.9' } } as NodeFacts,
      check: 'agent.version', status: 'warn', code: null, words: 'the agent runs ferry 0.0.9, this ferry is 0.1.0' },
    { planted: 'an unreadable nova.conf', facts: { ...GOOD, nova: { files: ['/etc/nova/nova.conf'], unreadable: { path: '/etc/nova/nova.conf', reason: 'EACCES' } } },
      check: 'nova_conf', status: 'fail', code: 'FERRY_INVALID_CONFIG', words: 'cannot read /etc/nova/nova.conf: EACCES' },
    { planted: 'images_type qcow2', facts: withLibvirt({ images_type: 'qcow2' }),
      check: 'nova_conf.images_type', status: 'fail', code: 'FERRY_INVALID_CONFIG', words: 'images_type is qcow2' },
    { planted: 'no store name', facts: withLibvirt({ images_rbd_glance_store_name: '' }),
      check: 'nova_conf.store', status: 'fail', code: 'FERRY_INVALID_CONFIG', words: 'images_rbd_glance_store_name is not set' },
    { planted: 'no agent socket in nova.conf', facts: withLibvirt({ images_rbd_ferry_agent_socket: '' }),
      check: 'nova_conf.agent_socket', status: 'fail', code: 'FERRY_INVALID_CONFIG', words: 'stock copy, without ferry' },
    { planted: 'nova asking another socket', facts: withLibvirt({ images_rbd_ferry_agent_socket: '/run/ferry/other.sock' }),
      check: 'nova_conf.agent_socket', status: 'fail', code: 'FERRY_INVALID_CONFIG', words: 'nova asks the agent at /run/ferry/other.sock, but it listens at /run/ferry/agent.sock' },
    { planted: 'copy timeout 0', facts: withLibvirt({ images_rbd_glance_copy_timeout: '0' }),
      check: 'nova_conf.copy_timeout', status: 'warn', code: null, words: 'no deadline' },
    { planted: 'a copy timeout that is no number', facts: withLibvirt({ images_rbd_glance_copy_timeout: '10m' }),
      check: 'nova_conf.copy_timeout', status: 'fail', code: 'FERRY_INVALID_CONFIG', words: 'is not an integer' },
    { planted: 'the patch no longer applies', facts: { ...GOOD, novaPatch: judgeNovaIntegration('{"state": "failed", "nova_package": "2:26.2.2-1~deb12u6"}', STATE)! },
      check: 'nova_patch', status: 'fail', code: 'FERRY_NOVA_INTEGRATION', words: 'no longer applies to 2:26.2.2-1~deb12u6' },
    { planted: 'nova-compute running the code from before the patch', facts: { ...GOOD, novaPatch: judgeNovaIntegration('{"state": "applied"}', STATE,
      { stale: true, pid: 4242, started_at: '2026-11-28T07:00:00Z', code_changed_at: '2026-11-29T07:00:00Z' })! },
    check: 'nova_patch', status: 'fail', code: 'FERRY_NOVA_INTEGRATION', words: 'Restart nova-compute' },
    { planted: 'no record of the patch', facts: { ...GOOD, novaPatch: 'none' },
      check: 'nova_patch', status: 'warn', code: null, words: 'no record of the nova patch' },
    { planted: 'the package told not to patch', facts: { ...GOOD, novaPatch: judgeNovaIntegration('{"state": "off"}', STATE)! },
      check: 'nova_patch', status: 'warn', code: null, words: 'FERRY_NOVA_PATCH=no' },
];

describe('judgeNode', () => {
  it('judgeNode: a good node passes every check, in order, with no code', () => {
    const verdict = judgeNode(GOOD);
    expect(verdict.ok).toBe(true);
    expect(verdict.code).toBeNull();
    expect(verdict.checks.map((check) => [check.name, check.status])).toEqual([
      ['socket', 'ok'], ['socket_group', 'ok'], ['agent', 'ok'], ['agent.token', 'ok'], ['agent.glance', 'ok'], ['agent.fsid', 'ok'],
      ['agent.transfer', 'ok'], ['agent.stores', 'ok'], ['agent.version', 'ok'], ['nova_conf', 'ok'], ['nova_conf.images_type', 'ok'],
      ['nova_conf.store', 'ok'], ['nova_conf.agent_socket', 'ok'], ['nova_patch', 'ok']]);
  });

  it.each(PLANTED)('judgeNode: $planted → $check $status', ({ facts, check, status, code, words }) => {
    const verdict = judgeNode(facts);
    const found = verdict.checks.find((entry) => entry.name === check);
    expect(found?.status).toBe(status);
    expect(found?.message).toContain(words);
    if (status === 'fail') expect(found?.hint).toBeTruthy();
    expect(verdict.code).toBe(code);
    expect(verdict.ok).toBe(code === null);
  });

  it('judgeNode: a numeric --socket-group matches the socket\'s GID (kolla: the nova container\'s 42436, no such group on the host)', () => {
    const kolla = { ...GOOD, socket: { path: SOCKET, stat: { isSocket: true, mode: 0o140660, gid: 42436, group: '42436' } }, socketGroup: '42436' };
    expect(judgeNode(kolla).checks.find((check) => check.name === 'socket_group')).toMatchObject({ status: 'ok', message: 'mode 0660, group 42436' });
    expect(judgeNode({ ...GOOD, socketGroup: '113' }).checks.find((check) => check.name === 'socket_group')?.status).toBe('ok');
  });

  it('judgeNode: images_type default with rbd in images_type_mapping is ok', () => {
    const found = judgeNode(withLibvirt({ images_type: 'default', images_type_mapping: 'raw:rbd, ploop:ploop' })).checks.find((c) => c.name === 'nova_conf.images_type');
    expect(found).toMatchObject({ status: 'ok', message: 'default, rbd by images_type_mapping' });
  });

  it('judgeNode: the first failing check decides the code (socket before nova.conf); agent status asks neither nova.conf nor the patch', () => {
    const both = judgeNode({ ...withLibvirt({ images_rbd_glance_store_name: '' }), socket: { path: SOCKET, stat: { isSocket: true, mode: 0o140660, gid: 0, group: 'root' } } });
    expect(both.code).toBe('FERRY_AGENT_UNAVAILABLE');
    const { nova: _nova, novaPatch: _patch, ...agentOnly } = GOOD;
    expect(judgeNode(agentOnly).checks.map((check) => check.name).filter((name) => name.startsWith('nova'))).toEqual([]);
  });
});
