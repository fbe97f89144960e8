// The agent's `pool` check against the real dev cloud: site-b's only OSD is killed (scripts/devcloud/fault, the
// soak's OSD stop) while its mons keep answering. The fsid check stays ok (it reaches the mons only); the pool check
// (rbd ls, as client.ferry, in the pool of the copy the agent handed out or, before that, of a copy of its store that
// Glance lists) goes 0, in /healthz and in
// ferry_agent_health_check{check="pool"}, and back to 1 once the OSD is up again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { POOL_CHECK_DEFAULTS } from '../../../src/host/pool-check.js';
import { DEVCLOUD_STATUS_MS, devcloudHealthy, FAULT_KILL_MS, faults, FAULTS_UP_MS, until } from '../../helpers/devcloud-faults.js';
import { deleteImage, uploadImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { AGENT_START_MS, startAgent, type AgentProcess } from './agent-process.js';

/** A check round reports the last finished read: the next read starts within an interval and ends within its bound. */
const CHECK_LAGS_MS = POOL_CHECK_DEFAULTS.intervalMs + POOL_CHECK_DEFAULTS.timeoutMs;
/** Each /healthz on the socket runs the other checks too (a Glance request, a token): a few seconds on a loaded machine. */
const ROUND_MS = 10_000;
/** The upload (8 MiB into central) and the agent's copy to site-b: under a minute on the dev cloud. */
const COPY_MS = 120_000;
let agent: AgentProcess;
let id: string | undefined;

interface Healthz { readonly checks: Record<string, { ok: boolean; message?: string }> }

async function healthz(): Promise<Healthz> {
  const answer = await callAgent(agent.socket, { method: 'GET', path: '/healthz' });
  return answer.body as Healthz;
}

async function poolGauge(): Promise<number | undefined> {
  const metrics = await callAgent(agent.socket, { method: 'GET', path: '/metrics' });
  const line = String(metrics.body).split('\n').find((l) => l.startsWith('ferry_agent_health_check{check="pool"} '));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

beforeAll(async () => {
  agent = await startAgent([]);
}, AGENT_START_MS + 30_000);

afterAll(async () => {
  if (!devcloudHealthy()) faults.up();
  expect(await agent.stop()).toBe(0);
  if (id !== undefined) {
    await waitUnlocked(id);
    await deleteImage(id);
  }
}, DEVCLOUD_STATUS_MS + FAULTS_UP_MS + COPY_MS);

describe("the agent's pool check (real Ceph: site-b's OSD killed)", () => {
  it('before nova asks anything: the agent finds its pool in Glance\'s image list (a copy of ours) and reads it, 1', async () => {
    // What a restarted agent meets: nova clones images already at its site without asking it (soak seed 37: 7 minutes
    // without a hand-out, and an OSD stop in them paged no one).
    id = await uploadImage({ name: 'it-pool-check', store: 'site-b', sizeBytes: 8 * 1024 * 1024 });
    const pool = await until('the pool check appears without a hand-out', async () => (await healthz()).checks.pool,
      CHECK_LAGS_MS + 2 * ROUND_MS, 2_000);
    expect(pool).toEqual({ ok: true });
    expect(await poolGauge()).toBe(1);
  }, COPY_MS + CHECK_LAGS_MS + 3 * ROUND_MS);

  it('the OSD killed: the pool check goes 0 (the fsid check stays 1); the OSD up again: back to 1', async () => {
    faults.kill('ceph-site-b-osd');
    try {
      const failing = await until('the pool check fails', async () => {
        const { checks } = await healthz();
        return checks.pool?.ok === false ? checks : undefined;
      }, CHECK_LAGS_MS + 2 * ROUND_MS, 2_000);
      expect(failing.pool?.message).toMatch(/^pool images does not answer: the mons answer, but pool images's OSDs did not within 10 s/);
      expect(failing.fsid?.ok).toBe(true);
      expect(await poolGauge()).toBe(0);
    } finally {
      faults.up();
    }
    await until('the pool check passes again', async () => ((await healthz()).checks.pool?.ok === true ? true : undefined),
      CHECK_LAGS_MS + 2 * ROUND_MS, 2_000);
    expect(await poolGauge()).toBe(1);
  }, FAULT_KILL_MS + FAULTS_UP_MS + 2 * (CHECK_LAGS_MS + 2 * ROUND_MS));
});
