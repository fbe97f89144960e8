import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import { statusJsonSchema } from '../../../src/contract/status-document.js';
import { ceph, CEPH_MS, cloudEnv, devcloud } from '../../helpers/devcloud.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import { deleteImage, imageTasks, tokenFor, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { startAgent, type AgentProcess } from './agent-process.js';
import { DEBIAN_NOVA, newerNova, novaClone, novaCloneMs, novaConf, patchedNova, python, NOVA_PYTHON_MS, type NovaTree } from './nova-tree.js';

const created: string[] = [];
const clones: string[] = [];
let agent: AgentProcess;
let work: string;
let token: string;
/** The Python storm: `timeout 120` around python3, and the spawn's own limit a little past it. */
const PYTHON_STORM_MS = 130_000;
/** The unit's ExecStartPre run by hand: ferry copies nova.conf's options (a node start, a file read and written). */
const UNIT_PRE_MS = 60_000;
/** The unit's agent run by hand: up, asked, SIGHUP, asked, SIGTERM; killed after this if it never exits. */
const UNIT_AGENT_MS = 60_000;

async function image(name: string, store: string): Promise<string> {
  const id = await uploadImage({ name: `it-agent-${name}`, store, sizeBytes: 8 * 1024 * 1024 });
  created.push(id);
  return id;
}

function ferryCli(args: readonly string[]): { code: number; json: Record<string, unknown> } {
  const result = spawnSync(process.execPath, [`${process.cwd()}/bin/ferry`, ...args, '--json'], {
    encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...cloudEnv(), FERRY_FSID: devcloud().ceph['site-b'].fsid },
  });
  return { code: result.status ?? -1, json: JSON.parse(result.stdout || '{}') as Record<string, unknown> };
}

const post = (body: unknown) => callAgent(agent.socket, { method: 'POST', path: '/v1/ensure', body });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ferry-agent-work-'));
  token = await tokenFor('admin');
  // Besides its own store, the agent serves `broken` (a store whose copies Glance fails) for the verdict case below.
  agent = await startAgent(['--allow-store', 'site-b', '--allow-store', 'broken']);
});

afterAll(async () => {
  await agent.stop();
  // Every clone removed in one program, bounded as one ceph() call (one ceph() per clone counted 70 s each).
  spawnSync('timeout', ['60', 'sh', '-c', 'for c; do rbd -c "$0" --id nova rm --no-progress "$c"; done', devcloud().ceph['site-b'].conf, ...clones],
    { timeout: CEPH_MS });
  for (const id of created) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
  rmSync(work, { recursive: true, force: true });
});

