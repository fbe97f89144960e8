import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { REDACTED_PATHS } from '../../../src/logging/logger.js';
import { FSID_B, IMAGE_ID } from '../../helpers/image-body.js';
import { scriptedGlance } from '../../helpers/scripted-glance.js';
import { actingGlance } from './acting-glance.js';
import { send } from './agent-http.js';
import { cloudAgentHarness } from './cloud-agent-harness.js';
import { fakeCloud } from './fake-cloud.js';
import { COPY_TIMELINE, gatedGlance, until } from './gated-glance.js';

// Placeholder tokens, shaped like Keystone's Fernet tokens (printable ASCII, no space).
const TENANT_A = 'gAAAAABtenant-a-placeholder-token';
const TENANT_B = 'gAAAAABtenant-b-placeholder-token';
const LOCAL = [{ stores: ['site-a', 'site-b'] }];

const agent = cloudAgentHarness();
const body = JSON.stringify({ image: IMAGE_ID });
const ensureAs = (token: string | undefined, options: { signal?: AbortSignal; stream?: boolean } = {}) =>
  send(agent.socket(), 'POST', '/v1/ensure', { body, ...(options.signal ? { signal: options.signal } : {}),
    headers: { ...(token === undefined ? {} : { 'x-auth-token': token }), ...(options.stream ? { accept: 'application/x-ndjson' } : {}) } });

/** The fake cloud of the agent's tests, able to act for users; `sees` says whose token may see the image. */
function actingCloud(base: ReturnType<typeof scriptedGlance>, sees: (token: string) => boolean, hold?: (token: string) => Promise<void>) {
  const acting = actingGlance(base, sees, hold);
  const cloud: Cloud = { ...fakeCloud(base), glanceActingFor: acting.glanceActingFor };
  return { cloud, calls: acting.calls };
}

