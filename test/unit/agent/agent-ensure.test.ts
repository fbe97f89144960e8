import { describe, expect, it } from 'vitest';
import { ensureCommand } from '../../../src/cli/commands/ensure.js';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { ensure } from '../../../src/copy/ensure.js';
import { FSID_B, IMAGE_ID } from '../../helpers/image-body.js';
import { scriptedGlance } from '../../helpers/scripted-glance.js';
import { send } from './agent-http.js';
import { cloudAgentHarness } from './cloud-agent-harness.js';
import { fakeCloud } from './fake-cloud.js';
import { COPY_TIMELINE, gatedGlance, until } from './gated-glance.js';

const agent = cloudAgentHarness();
const startAgent = (cloud: Cloud) => agent.start(cloud);

const ensureBody = JSON.stringify({ image: IMAGE_ID });

describe('agent over the copy engine', () => {
  it('agent: the document is exactly ensureCommand.toJson of the same ensure() (what ferry ensure --json prints)', async () => {
    await startAgent(fakeCloud(scriptedGlance({ images: COPY_TIMELINE })));
    const answer = await send(agent.socket(), 'POST', '/v1/ensure', { body: ensureBody });
    const direct = ensureJsonSchema.parse(ensureCommand.toJson(await ensure(fakeCloud(scriptedGlance({ images: COPY_TIMELINE })), IMAGE_ID, { store: 'site-b' })));
    expect(answer.status).toBe(200);
    const document = ensureJsonSchema.parse(answer.json());
    expect(document).toEqual({ ...direct, seconds: document.seconds });
    expect(document).toMatchObject({ copied: true, import_requests: 1 });
  });

  it('agent: 8 concurrent requests for one image → one copy request, one wait, every caller the same target', async () => {
    const { glance, release } = gatedGlance();
    const metrics = await startAgent(fakeCloud(glance));
    const answers = Array.from({ length: 8 }, () => send(agent.socket(), 'POST', '/v1/ensure', { body: ensureBody }));
    await until(async () => (await metrics.requestsJoined.get()).values[0]?.value === 7);
    expect(glance.calls.requestCopy).toBe(1);
    release();
    const documents = (await Promise.all(answers)).map((a) => a.json() as { target: unknown });
    expect(new Set(documents.map((d) => JSON.stringify(d))).size).toBe(1);
    expect(glance.calls.requestCopy).toBe(1);
    expect((await metrics.importsRequested.get()).values[0]?.value).toBe(1);
  });

  it('agent: a caller that disconnects does not cancel the copy for the others', async () => {
    const { glance, release, waitingReads } = gatedGlance();
    await startAgent(fakeCloud(glance));
    const leaving = new AbortController();
    const gone = send(agent.socket(), 'POST', '/v1/ensure', { body: ensureBody, signal: leaving.signal });
    const staying = send(agent.socket(), 'POST', '/v1/ensure', { body: ensureBody });
    await until(() => waitingReads.length > 0);
    leaving.abort();
    await expect(gone).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(waitingReads.every((signal) => !signal.aborted)).toBe(true);
    release();
    expect((await staying).json()).toMatchObject({ copied: true, import_requests: 1 });
  });

  it('agent: when the last caller is gone the wait stops (its reads are aborted); a new caller starts afresh', async () => {
    const { glance, release, waitingReads } = gatedGlance();
    await startAgent(fakeCloud(glance));
    const callers = [new AbortController(), new AbortController()];
    const pending = callers.map((c) => send(agent.socket(), 'POST', '/v1/ensure', { body: ensureBody, signal: c.signal }));
    await until(() => waitingReads.length > 0);
    for (const caller of callers) caller.abort();
    await Promise.allSettled(pending);
    await until(() => waitingReads.every((signal) => signal.aborted));
    release();
    const again = await send(agent.socket(), 'POST', '/v1/ensure', { body: ensureBody });
    expect(again.status).toBe(200);
    expect(again.json()).toMatchObject({ target: { fsid: FSID_B } });
  });
});
