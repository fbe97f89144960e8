// A Glance that answers image reads with the visibility rules of Glance 25 (glance/db/sqlalchemy/api.py image_get_all and
// _select_images_query, glance/db/utils.py is_image_visible, read in the installed package), for one project, over a
// real GlanceClient: what a project sees by ID, in the default listing and in `visibility=all`.
import { createGlanceClient, glanceEndpointRoot, type GlanceClient } from '../../src/glance/glance-client.js';
import { parseImage, type GlanceImage } from '../../src/glance/image.js';
import type { HttpRequest, HttpResponse, HttpTransport } from '../../src/openstack/http-transport.js';
import type { Session } from '../../src/openstack/keystone-session.js';
import { createServiceClient } from '../../src/openstack/service-client.js';
import { imageBody } from './image-body.js';

export interface VisibleImage {
  readonly id: string;
  readonly name: string;
  readonly owner: string;
  readonly visibility: 'public' | 'private' | 'shared' | 'community';
  /** For a shared image: the projects it is shared with, and whether each accepted. */
  readonly members?: Readonly<Record<string, 'accepted' | 'pending' | 'rejected'>>;
}

const ROOT = 'http://glance.test';

/** The body Glance would give, with the fields the visibility rules read. */
function bodyOf(image: VisibleImage): Record<string, unknown> {
  return { ...imageBody({ stores: ['central'] }), id: image.id, name: image.name, owner: image.owner, visibility: image.visibility,
    self: `/v2/images/${image.id}`, file: `/v2/images/${image.id}/file` };
}

/** GET /v2/images/{id}: is_image_visible (admin: all; public or community; owned; a member in any status). */
function visibleById(image: VisibleImage, project: string, admin: boolean): boolean {
  return admin || image.visibility === 'public' || image.visibility === 'community' || image.owner === project
    || (image.visibility === 'shared' && image.members?.[project] !== undefined);
}

/** GET /v2/images: _select_images_query (member_status accepted), then the visibility filter of image_get_all. */
function listed(image: VisibleImage, project: string, admin: boolean, visibility: string | undefined): boolean {
  const seen = admin || image.visibility === 'public' || image.visibility === 'community' || image.owner === project
    || (image.visibility === 'shared' && image.members?.[project] === 'accepted');
  if (!seen) return false;
  if (visibility !== undefined) return visibility === 'all' || image.visibility === visibility;
  // without a visibility: community images only when this project owns them
  return image.visibility !== 'community' || image.owner === project;
}

export function glanceSeenBy(images: readonly VisibleImage[], project: string, options: { admin?: boolean } = {}): GlanceClient {
  const admin = options.admin === true;
  const answer = (request: HttpRequest): HttpResponse => {
    const url = new URL(request.url);
    const reply = (status: number, body: unknown): HttpResponse => ({ status, headers: {}, body, requestId: 'req-test' });
    const byId = /^\/v2\/images\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && byId !== null) {
      const image = images.find((candidate) => candidate.id === byId[1]);
      return image !== undefined && visibleById(image, project, admin) ? reply(200, bodyOf(image)) : reply(404, '404 Not Found');
    }
    if (request.method === 'GET' && url.pathname === '/v2/images') {
      const q = url.searchParams;
      const ids = q.get('id')?.startsWith('in:') === true ? q.get('id')!.slice(3).split(',') : undefined;
      const name = q.get('name') ?? undefined;
      const limit = Number(q.get('limit') ?? '25');
      const matching = images.filter((image) => listed(image, project, admin, q.get('visibility') ?? undefined)
        && (ids === undefined || ids.includes(image.id)) && (name === undefined || image.name === name));
      return reply(200, { images: matching.slice(0, limit).map(bodyOf), schema: '/v2/schemas/images', first: '/v2/images' });
    }
    return reply(404, `not emulated: ${request.method} ${url.pathname}`);
  };
  const transport: HttpTransport = { send: (request) => Promise.resolve(answer(request)), close: () => Promise.resolve() };
  const session: Session = {
    token: () => Promise.resolve('token'), endpointFor: () => Promise.resolve(ROOT), invalidate: () => false,
    projectId: () => Promise.resolve(project), tokenRequests: 0, description: `project ${project}`,
  };
  return createGlanceClient(createServiceClient({ serviceType: 'image', serviceName: 'Glance', session, transport,
    retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1 }, normalizeEndpoint: glanceEndpointRoot }));
}

/** What sync with budgets reads: every image the project may see (GET /v2/images?visibility=all), parsed. */
export function listingSeenBy(images: readonly VisibleImage[], project: string, options: { admin?: boolean } = {}): GlanceImage[] {
  return images.filter((image) => listed(image, project, options.admin === true, 'all'))
    .map((image) => parseImage(bodyOf(image), `GET ${ROOT}/v2/images`));
}