describe('ferry agent against the dev cloud', () => {
  it('agent: an image already in site-b → the same document `ferry ensure --json --no-agent` prints', async () => {
    const id = await image('local', 'site-b');
    const answer = await post({ image: id });
    expect(answer.status).toBe(200);
    const viaAgent = ensureJsonSchema.parse(answer.body);
    const cli = ferryCli(['ensure', id, '--store', 'site-b', '--no-agent']);
    expect(cli.code).toBe(0);
    const inProcess = ensureJsonSchema.parse(cli.json);
    expect({ ...viaAgent, seconds: 0 }).toEqual({ ...inProcess, seconds: 0 });
    expect(viaAgent).toMatchObject({ copied: false, image_reads: 1, import_requests: 0 });
    const status = await callAgent(agent.socket, { method: 'GET', path: `/v1/images/${id}` });
    expect(statusJsonSchema.parse(status.body)).toMatchObject({ image: id, stores: ['site-b'] });
  });

  it('agent: 40 concurrent requests from 4 Python processes and 10 from node for a site-a image → one Glance import task, one target', async () => {
    const id = await image('storm', 'site-a');
    const pythonStorm = `
import json, threading, ferry_agent
out = []
def one():
    try:
        out.append(ferry_agent.ensure(${JSON.stringify(id)})['target']['url'])
    except ferry_agent.FerryAgentError as e:
        out.append(e.code)
threads = [threading.Thread(target=one) for _ in range(10)]
[t.start() for t in threads]; [t.join() for t in threads]
print(json.dumps(out))`;
    const runPython = () => new Promise<string[]>((resolve, reject) => {
      execFile('timeout', ['120', '/usr/bin/python3', '-c', pythonStorm], { timeout: PYTHON_STORM_MS,
        env: { ...process.env, PYTHONPATH: `${process.cwd()}/integrations/nova`, FERRY_AGENT_SOCKET: agent.socket },
      }, (error, stdout) => (error ? reject(new Error(error.message)) : resolve(JSON.parse(stdout.trim()) as string[])));
    });
    const [fromPython, fromNode] = await Promise.all([
      Promise.all([runPython(), runPython(), runPython(), runPython()]),
      Promise.all(Array.from({ length: 10 }, () => post({ image: id }))),
    ]);
    const targets = [...fromPython.flat(), ...fromNode.map((a) => (a.body as { target: { url: string } }).target.url)];
    expect(targets).toHaveLength(50);
    expect(new Set(targets)).toEqual(new Set([`rbd://${devcloud().ceph['site-b'].fsid}/images/${id}/snap`]));
    const tasks = (await imageTasks(id)).filter((t) => t.input.backend?.includes('site-b'));
    expect(tasks).toHaveLength(1);
  }, PYTHON_STORM_MS + 30_000);

  it('agent: the Python client raises FerryAgentError with the agent\'s code, and FERRY_AGENT_UNAVAILABLE without an agent', () => {
    const missing = python(`
import json, ferry_agent
try:
    ferry_agent.ensure('no-such-image-anywhere')
except ferry_agent.FerryAgentError as e:
    print(json.dumps({'code': e.code, 'message': e.message, 'status': e.status}))`, { FERRY_AGENT_SOCKET: agent.socket });
    expect(missing).toMatchObject({ code: 'FERRY_IMAGE_NOT_FOUND', status: 404 });
    const down = python(`
import json, ferry_agent
try:
    ferry_agent.ensure('x', socket=${JSON.stringify(join(work, 'nobody.sock'))})
except ferry_agent.FerryAgentError as e:
    print(json.dumps({'code': e.code, 'message': e.message}))`);
    expect(down).toMatchObject({ code: 'FERRY_AGENT_UNAVAILABLE' });
  }, 2 * NOVA_PYTHON_MS);

  it('agent: 3 nova workers ask again after a failed clone while an eviction\'s fence holds the copy → one shared wait, each answered 503 FERRY_HAND_OUT_TIMEOUT by its own deadline (timeout 8 s: at 4 s, nova\'s client waits 38 s); the fence lifted, the copy', async () => {
    const id = await image('fenced', 'site-b');
    const first = await post({ image: id });
    const target = ensureJsonSchema.parse(first.body).target;
    if (target === null) throw new Error('no target for an image in site-b');
    const copy = `${target.pool}/${target.image}`;
    // An eviction's fence whose last look is 5 s ahead (inside the agent's 10 s margin): the agent waits for the run.
    const fence = JSON.stringify({ run: 'it-agent', recheck_at: new Date(Date.now() + 5_000).toISOString(), by: 'the agent test' });
    expect(ceph('site-b', 'rbd', ['image-meta', 'set', copy, 'ferry.evicting', fence], 'admin').code).toBe(0);
    const retry = { image: id, timeout: 8, retry_after_failed_clone: { pool: target.pool, image: target.image, snapshot: target.snapshot } };
    const waitsBefore = agent.stderr().split('\n').filter((line) => line.includes('not handing out the copy yet') && line.includes(id)).length;
    const started = performance.now();
    const answers = await Promise.all([0, 1, 2].map(async () => {
      const answer = await post(retry);
      return { status: answer.status, code: (answer.body as { error?: { code?: string } }).error?.code, ms: performance.now() - started };
    }));
    const looks = agent.stderr().split('\n').filter((line) => line.includes('not handing out the copy yet') && line.includes(id)).length - waitsBefore;
    expect(ceph('site-b', 'rbd', ['image-meta', 'remove', copy, 'ferry.evicting'], 'admin').code).toBe(0);
    expect(answers.map(({ status, code }) => [status, code])).toEqual([[503, 'FERRY_HAND_OUT_TIMEOUT'], [503, 'FERRY_HAND_OUT_TIMEOUT'], [503, 'FERRY_HAND_OUT_TIMEOUT']]);
    for (const { ms } of answers) {
      expect(ms).toBeGreaterThan(3_500);
      expect(ms).toBeLessThan(8_000);
    }
    // One wait for the three, backing off from 0.5 s: 9 looks in 4 s at most (every delay its 0.5 s floor), where a
    // loop per request at a fixed 0.5 s made 3 × 9.
    expect(looks).toBeGreaterThanOrEqual(1);
    expect(looks).toBeLessThanOrEqual(9);
    console.log(`retries answered at ${answers.map(({ ms }) => Math.round(ms)).join(', ')} ms; ${looks} looks for the three`);
    const after = await post(retry);
    expect([after.status, ensureJsonSchema.parse(after.body).target?.url]).toEqual([200, target.url]);
  }, INTEGRATION_TEST_MS + 2 * CEPH_MS);
});

