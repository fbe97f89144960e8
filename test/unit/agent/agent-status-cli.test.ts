import { chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { readSocketFacts } from '../../../src/cli/inputs/node-facts.js';
import { nodeChecksJsonSchema } from '../../../src/contract/node-checks-document.js';
import { ERROR_TABLE } from '../../../src/errors/error-table.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { FSID_B } from '../../helpers/image-body.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { scriptedGlance } from '../../helpers/scripted-glance.js';
import { cloudAgentHarness } from './cloud-agent-harness.js';
import { fakeCloud } from './fake-cloud.js';

// `ferry agent status` against the real agent server (its own /healthz and /metrics), not a stand-in.
const agent = cloudAgentHarness();

function cloud(glanceAnswers: boolean): Cloud {
  const glance = { ...scriptedGlance({ images: [{ stores: ['site-b'] }] }),
    getStoresInfo: () => (glanceAnswers
      ? Promise.resolve({ stores: [{ id: 'site-b', description: undefined, isDefault: true, readOnly: false, type: undefined, properties: {} }] })
      : Promise.reject(new FerryError('FERRY_UNREACHABLE', 'Glance at http://glance:9292 could not be reached: ECONNREFUSED', 'Is glance-api running?'))) };
  return { ...fakeCloud(glance as never), localCluster: () => Promise.resolve({ fsid: FSID_B, source: 'option', confFile: undefined, user: undefined, warnings: [] }) };
}

const status = async (): Promise<ReturnType<typeof runFerry>> => {
  chmodSync(agent.socket(), 0o660);
  const group = readSocketFacts(agent.socket()).stat?.group ?? '?';
  return runFerry(['agent', 'status', '--agent', agent.socket(), '--socket-group', group, '--json']);
};

describe('ferry agent status against the agent', () => {
  it('ferry agent status: a healthy agent → every check of its /healthz ok, its version this ferry\'s, exit 0', async () => {
    await agent.start(cloud(true));
    const run = await status();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = nodeChecksJsonSchema.parse(JSON.parse(run.stdout));
    expect(json.checks.map((check) => `${check.name}:${check.status}`)).toEqual(['socket:ok', 'socket_group:ok', 'agent:ok', 'agent.token:ok',
      'agent.glance:ok', 'agent.fsid:ok', 'agent.transfer:ok', 'agent.stores:ok', 'agent.version:ok']);
    expect(json.checks.find((check) => check.name === 'agent.fsid')?.message).toBe('ok (from option)');
  });

  it('ferry agent status: Glance unreachable from the agent → agent.glance fails with the agent\'s code and message, exit 13', async () => {
    await agent.start(cloud(false));
    const run = await status();
    expect(run.code).toBe(ERROR_TABLE.FERRY_UNREACHABLE.exit);
    const json = nodeChecksJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ ok: false, code: 'FERRY_UNREACHABLE' });
    expect(json.checks.find((check) => check.name === 'agent.glance')).toMatchObject({ status: 'fail', code: 'FERRY_UNREACHABLE',
      message: 'Glance at http://glance:9292 could not be reached: ECONNREFUSED' });
  });
});
