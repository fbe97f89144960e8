import { FerryError } from '../../src/errors/ferry-error.js';
import { createGlanceClient, glanceEndpointRoot, GLANCE_OWN_TOKEN_CHECK_PATH, type CopyRequestResult, type GlanceClient } from '../../src/glance/glance-client.js';
import { parseImage } from '../../src/glance/image.js';
import { parseTask, type GlanceTask } from '../../src/glance/image-task.js';
import { createCopyDurationEstimator } from '../../src/copy/copy-duration-estimator.js';
import type { CopyContext, CopyShared } from '../../src/copy/copy-context.js';
import type { EnsureOutcome } from '../../src/copy/ensure-result.js';
import { createSingleFlight } from '../../src/copy/single-flight.js';
import { createActingTokens } from '../../src/copy/acting-tokens.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { HttpRequest, HttpTransport } from '../../src/openstack/http-transport.js';
import { createSession } from '../../src/openstack/keystone-session.js';
import { createServiceClient } from '../../src/openstack/service-client.js';
import { RECORDED_AUTH } from './fixtures.js';
import { FSID_A, imageBody, type ImageShape } from './image-body.js';
import { fakeClock, type FakeClock } from './fake-clock.js';
import { createKeyedLimiter } from '../../src/concurrency/keyed-limiter.js';
import { DIRECT_COPIES_PER_CLUSTER } from '../../src/copy/transfer/rbd-direct-plan.js';

/**
 * A Glance that answers image reads from a script of snapshots (the last one repeats) and copy requests from a
 * script of answers; it counts every call. Pure orchestration tests need nothing else.
 */
export interface ScriptedGlance extends GlanceClient {
  readonly calls: { getImage: number; requestCopy: number; listImageTasks: number };
  readonly copyRequests: { id: string; stores: readonly string[] | undefined }[];
}

export function scriptedGlance(script: { images: readonly ImageShape[]; answers?: readonly (CopyRequestResult | Error)[];
  tasks?: readonly Record<string, unknown>[];
  /** One task list per listImageTasks call (the last repeats); overrides `tasks`. */
  taskLists?: readonly (readonly Record<string, unknown>[])[];
  /** Reads (by index of the call, from 0) that fail with this error, or hang until their signal aborts. */
  readFaults?: Readonly<Record<number, Error | 'hang'>>;
  onRead?: (index: number) => void }): ScriptedGlance {
  const calls = { getImage: 0, requestCopy: 0, listImageTasks: 0 };
  const copyRequests: { id: string; stores: readonly string[] | undefined }[] = [];
  let snapshot = 0;
  const read = (signal?: AbortSignal) => {
    const call = calls.getImage;
    calls.getImage += 1;
    // Like fetch: a read on an aborted signal fails at once.
    if (signal?.aborted === true) return Promise.reject(new FerryError('FERRY_ABORTED', 'GET /v2/images/x was aborted', 'Nothing to do.'));
    const fault = script.readFaults?.[call];
    if (fault === 'hang') {
      return new Promise<never>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new FerryError('FERRY_ABORTED', 'GET /v2/images/x was aborted', 'Nothing to do.')), { once: true });
      });
    }
    if (fault !== undefined) return Promise.reject(fault);
    const index = Math.min(snapshot, script.images.length - 1);
    snapshot += 1;
    script.onRead?.(index);
    return Promise.resolve(parseImage(imageBody(script.images[index]!)));
  };
  const unused = (): never => { throw new Error('not scripted'); };
  return {
    calls, copyRequests,
    getImage: (_id, call) => read(call?.signal),
    findImage: (_id, call) => read(call?.signal),
    requestCopy(id, request) {
      copyRequests.push({ id, stores: request.stores });
      const answer = script.answers?.[Math.min(calls.requestCopy, (script.answers?.length ?? 1) - 1)] ?? { kind: 'accepted', requestId: 'req-1' };
      calls.requestCopy += 1;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    listImageTasks() {
      const list = script.taskLists?.[Math.min(calls.listImageTasks, script.taskLists.length - 1)] ?? script.tasks ?? [];
      calls.listImageTasks += 1;
      return Promise.resolve(list.map((raw) => parseTask(raw)) as readonly GlanceTask[]);
    },
    listImages: unused, getStoresInfo: unused, getStoresDetail: unused, getImportInfo: unused, addLocation: unused, deleteFromStore: unused,
  };
}

export function copyContext(glance: GlanceClient, clock: FakeClock = fakeClock(), fsid = FSID_A): CopyContext & CopyShared & { clock: FakeClock } {
  return {
    glance, clock, logger: silentLogger,
    localFsid: () => Promise.resolve(fsid),
    copyFlights: createSingleFlight<EnsureOutcome>(),
    copyDurations: createCopyDurationEstimator(),
    rbdCopySlots: createKeyedLimiter(DIRECT_COPIES_PER_CLUSTER),
    actingTokens: createActingTokens(),
  };
}

/**
 * A copy context over the whole real stack (Glance client → service client → Keystone session with the recorded admin
 * → `inner`, nock behind it), on a fake clock; `sent` holds every request it put on the wire.
 */
export function wireCopyContext(inner: HttpTransport, fsid = FSID_A): { ctx: CopyContext & CopyShared & { clock: FakeClock }; sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  const transport: HttpTransport = { send: (request) => { sent.push(request); return inner.send(request); }, close: () => Promise.resolve() };
  const clock = fakeClock();
  const retry = { retries: 1, minDelayMs: 1, maxDelayMs: 1 };
  const session = createSession({ auth: RECORDED_AUTH.admin, endpoints: {}, transport, clock, retry });
  const glanceHttp = (userToken?: () => string, nextUserToken?: () => boolean) => createServiceClient({ serviceType: 'image', serviceName: 'Glance',
    session, transport, retry, normalizeEndpoint: glanceEndpointRoot,
    ...(userToken ? { actingFor: { userToken, ownTokenCheckPath: GLANCE_OWN_TOKEN_CHECK_PATH, ...(nextUserToken ? { nextUserToken } : {}) } } : {}) });
  const ctx = { ...copyContext(createGlanceClient(glanceHttp()), clock, fsid),
    glanceActingFor: (userToken: () => string, nextUserToken?: () => boolean) => createGlanceClient(glanceHttp(userToken, nextUserToken)) };
  return { ctx, sent };
}