// Debian 12's nova always; a newer nova (Debian sid's) when scripts/nova-newer-check prepared one (docs/nova-patch.md).
const newer = newerNova();
const novaTrees: NovaTree[] = newer ? [DEBIAN_NOVA, newer] : [DEBIAN_NOVA];

for (const tree of novaTrees) describe(`nova's real Rbd.clone() with the ferry patch (nova ${tree.version}, ${tree.patch})`, () => {
  let nova: ReturnType<typeof patchedNova>;
  const clone = (image: string, name: string, store: string, env?: Record<string, string>) =>
    novaClone({ root: nova.root, conf: novaConf(work, store, { socket: agent.socket }), image, name, token, socket: agent.socket, libs: tree.libs, env, chroot: tree.chroot });

  beforeAll(() => { nova = patchedNova(tree); });
  afterAll(() => { nova.cleanup(); });

  it('nova: an image only in site-a → nova clones at site-b from the site-b copy', async () => {
    const id = await image('nova-one', 'site-a');
    const name = `it-agent-nova-${id.slice(0, 8)}`;
    const result = await clone(id, name, 'site-b');
    expect(result).toMatchObject({ ok: true, patched: true, version: tree.version, warnings: [], retries: 0 });
    expect(result.module.startsWith(nova.root)).toBe(true);
    clones.push(`vms/${name}`);
    const info = ceph('site-b', 'rbd', ['info', `vms/${name}`]);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain(`parent: images/${id}@snap`);
  }, INTEGRATION_TEST_MS + novaCloneMs() + CEPH_MS);

  it('nova: two nova processes booting the same image at once → one Glance copy task, both clones made, no download', async () => {
    const id = await image('nova-two', 'site-a');
    const names = [1, 2].map((n) => `it-agent-nova${n}-${id.slice(0, 8)}`);
    const results = await Promise.all(names.map((name) => clone(id, name, 'site-b')));
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    clones.push(...names.map((n) => `vms/${n}`));
    for (const name of names) {
      // A download would leave a flat image without a parent.
      expect(ceph('site-b', 'rbd', ['info', `vms/${name}`]).stdout).toContain(`parent: images/${id}@snap`);
    }
    expect((await imageTasks(id)).filter((t) => t.input.backend?.includes('site-b'))).toHaveLength(1);
  }, INTEGRATION_TEST_MS + novaCloneMs() + 2 * CEPH_MS);

  // Failing fast means nova got the agent's answer, not that it gave up retrying: no retry, and far inside the retry
  // window (a wall-clock bound of a few seconds failed under a loaded CI machine: 4.5 s, the time is nova's imports).
  it('nova: a copy Glance fails → ImageUnacceptable naming ferry\'s error code at once (no retry, inside the retry window)', async () => {
    const id = await image('nova-fail', 'site-a');
    const retryTimeout = 60;
    const result = await novaClone({
      root: nova.root, conf: novaConf(work, 'broken', { socket: agent.socket, retryTimeout }), image: id,
      name: `it-agent-novafail-${id.slice(0, 8)}`, token, socket: agent.socket, libs: tree.libs, chroot: tree.chroot,
    });
    expect(result).toMatchObject({ ok: false, error: 'ImageUnacceptable', retries: 0 });
    expect(result.message).toContain('FERRY_COPY_FAILED');
    expect(result.seconds).toBeLessThan(retryTimeout / 2);
  }, INTEGRATION_TEST_MS + novaCloneMs());

  // nova 26's compute always runs under eventlet; newer nova-compute runs in native threading by default and under
  // eventlet when configured so ([DEFAULT] concurrency_backend / OS_NOVA_DISABLE_EVENTLET_PATCHING=0): both work.
  if (tree !== DEBIAN_NOVA) it('nova: the same clone with nova-compute in each concurrency mode (native threads, eventlet)', async () => {
    const id = await image('nova-modes', 'site-a');
    const modes = [{ mode: 'threading', env: { OS_NOVA_DISABLE_EVENTLET_PATCHING: '1' } }, { mode: 'eventlet', env: { OS_NOVA_DISABLE_EVENTLET_PATCHING: '0' } }];
    for (const { mode, env } of modes) {
      const name = `it-agent-nova-${mode}-${id.slice(0, 8)}`;
      const result = await clone(id, name, 'site-b', env);
      expect(result).toMatchObject({ ok: true, patched: true, concurrency: mode });
      clones.push(`vms/${name}`);
      expect(ceph('site-b', 'rbd', ['info', `vms/${name}`]).stdout).toContain(`parent: images/${id}@snap`);
    }
  }, INTEGRATION_TEST_MS + 2 * novaCloneMs() + 2 * CEPH_MS);
});

