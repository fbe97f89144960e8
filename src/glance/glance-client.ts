import { FerryError } from '../errors/ferry-error.js';
import { httpErrorDetails, httpStatusError } from '../openstack/http-status-error.js';
import { serverMessage } from '../openstack/server-message.js';
import type { ServiceClient, ServiceResponse } from '../openstack/service-client.js';
import { classifyImportAnswer } from './import-answer.js';
import { parseImage, type GlanceImage } from './image.js';
import { parseImportInfo, type GlanceImportInfo } from './image-import-info.js';
import { parseImageList, type GlanceImagePage } from './image-list.js';
import { parseStoresInfo, type GlanceStoresInfo } from './image-store-info.js';
import { parseTaskList, type GlanceTask } from './image-task.js';
import { assertImageId } from './image-id.js';
import { ambiguousName, parseImageRef } from './image-ref.js';
import { classifyStoreDeleteAnswer, type StoreDeleteAnswer } from './store-delete-answer.js';

export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
}

export interface CopyRequest {
  /** Target stores, in the order Glance should write them. Exclusive with `allStores`. */
  readonly stores?: readonly string[];
  readonly allStores?: boolean;
  /** Glance's default is true: one failed store rolls back the others of the same request. */
  readonly allStoresMustSucceed?: boolean;
}

/** What a copy request achieved. Refusals that need a fix (unknown store, not active, 403, 404) are thrown instead. */
export type CopyRequestResult =
  | { readonly kind: 'accepted'; readonly requestId: string | undefined }
  | { readonly kind: 'already-present'; readonly store: string | undefined }
  /** `deadLock`: the lock now names a task Glance never stored (import-answer.ts): the next import busts it at once. */
  | { readonly kind: 'busy'; readonly message: string; readonly deadLock?: true };

export interface ImageListQuery {
  readonly limit?: number;
  readonly marker?: string;
  readonly name?: string;
  readonly status?: string;
  readonly visibility?: string;
  readonly tag?: string;
  /** Extra filters passed through as query parameters (Glance filters on custom properties: `k=v`). */
  readonly filters?: Readonly<Record<string, string>>;
}

/** Glance v2, one request per verb. get… throws a coded not-found; find… returns undefined; list… returns pages. */
export interface GlanceClient {
  getImage(id: string, call?: CallOptions): Promise<GlanceImage>;
  /** An ID (UUID) by ID only, never as a name; anything else by its unique name (two matches: FERRY_IMAGE_AMBIGUOUS). */
  findImage(idOrName: string, call?: CallOptions): Promise<GlanceImage | undefined>;
  listImages(query?: ImageListQuery, call?: CallOptions): Promise<GlanceImagePage>;
  requestCopy(id: string, request: CopyRequest, call?: CallOptions): Promise<CopyRequestResult>;
  getStoresInfo(call?: CallOptions): Promise<GlanceStoresInfo>;
  getStoresDetail(call?: CallOptions): Promise<GlanceStoresInfo>;
  getImportInfo(call?: CallOptions): Promise<GlanceImportInfo>;
  listImageTasks(id: string, call?: CallOptions): Promise<readonly GlanceTask[]>;
  /**
   * PATCH add /locations/- with metadata.store: register a copy someone else wrote (the direct RBD transfer). Glance
   * checks only the URL's scheme and the size, never the bytes: the caller proves them first. 403 → FERRY_LOCATION_REFUSED.
   */
  addLocation(id: string, location: NewLocation, call?: CallOptions): Promise<GlanceImage>;
  /**
   * DELETE /v2/stores/{store}/{id}: remove one store's copy (the location and its data). Outcomes a caller acts on come
   * back (removed, last location, not in that store, in use, not active); an unknown image or store and a refusal
   * throw (FERRY_IMAGE_NOT_FOUND, FERRY_STORE_NOT_FOUND, FERRY_FORBIDDEN). store-delete-answer.ts has Glance's order.
   */
  deleteFromStore(id: string, store: string, call?: CallOptions): Promise<StoreDeleteOutcome>;
}

export type StoreDeleteOutcome = Exclude<StoreDeleteAnswer, { kind: 'unknown-store' | 'image-not-found' | 'forbidden' | 'other' }>;

export interface NewLocation {
  readonly url: string;
  readonly store: string;
}

