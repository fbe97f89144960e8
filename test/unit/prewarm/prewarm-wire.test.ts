import nock from 'nock';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpTransport } from '../../../src/openstack/http-transport.js';
import { prewarm } from '../../../src/prewarm/prewarm.js';
import { GLANCE_ROOT, keystoneTime, KEYSTONE_ROOT, loadExchange, RECORDED_IMPORT_REQUEST_ID, recordedTaskList, replay, tokenExchange } from '../../helpers/fixtures.js';
import { wireCopyContext } from '../../helpers/scripted-glance.js';

// prewarm() over the whole real stack (Glance client → service client → Keystone session → transport → nock): the
// requests it sends on the wire, answered with recorded bodies (fixtures/glance/*.json) whose store fields follow the
// recorded timelines of a two-store import.

const inner = createHttpTransport();
afterAll(() => inner.close());

const recorded = loadExchange('glance', 'image-active-site-a');
const image = recorded.body as Record<string, unknown>;
const id = String(image.id);
const TASK = '4fb06c5a-0000-4000-8000-00000000000a';
const json = { 'content-type': 'application/json' };
const at = (fields: Record<string, unknown>): string => {
  const { os_glance_import_task: _lock, ...rest } = { ...image, ...fields };
  return JSON.stringify(fields.os_glance_import_task === undefined ? rest : { ...rest, os_glance_import_task: fields.os_glance_import_task });
};

describe('prewarm on the wire', () => {
  it('prewarm: stores detail, one id=in listing, one import naming both stores with allow-failure, then image reads until the lock goes', async () => {
    const { ctx, sent } = wireCopyContext(inner);
    const { clock } = ctx;

    const keystone = replay(nock(KEYSTONE_ROOT), tokenExchange('token-password-admin', keystoneTime(clock.wallNow() + 3_600_000)),
      { headers: { 'x-subject-token': 'placeholder-token-1' } });
    const glance = replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'))
      .get('/v2/images').query({ limit: '1', id: `in:${id}` }).reply(200, JSON.stringify({ images: [JSON.parse(at({}))], first: '/v2/images' }), json)
      .post(`/v2/images/${id}/import`, { method: { name: 'copy-image' }, stores: ['site-b', 'central'], all_stores_must_succeed: false })
      .reply(202, '', { 'x-openstack-request-id': RECORDED_IMPORT_REQUEST_ID })
      .get(`/v2/images/${id}`).reply(200, at({ os_glance_import_task: TASK, os_glance_importing_to_stores: 'central,site-b', os_glance_failed_import: '' }), json)
      .get(`/v2/images/${id}`).reply(200, at({ stores: 'site-a,site-b', os_glance_import_task: TASK, os_glance_importing_to_stores: 'central',
        os_glance_failed_import: '' }), json)
      .get(`/v2/images/${id}`).reply(200, at({ stores: 'site-a,site-b,central', os_glance_importing_to_stores: '', os_glance_failed_import: '' }), json)
      // once the lock is gone: which task copied? ours, by the 202's request id
      .get(`/v2/images/${id}/tasks`).reply(200, recordedTaskList(id, [{ id: TASK, status: 'success', request_id: RECORDED_IMPORT_REQUEST_ID,
        stores: ['site-b', 'central'] }]), json);

    const report = await prewarm(ctx, { images: [id] }, { stores: ['site-b', 'central'], random: () => 0.5 });

    expect(report.items.map((item) => [item.store, item.outcome, item.taskId])).toEqual([['site-b', 'copied', TASK], ['central', 'copied', TASK]]);
    expect(report.requests).toEqual({ imageReads: 3, importRequests: 1, taskReads: 1 });
    expect(sent.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'POST /v3/auth/tokens', 'GET /v2/info/stores/detail', 'GET /v2/images', `POST /v2/images/${id}/import`,
      `GET /v2/images/${id}`, `GET /v2/images/${id}`, `GET /v2/images/${id}`, `GET /v2/images/${id}/tasks`,
    ]);
    expect(keystone.isDone() && glance.isDone()).toBe(true);
  });
});
