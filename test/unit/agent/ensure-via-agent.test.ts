import { describe, expect, it } from 'vitest';
import type { Cloud } from '../../../src/cloud/cloud.js';
import type { GlanceClient } from '../../../src/glance/glance-client.js';
import { FSID_B, IMAGE_ID } from '../../helpers/image-body.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { scriptedGlance } from '../../helpers/scripted-glance.js';
import { cloudAgentHarness } from './cloud-agent-harness.js';
import { fakeCloud } from './fake-cloud.js';

const LOCAL = [{ stores: ['site-a', 'site-b'] }];
const agent = cloudAgentHarness();
const startAgent = async (cloud: Cloud): Promise<void> => {
  await agent.start(cloud);
};

function noImageGlance(): GlanceClient {
  return { ...scriptedGlance({ images: LOCAL }), findImage: () => Promise.resolve(undefined) };
}

const inProcess = (args: readonly string[], glance: GlanceClient) =>
  runFerry(['ensure', IMAGE_ID, '--store', 'site-b', '--fsid', FSID_B, '--no-agent', ...args], { connect: () => Promise.resolve(fakeCloud(glance)) });

describe('ferry ensure through the agent', () => {
  it('ensure --agent PATH: the same JSON document as in process', async () => {
    await startAgent(fakeCloud(scriptedGlance({ images: LOCAL })));
    const viaAgent = await runFerry(['ensure', IMAGE_ID, '--agent', agent.socket(), '--json']);
    const local = await inProcess(['--json'], scriptedGlance({ images: LOCAL }));
    expect(viaAgent.code).toBe(0);
    expect(local.code).toBe(0);
    const strip = (text: string) => ({ ...(JSON.parse(text) as Record<string, unknown>), seconds: 0 });
    expect(strip(viaAgent.stdout)).toEqual(strip(local.stdout));
  });

  it('ensure with FERRY_AGENT_SOCKET: the same text as in process', async () => {
    await startAgent(fakeCloud(scriptedGlance({ images: LOCAL })));
    const viaAgent = await runFerry(['ensure', IMAGE_ID], { env: { FERRY_AGENT_SOCKET: agent.socket() } });
    const local = await inProcess([], scriptedGlance({ images: LOCAL }));
    expect(viaAgent.stdout).toContain('already clonable in the local cluster');
    expect(viaAgent.stdout).toBe(local.stdout);
  });

  it('ensure --agent: a failure has the same error JSON and exit code as in process', async () => {
    await startAgent(fakeCloud(noImageGlance()));
    const viaAgent = await runFerry(['ensure', IMAGE_ID, '--agent', agent.socket(), '--json']);
    const local = await inProcess(['--json'], noImageGlance());
    expect(local.code).toBe(20);
    expect(viaAgent.code).toBe(local.code);
    expect(JSON.parse(viaAgent.stdout)).toEqual(JSON.parse(local.stdout));
  });

  it('ensure --agent PATH that does not answer: exit 60 FERRY_AGENT_UNAVAILABLE', async () => {
    const run = await runFerry(['ensure', IMAGE_ID, '--agent', agent.socket(), '--json']);
    expect(run.code).toBe(60);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'FERRY_AGENT_UNAVAILABLE' } });
  });
});