export function createGlanceClient(http: ServiceClient): GlanceClient {
  const get = (path: string, call?: CallOptions, accept?: readonly number[]): Promise<ServiceResponse> =>
    http.request({ method: 'GET', path, signal: call?.signal, ...(accept ? { accept } : {}) });

  const client: GlanceClient = {
    async getImage(id, call) {
      assertImageId(id);
      const response = await get(`/v2/images/${id}`, call, [200, 404]);
      if (response.status === 404) throw imageNotFound(id, response);
      return parseImage(response.body, response.endpoint);
    },

    async findImage(idOrName, call) {
      const ref = parseImageRef(idOrName);
      if (ref.kind === 'id') {
        // An ID is looked up as an ID only. Glance lets anyone name an image like another's UUID: a name lookup after
        // a 404 would hand back whatever image someone named so (a caller asked for one image and got another).
        const response = await get(`/v2/images/${ref.id}`, call, [200, 404]);
        return response.status === 200 ? parseImage(response.body, response.endpoint) : undefined;
      }
      // Names are not unique in Glance: two matches are an error, not a guess.
      const page = await client.listImages({ name: idOrName, limit: 2 }, call);
      if (page.images.length > 1) throw ambiguousName(idOrName, page.images.map((image) => image.id));
      return page.images[0];
    },

    async listImages(query = {}, call) {
      const response = await http.request({
        method: 'GET', path: '/v2/images', signal: call?.signal,
        query: { limit: query.limit, marker: query.marker, name: query.name, status: query.status,
          visibility: query.visibility, tag: query.tag, ...query.filters },
      });
      return parseImageList(response.body, response.endpoint);
    },

    async requestCopy(id, request, call) {
      assertImageId(id);
      const body = copyRequestBody(request);
      const response = await http.request({
        method: 'POST', path: `/v2/images/${id}/import`, body, signal: call?.signal, idempotent: false,
        accept: [202, 400, 403, 404, 409],
        // The copy runs in the glance-api worker that accepts this request. On pooled connections one worker of two
        // got every copy for long stretches of a prewarm (bench/RESULTS.md, "prewarm").
        connection: 'fresh',
      });
      const answer = classifyImportAnswer(response.status, serverMessage(response.body));
      const context = { method: 'POST', url: response.endpoint.slice('POST '.length), service: 'Glance' };
      switch (answer.kind) {
        case 'accepted':
          return { kind: 'accepted', requestId: response.requestId };
        case 'already-present':
        case 'busy':
          return answer;
        case 'unknown-store':
          throw new FerryError('FERRY_STORE_NOT_FOUND', `Glance has no store '${answer.store ?? '?'}' (${answer.message})`,
            'Check the store name against `ferry stores` (GET /v2/info/stores) and Glance\'s enabled_backends.',
            httpErrorDetails(response, context));
        case 'not-active':
          throw new FerryError('FERRY_IMAGE_NOT_ACTIVE', `image ${id} is not active, so Glance will not copy it (${answer.message})`,
            'Wait until the upload finishes (status active), or reactivate a deactivated image.', httpErrorDetails(response, context));
        case 'not-found':
          throw imageNotFound(id, response);
        case 'forbidden':
          throw new FerryError('FERRY_FORBIDDEN', `Glance refused the copy of image ${id}: ${answer.message || 'forbidden'}`,
            'copy-image is governed by the Glance policy "copy_image", admin-only by default. Give this identity the role ferry '
            + 'and install the policy ferry ships on the glance-api hosts (packaging/glance/ferry-policy.yaml; docs/security.md).',
            { ...httpErrorDetails(response, context), policy: 'copy_image' });
        case 'other':
          throw httpStatusError(response, context);
      }
    },

    async getStoresInfo(call) {
      const response = await get('/v2/info/stores', call);
      return parseStoresInfo(response.body, response.endpoint);
    },

    async getStoresDetail(call) {
      const response = await get('/v2/info/stores/detail', call);
      return parseStoresInfo(response.body, response.endpoint);
    },

    async getImportInfo(call) {
      const response = await get('/v2/info/import', call);
      return parseImportInfo(response.body, response.endpoint);
    },

    async listImageTasks(id, call) {
      assertImageId(id);
      const response = await get(`/v2/images/${id}/tasks`, call, [200, 404]);
      if (response.status === 404) throw imageNotFound(id, response);
      return parseTaskList(response.body, response.endpoint);
    },

    async addLocation(id, location, call) {
      assertImageId(id);
      const response = await http.request({
        method: 'PATCH', path: `/v2/images/${id}`, signal: call?.signal, idempotent: false, accept: [200, 400, 403, 404, 409],
        headers: { 'content-type': 'application/openstack-images-v2.1-json-patch' },
        body: [{ op: 'add', path: '/locations/-', value: { url: location.url, metadata: { store: location.store } } }],
      });
      if (response.status === 200) return parseImage(response.body, response.endpoint);
      if (response.status === 404) throw imageNotFound(id, response);
      throw locationRefused(id, location, response);
    },

    async deleteFromStore(id, store, call) {
      assertImageId(id);
      const response = await http.request({ method: 'DELETE', path: `/v2/stores/${encodeURIComponent(store)}/${id}`, signal: call?.signal,
        accept: [200, 204, 403, 404, 409] });
      const answer = classifyStoreDeleteAnswer(response.status, serverMessage(response.body));
      const context = { method: 'DELETE', url: response.endpoint.slice('DELETE '.length), service: 'Glance' };
      switch (answer.kind) {
        case 'image-not-found':
          throw imageNotFound(id, response);
        case 'unknown-store':
          throw new FerryError('FERRY_STORE_NOT_FOUND', `Glance has no store '${store}' (${answer.message})`,
            'Check the store name against `ferry stores` (GET /v2/info/stores) and Glance\'s enabled_backends.', httpErrorDetails(response, context));
        case 'forbidden':
          throw new FerryError('FERRY_FORBIDDEN', `Glance refused to remove image ${id} from store ${store}: ${answer.message || 'forbidden'}`,
            'Removing a store\'s copy takes an account of the image\'s owning project (or admin) that passes the Glance policy '
            + '"delete_image_location" (admin-only by default; packaging/glance/ferry-policy.yaml grants it to the role ferry-evict): '
            + 'see docs/evict.md, "Credentials".',
            { ...httpErrorDetails(response, context), policy: 'delete_image_location' });
        case 'other':
          throw httpStatusError(response, context);
        case 'removed':
        case 'last-location':
        case 'not-in-store':
        case 'in-use':
        case 'not-active':
          return answer;
      }
    },
  };
  return client;
}