describe('agent: acting for the booting user (X-Auth-Token)', () => {
  it.each([
    ['sent twice', ['gAAAAABone', 'gAAAAABtwo'], 'was sent more than once'],
    ['empty', '', 'is empty'],
    ['with a space', 'gAAAAAB one', 'holds characters no token has (space, comma, control)'],
    ['too long', `gAAAAAB${'x'.repeat(4096)}`, 'is longer than 4096 characters'],
  ])('agent: an X-Auth-Token header %s → 400 FERRY_AGENT_BAD_REQUEST naming why, never repeating it, nothing asked of Glance', async (_case, header, why) => {
    const base = scriptedGlance({ images: LOCAL });
    const { cloud, calls } = actingCloud(base, () => true);
    await agent.start(cloud);
    const answer = await send(agent.socket(), 'POST', '/v1/ensure', { body, headers: { 'x-auth-token': header } });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'FERRY_AGENT_BAD_REQUEST', message: `bad ensure request: the X-Auth-Token header ${why}` } });
    expect(answer.text).not.toContain('gAAAAAB');
    expect(calls).toEqual([]);
  });

  it('agent: with X-Auth-Token the image is looked at with that token, also when the copy is already local; ferry\'s own client is not used', async () => {
    const base = scriptedGlance({ images: LOCAL });
    const { cloud, calls } = actingCloud(base, () => true);
    await agent.start(cloud);
    const answer = await ensureAs(TENANT_A);
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ copied: false, target: { fsid: FSID_B } });
    expect(calls).toEqual([{ verb: 'findImage', token: TENANT_A }]);
    expect(base.calls.getImage).toBe(1);
  });

  it('agent: without the header nothing acts for a user (ferry\'s own identity, as before)', async () => {
    const base = scriptedGlance({ images: LOCAL });
    const { cloud, calls } = actingCloud(base, () => true);
    await agent.start(cloud);
    expect((await ensureAs(undefined)).status).toBe(200);
    expect(calls).toEqual([]);
  });

  it.each([['already local', LOCAL], ['not local yet', COPY_TIMELINE]])('agent: a user who cannot see the image (%s) → 404 FERRY_IMAGE_NOT_FOUND, no copy requested', async (_case, images) => {
    const base = scriptedGlance({ images });
    const { cloud, calls } = actingCloud(base, (token) => token === TENANT_A);
    await agent.start(cloud);
    const answer = await ensureAs(TENANT_B);
    expect(answer.status).toBe(404);
    // seen_as: the agent looked as the user; nova's patch keeps FERRY_IMAGE_NOT_FOUND as a verdict only then.
    expect(answer.json()).toMatchObject({ error: { code: 'FERRY_IMAGE_NOT_FOUND', details: { seen_as: 'user' } } });
    expect(base.calls.requestCopy).toBe(0);
    expect(calls).toEqual([{ verb: 'findImage', token: TENANT_B }]);
  });

  it('agent: two tenants, one image → one copy request; the copy acts for the first, then for the second once the first has gone', async () => {
    const { glance, release } = gatedGlance();
    const { cloud, calls } = actingCloud(glance, () => true);
    const metrics = await agent.start(cloud);
    const first = new AbortController();
    const gone = ensureAs(TENANT_A, { signal: first.signal });
    await until(() => glance.calls.requestCopy === 1);
    const staying = ensureAs(TENANT_B);
    await until(async () => (await metrics.requestsJoined.get()).values[0]?.value === 1
      && calls.some((call) => call.token === TENANT_B));
    expect(calls.filter((call) => call.token === TENANT_B)).toEqual([{ verb: 'findImage', token: TENANT_B }]);
    first.abort();
    await expect(gone).rejects.toThrow();
    // The agent has seen the first request end (its token left the copy) once it counted it.
    await until(async () => (await metrics.ensures.get()).values.some((value) => value.labels.outcome === 'FERRY_ABORTED'));
    const before = calls.length;
    release();
    expect((await staying).json()).toMatchObject({ copied: true, import_requests: 1 });
    expect(glance.calls.requestCopy).toBe(1);
    expect(calls.filter((call) => call.verb === 'requestCopy')).toEqual([{ verb: 'requestCopy', token: TENANT_A }]);
    const after = calls.slice(before);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((call) => call.token === TENANT_B)).toBe(true);
  });

  it('agent: a streaming tenant who cannot see the image hears nothing of another tenant\'s copy of it', async () => {
    const { glance, release } = gatedGlance();
    let finished = (): void => undefined;
    const copied = new Promise<void>((resolve) => { finished = resolve; });
    // Tenant B's look at the image answers only once A's copy has published all its progress.
    const { cloud, calls } = actingCloud(glance, (token) => token === TENANT_A, (token) => (token === TENANT_B ? copied : Promise.resolve()));
    await agent.start(cloud);
    const running = ensureAs(TENANT_A, { stream: true });
    await until(() => glance.calls.requestCopy === 1);
    const refusing = ensureAs(TENANT_B, { stream: true });
    await until(() => calls.some((call) => call.token === TENANT_B));
    release();
    const answered = await running;
    expect(answered.text).toContain('"progress"');
    finished();
    const refused = await refusing;
    const lines = refused.text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ error: expect.objectContaining({ code: 'FERRY_IMAGE_NOT_FOUND' }) as unknown })]);
  });

  it.each([
    ['empty', ''],
    ['with a space', 'gAAAA BBB'],
    ['too long', 'a'.repeat(4097)],
  ])('agent: an X-Auth-Token %s → 400 FERRY_AGENT_BAD_REQUEST before any Glance call, not repeated in the answer', async (_name, token) => {
    const base = scriptedGlance({ images: LOCAL });
    const { cloud, calls } = actingCloud(base, () => true);
    await agent.start(cloud);
    const answer = await ensureAs(token);
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'FERRY_AGENT_BAD_REQUEST', details: { field: 'X-Auth-Token' } } });
    if (token.length > 0) expect(answer.text).not.toContain(token);
    expect(calls).toEqual([]);
    expect(base.calls.getImage).toBe(0);
  });

  it('agent: the user\'s token is in no log line and no answer, answered or refused (debug level)', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } });
    const logger = pino({ level: 'debug', redact: { paths: [...REDACTED_PATHS], censor: '<redacted>' } }, sink);
    const refusal = new FerryError('FERRY_FORBIDDEN', 'Glance refused the copy of image x: forbidden', 'Install the policy.',
      { method: 'POST', url: 'http://glance/v2/images/x/import', status: 403 });
    const base = scriptedGlance({ images: [{ stores: ['site-a'] }], answers: [refusal] });
    const { cloud } = actingCloud(base, (token) => token === TENANT_A);
    await agent.start(cloud, logger);
    const answers = [await ensureAs(TENANT_A), await ensureAs(TENANT_B), await ensureAs(TENANT_A, { stream: true })];
    expect(answers.map((answer) => answer.status)).toEqual([502, 404, 200]);
    expect(answers[0]?.json()).toMatchObject({ error: { code: 'FERRY_FORBIDDEN' } });
    expect(lines.length).toBeGreaterThan(0);
    for (const text of [...lines, ...answers.map((answer) => answer.text)]) {
      expect(text).not.toContain('tenant-a-placeholder');
      expect(text).not.toContain('tenant-b-placeholder');
    }
  });
});
