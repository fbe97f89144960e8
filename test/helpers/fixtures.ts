import { readFileSync } from 'node:fs';
import type nock from 'nock';
import { z } from 'zod';
import type { ApplicationCredentialAuthConfig, PasswordAuthConfig } from '../../src/config/ferry-config.js';

/**
 * Answers recorded from the real services (fixtures/<service>/<name>.json), and a way to serve one through nock.
 * Secrets in the recordings are placeholders (`<secret>`); Keystone's X-Subject-Token was not recorded, so a test
 * that needs one adds a placeholder header of its own (`replay(..., { headers: { 'x-subject-token': … } })`).
 */
export type KeystoneFixture = 'token-appcred' | 'token-appcred-with-scope' | 'token-bad-password' | 'token-password-admin'
  | 'token-password-member';

export type GlanceFixture = 'image-401' | 'image-404' | 'image-active-site-a' | 'image-after-copy' | 'image-queued'
  | 'image-tasks' | 'images-list-page1' | 'images-list-page2' | 'import-202' | 'import-400-already-present'
  | 'import-403-member' | 'import-404' | 'import-409-active-task' | 'import-409-new-operation' | 'import-409-not-active'
  | 'import-409-unknown-store' | 'info-import' | 'info-stores' | 'info-stores-detail' | 'info-stores-detail-403-member'
  | 'reference-image-file-location' | 'reference-image-locations-hidden' | 'reference-image-rbd-two-clusters'
  | 'reference-image-tasks' | 'reference-import-info' | 'reference-stores-detail' | 'reference-stores-info' | 'versions'
  | StoreDeleteFixture;

/** Recorded by scripts/devcloud/recorder/store-delete-cases.ts: DELETE /v2/stores/{store}/{image}. */
export type StoreDeleteFixture = 'store-delete-204' | 'store-delete-403-last-location' | 'store-delete-403-member' | 'store-delete-404-image'
  | 'store-delete-404-not-in-store' | 'store-delete-409-in-use' | 'store-delete-409-not-active' | 'store-delete-409-unknown-store';

export type PlacementFixture = 'allocation-candidates' | 'allocation-candidates-400-unknown-trait' | 'placement-403-member'
  | 'provider-404' | 'provider-create' | 'provider-inventories-put' | 'provider-traits-get' | 'provider-traits-put'
  | 'root' | 'traits-list-prefix' | 'traits-put-400-unknown' | 'traits-put-409-generation' | PrefilterPlacementFixture;

/** Recorded by scripts/devcloud/recorder/prefilter-cases.ts: five scoped compute nodes (pf-host-a … e). */
export type PrefilterPlacementFixture = 'prefilter-candidates' | 'prefilter-candidates-1024' | 'prefilter-candidates-none'
  | 'prefilter-providers' | 'prefilter-providers-qcow2' | 'prefilter-providers-x86' | 'prefilter-providers-disabled'
  | 'prefilter-providers-400-unknown-trait' | 'prefilter-inventories-e' | 'prefilter-usages-e'
  | 'prefilter-traits-a' | 'prefilter-traits-b' | 'prefilter-traits-c' | 'prefilter-traits-d' | 'prefilter-traits-e';

export type TimelineFixture = 'timeline-failure' | 'timeline-retry' | 'timeline-retry-other-store' | 'timeline-rollback'
  | 'timeline-success';

interface FixtureNames {
  readonly keystone: KeystoneFixture;
  readonly glance: GlanceFixture;
  readonly placement: PlacementFixture;
}
export type FixtureService = keyof FixtureNames;

const recordedRequest = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** Path below the service root, with its query string when there was one. */
  path: z.string().startsWith('/'),
  body: z.unknown().optional(),
});

const recordedExchange = z.object({
  request: recordedRequest,
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.unknown(),
});

const recordedTimeline = z.object({
  /** The stores the recorded import asked for. */
  store: z.array(z.string()),
  request: recordedRequest,
  post: z.object({ status: z.number().int(), t_ms: z.number() }),
  poll_interval_ms: z.number(),
  /** The image as each GET after the import POST saw it. */
  snapshots: z.array(z.object({ t_ms: z.number(), status: z.number().int(), body: z.record(z.string(), z.unknown()) })).min(1),
});

export type RecordedRequest = z.infer<typeof recordedRequest>;
export type RecordedExchange = z.infer<typeof recordedExchange>;
export type RecordedTimeline = z.infer<typeof recordedTimeline>;