/** Checked before any request: a bad combination never costs a round trip, and duplicates would wedge the lock. */
function copyRequestBody(request: CopyRequest): Record<string, unknown> {
  if (request.allStores === true && request.stores !== undefined) {
    throw new FerryError('FERRY_INVALID_OPTION', 'a copy request names stores and asks for all stores',
      'Give either a list of stores or all stores, not both.');
  }
  const body: Record<string, unknown> = { method: { name: 'copy-image' } };
  if (request.allStores === true) {
    body.all_stores = true;
  } else {
    const stores = request.stores ?? [];
    if (stores.length === 0) {
      throw new FerryError('FERRY_INVALID_OPTION', 'a copy request needs at least one target store', 'Name the store(s) to copy to.');
    }
    // Glance accepts duplicates with 202, then fails the task and keeps the image locked for 60 minutes.
    if (new Set(stores).size !== stores.length) {
      throw new FerryError('FERRY_INVALID_OPTION', `a copy request names a store twice: ${stores.join(', ')}`,
        'Name each store once (Glance would lock the image for 60 minutes otherwise).');
    }
    body.stores = [...stores];
  }
  if (request.allStoresMustSucceed !== undefined) body.all_stores_must_succeed = request.allStoresMustSucceed;
  return body;
}

function locationRefused(id: string, location: NewLocation, response: ServiceResponse): FerryError {
  const message = serverMessage(response.body) ?? '';
  const context = { method: 'PATCH', url: response.endpoint.slice('PATCH '.length), service: 'Glance' };
  const hidden = /invisible|show_multiple_locations/i.test(message);
  // Glance names the rule it refused by ("… complete set_image_location action."); Glance 25's is set_image_location,
  // later ones add_image_location. "You do not own this image" is Glance 25's database layer: owner or admin only.
  const rule = hidden ? 'show_multiple_locations' : /complete (\w+) action/.exec(message)?.[1] ?? (/do not own/i.test(message) ? 'set_image_location' : 'add_image_location');
  const hint = response.status === 403
    ? (hidden
      ? 'Glance hides locations (show_multiple_locations = false), and then refuses to add one: set show_multiple_locations = true in glance-api.conf, or use --transfer glance.'
      : `Adding a location is governed by the Glance policy "${rule}", and Glance lets only the project that owns the image (or an admin) add one: `
        + 'run the direct transfer as the role ferry in the project that owns the image, with packaging/glance/ferry-policy.yaml installed (docs/security.md), or use --transfer glance.')
    : 'Glance refused the location; check the URL and the image (its size, its status), or use --transfer glance.';
  return new FerryError('FERRY_LOCATION_REFUSED', `Glance refused to add location ${location.url} (store ${location.store}) to image ${id}: ${response.status} ${message || 'no message'}`,
    hint, { ...httpErrorDetails(response, context), ...(response.status === 403 ? { policy: rule } : {}) });
}

function imageNotFound(id: string, response: ServiceResponse): FerryError {
  return new FerryError('FERRY_IMAGE_NOT_FOUND', `Glance has no image ${id} (or it is not visible to this project)`,
    'Check the ID (openstack image list); images of other projects are visible only when shared or public.',
    { imageId: id, status: response.status, requestId: response.requestId });
}

/**
 * What ferry's own token alone asks Glance to tell a refused user token from its own (service-client.ts, ActingFor):
 * no policy rule guards it, and every access rule ferry ships allows it.
 */
export const GLANCE_OWN_TOKEN_CHECK_PATH = '/v2/info/stores';

/** Strip a version suffix from a catalog URL: the client's paths carry `/v2` themselves. */
export function glanceEndpointRoot(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v2(\.\d+)?$/, '');
}