describe('agent lifecycle', () => {
  it('agent: the systemd unit\'s ExecStartPre and ExecStart run by hand (nova.conf copied to the options ferry reads; the notify wrapper; the socket unit\'s group, mode 0660); SIGHUP re-reads; SIGTERM → exit 0, socket removed',
    async () => {
      const unit = readFileSync(`${process.cwd()}/packaging/systemd/ferry-agent.service`, 'utf8');
      const socket = join(work, 'unit', 'agent.sock');
      const copied = join(work, 'unit', 'nova.conf');
      const group = 'ceph'; // the dev cloud has no nova group; ceph-common brings this one
      // The unit's command lines, with this checkout's programs (the package's /usr/bin/ferry, /usr/lib/ferry/bin/* and
      // its Node) and the dev cloud's paths. Run by hand (no socket handed over by systemd), the agent binds the socket
      // itself with the group the socket unit gives it under systemd (ferry-agent.socket's SocketGroup=).
      const local = (arg: string): string => ({
        '/usr/lib/ferry/node/bin/node': process.execPath, '/usr/bin/ferry': `${process.cwd()}/bin/ferry`,
        '/etc/nova/nova.conf': novaConf(work, 'site-b'), '/run/ferry-agent/nova.conf': copied, '/run/ferry/agent.sock': socket,
      } as Record<string, string>)[arg] ?? arg.replace(/^\/usr\/lib\/ferry\/bin\//, `${process.cwd()}/bin/`);
      // $FERRY_NOVA_CONF as systemd expands it without /etc/default/ferry-agent: the unit's own Environment= default.
      const novaConfFiles = /^Environment=FERRY_NOVA_CONF=(.*)$/m.exec(unit)?.[1] ?? '';
      expect(novaConfFiles).toBe('/etc/nova/nova.conf:-/etc/nova/nova-compute.conf');
      // Each file of the list the dev cloud's: nova.conf this test's, nova-compute.conf one that is not there (the `-`:
      // read only when it exists, as on a host without nova-compute-kvm/-qemu's file).
      const novaConfList = novaConfFiles.split(':').map((entry) => (entry.startsWith('-') ? `-${join(work, 'unit', 'absent-nova-compute.conf')}` : local(entry))).join(':');
      const line = (key: string): string[] => (new RegExp(`^${key}=\\+?(.*)$`, 'm').exec(unit)?.[1] ?? '').replace('$FERRY_AGENT_ARGS', '')
        .replace('$FERRY_NOVA_CONF', novaConfList).trim().split(/\s+/).map(local);
      const socketUnit = readFileSync(`${process.cwd()}/packaging/systemd/ferry-agent.socket`, 'utf8');
      expect(/^SocketGroup=(.*)$/m.exec(socketUnit)?.[1]).toBe('nova');
      mkdirSync(join(work, 'unit'), { recursive: true });
      const [preFile = '', ...preArgs] = line('ExecStartPre');
      const pre = spawnSync(preFile, preArgs, { encoding: 'utf8', timeout: UNIT_PRE_MS });
      expect(pre.status, pre.stderr).toBe(0);
      expect(readFileSync(copied, 'utf8')).toContain('images_rbd_glance_store_name');
      const [file = '', ...args] = [...line('ExecStart'), '--socket-group', group];
      expect(args.slice(args.indexOf(`${process.cwd()}/bin/ferry`) + 1, args.indexOf(`${process.cwd()}/bin/ferry`) + 2)).toEqual(['agent']);
      const child = spawn(file, [...args, '--json'], { env: { ...process.env, ...cloudEnv() },
        stdio: ['ignore', 'pipe', 'pipe'], timeout: UNIT_AGENT_MS });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let health: Awaited<ReturnType<typeof callAgent>> | undefined;
      for (let i = 0; i < 200 && health?.status !== 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (existsSync(socket)) health = await callAgent(socket, { method: 'GET', path: '/healthz' }).catch(() => undefined);
      }
      expect(health?.body).toMatchObject({ ok: true, checks: { fsid: { fsid: devcloud().ceph['site-b'].fsid } } });
      const stat = statSync(socket);
      expect(stat.mode & 0o777).toBe(0o660);
      expect(stat.gid).toBe(Number(/^ceph:x:(\d+):/m.exec(readFileSync('/etc/group', 'utf8'))?.[1]));
      child.kill('SIGHUP');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await callAgent(socket, { method: 'GET', path: '/healthz' })).status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ socket, reloads: 1 });
      expect(existsSync(socket)).toBe(false);
    }, INTEGRATION_TEST_MS + UNIT_PRE_MS + UNIT_AGENT_MS);
});