function readFixture(relative: string): unknown {
  const url = new URL(`../../fixtures/${relative}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as unknown;
}

/** One recorded request/answer. Each call returns a fresh copy, so a test may change it without affecting others. */
export function loadExchange<S extends FixtureService>(service: S, name: FixtureNames[S]): RecordedExchange {
  const parsed = recordedExchange.safeParse(readFixture(`${service}/${name}`));
  if (!parsed.success) throw new Error(`fixtures/${service}/${name}.json is not a recorded exchange: ${parsed.error.message}`);
  return parsed.data;
}

/** A recorded copy-image timeline (fixtures/glance/timeline-*.json). */
export function loadTimeline(name: TimelineFixture): RecordedTimeline {
  const parsed = recordedTimeline.safeParse(readFixture(`glance/${name}`));
  if (!parsed.success) throw new Error(`fixtures/glance/${name}.json is not a recorded timeline: ${parsed.error.message}`);
  return parsed.data;
}

export interface ReplayOptions {
  /** Serve the answer at another path (e.g. another image id); default the recorded path. */
  readonly path?: string;
  /** Match the request body against the recorded one (deep equality). Default: when the recording has a body. */
  readonly matchBody?: boolean;
  /** Headers added to (or replacing) the recorded ones, e.g. a placeholder X-Subject-Token. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Hold the answer back this long (real time), e.g. to make calls overlap. */
  readonly delayMs?: number;
}

/** Register one nock interceptor (used once) answering with the recorded status, headers and body. */
export function replay(scope: nock.Scope, exchange: RecordedExchange, options: ReplayOptions = {}): nock.Scope {
  const { request } = exchange;
  const matchBody = options.matchBody ?? request.body !== undefined;
  const interceptor = matchBody
    ? scope.intercept(options.path ?? request.path, request.method, request.body as nock.RequestBodyMatcher)
    : scope.intercept(options.path ?? request.path, request.method);
  return (options.delayMs === undefined ? interceptor : interceptor.delay(options.delayMs))
    .reply(exchange.status, replyText(exchange.body), { ...exchange.headers, ...options.headers });
}

/** Register the timeline's snapshots, in order, as the answers to the next GETs of its image. */
export function replaySnapshots(scope: nock.Scope, timeline: RecordedTimeline,
  snapshots: RecordedTimeline['snapshots'] = timeline.snapshots): nock.Scope {
  for (const snapshot of snapshots) {
    scope.get(`/v2/images/${timelineImageId(timeline)}`)
      .reply(snapshot.status, JSON.stringify(snapshot.body), { 'content-type': 'application/json' });
  }
  return scope;
}

/** The image a timeline follows (from its import request's path). */
export function timelineImageId(timeline: RecordedTimeline): string {
  const match = /^\/v2\/images\/([^/]+)\/import$/.exec(timeline.request.path);
  if (!match?.[1]) throw new Error(`timeline request ${timeline.request.path} is not an import`);
  return match[1];
}

function replyText(body: unknown): string {
  if (body === null || body === undefined) return '';
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** The dev cloud's endpoints as its recorded catalog lists them (Keystone's identity URL ends in /v3). */
export const KEYSTONE_ROOT = 'http://127.0.0.1:15000';
export const GLANCE_ROOT = 'http://127.0.0.1:19393';

/**
 * A recorded token answer, with `expires_at` moved (tests put it relative to their fake clock) and nothing else
 * changed. The token value travels in the X-Subject-Token header, which the caller adds as a placeholder.
 */
export function tokenExchange(name: KeystoneFixture, expiresAt?: string): RecordedExchange {
  const exchange = loadExchange('keystone', name);
  if (expiresAt === undefined) return exchange;
  const body = exchange.body as { token: Record<string, unknown> };
  return { ...exchange, body: { ...body, token: { ...body.token, expires_at: expiresAt } } };
}

/** Keystone's own format: microseconds, always zero (keystone.md §6.1). */
export function keystoneTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, '.000000Z');
}

function recordedAppCredentialId(): string {
  const body = loadExchange('keystone', 'token-appcred').request.body as
    { auth: { identity: { application_credential: { id: string } } } };
  return body.auth.identity.application_credential.id;
}

/** The credentials the Keystone recordings were made with; secrets stay the recordings' placeholders. */
export const RECORDED_AUTH = {
  admin: { method: 'password', authUrl: `${KEYSTONE_ROOT}/v3`, username: 'admin', password: '<secret>',
    userDomain: { id: 'default' }, project: { name: 'admin', domain: { id: 'default' } } },
  badPassword: { method: 'password', authUrl: `${KEYSTONE_ROOT}/v3`, username: 'admin', password: 'not-the-password',
    userDomain: { id: 'default' }, project: { name: 'admin', domain: { id: 'default' } } },
  appcred: { method: 'application_credential', authUrl: `${KEYSTONE_ROOT}/v3`, id: recordedAppCredentialId(), secret: '<secret>' },
} as const satisfies Readonly<Record<string, PasswordAuthConfig | ApplicationCredentialAuthConfig>>;

/**
 * `GET /v2/images/{id}/tasks` for another image: the recorded task (fixtures/glance/image-tasks.json, whose request_id
 * is the recorded import-202's x-openstack-request-id) moved to `imageId`, one entry per override (id, status, message,
 * request_id, input.backend).
 */
export function recordedTaskList(imageId: string, overrides: readonly { id: string; status?: string; message?: string; request_id?: string;
  stores?: readonly string[] }[]): string {
  const task = (loadExchange('glance', 'image-tasks').body as { tasks: Record<string, unknown>[] }).tasks[0]!;
  const input = task.input as Record<string, unknown>;
  return JSON.stringify({ tasks: overrides.map(({ stores, ...fields }) => ({ ...task, image_id: imageId, ...fields,
    input: { ...input, image_id: imageId, ...(stores ? { backend: stores, import_req: { method: { name: 'copy-image' }, stores } } : {}) } })) });
}

/** The request id of the recorded import-202: the recorded task's request_id. */
export const RECORDED_IMPORT_REQUEST_ID = String(loadExchange('glance', 'import-202').headers['x-openstack-request-id']);
