// A Glance of several images for pure orchestration tests: each image answers reads from its own script of
// snapshots (the last one repeats; 'gone' = 404), copy requests from its own script of answers; every call counted.
import type { CopyRequestResult, GlanceClient, ImageListQuery } from '../../../src/glance/glance-client.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { parseImage, type GlanceImage } from '../../../src/glance/image.js';
import { ambiguousName, parseImageRef } from '../../../src/glance/image-ref.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { parseTask } from '../../../src/glance/image-task.js';
import { imageBody, type ImageShape } from '../../helpers/image-body.js';

export interface ImageScript {
  readonly name?: string;
  readonly reads: readonly (ImageShape | 'gone')[];
  readonly answers?: readonly (CopyRequestResult | FerryError)[];
  readonly tasks?: readonly Record<string, unknown>[];
  readonly tags?: readonly string[];
  readonly properties?: Readonly<Record<string, string>>;
}

export interface StoreShape {
  readonly id: string;
  readonly type?: string;
  readonly default?: boolean;
  readonly readOnly?: boolean;
}

export const DEV_STORES: readonly StoreShape[] = [
  { id: 'central', type: 'file', default: true }, { id: 'site-a', type: 'rbd' }, { id: 'site-b', type: 'rbd' }, { id: 'broken', type: 'file' },
];

export interface ScriptedImages extends GlanceClient {
  readonly reads: Record<string, number>;
  readonly copyRequests: { id: string; stores: readonly string[]; allStoresMustSucceed: boolean | undefined }[];
  readonly listQueries: ImageListQuery[];
  /** Called before each image read: tests abort or count here. */
  onRead?: (id: string, index: number) => void;
}

export function imageId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

export function imageOf(id: string, shape: ImageShape, script: Pick<ImageScript, 'name' | 'tags' | 'properties'> = {}): GlanceImage {
  return parseImage({ ...imageBody(shape), id, name: script.name ?? `img-${id.slice(-4)}`, tags: [...(script.tags ?? [])],
    ...script.properties });
}

function notFound(id: string): FerryError {
  return new FerryError('FERRY_IMAGE_NOT_FOUND', `Glance has no image ${id}`, 'Check the ID.', { imageId: id, status: 404 });
}

export function scriptedImages(scripts: Readonly<Record<string, ImageScript>>, options: {
  stores?: readonly StoreShape[]; detailForbidden?: boolean; pageSize?: number;
} = {}): ScriptedImages {
  const reads: Record<string, number> = {};
  const answered: Record<string, number> = {};
  const copyRequests: ScriptedImages['copyRequests'] = [];
  const listQueries: ImageListQuery[] = [];
  const stores = options.stores ?? DEV_STORES;
  const snapshot = (id: string, advance: boolean): GlanceImage => {
    const script = scripts[id];
    if (script === undefined) throw notFound(id);
    const index = Math.min(reads[id] ?? 0, script.reads.length - 1);
    if (advance) {
      client.onRead?.(id, index);
      reads[id] = (reads[id] ?? 0) + 1;
    }
    const shape = script.reads[index]!;
    if (shape === 'gone') throw notFound(id);
    return imageOf(id, shape, script);
  };
  const storesBody = (detail: boolean): unknown => ({ stores: stores.map((s) => ({ id: s.id, description: `store ${s.id}`,
    ...(s.default ? { default: 'true' } : {}), ...(s.readOnly ? { 'read-only': 'true' } : {}), ...(detail && s.type ? { type: s.type } : {}) })) });

  const client: ScriptedImages = {
    reads, copyRequests, listQueries,
    // Like fetch: a read on an aborted signal fails at once.
    getImage: (id, call) => (call?.signal?.aborted === true
      ? Promise.reject(new FerryError('FERRY_ABORTED', `GET /v2/images/${id} was aborted`, 'Nothing to do.'))
      : Promise.resolve().then(() => snapshot(id, true))),
    findImage: (ref) => Promise.resolve().then(() => {
      parseImageRef(ref);
      const ids = Object.keys(scripts).filter((candidate) => candidate === ref || scripts[candidate]?.name === ref);
      // As GlanceClient.findImage: a name two images carry is refused, never guessed.
      if (ids.length > 1) throw ambiguousName(ref, ids);
      // The selection's read is the script's first snapshot; the job's reads see the next ones.
      return ids[0] === undefined ? undefined : snapshot(ids[0], true);
    }),
    listImages(query = {}) {
      listQueries.push(query);
      const idsIn = query.filters?.id?.startsWith('in:') ? query.filters.id.slice(3).split(',') : undefined;
      const matching = Object.keys(scripts).filter((id) => {
        const script = scripts[id]!;
        if (idsIn !== undefined) return idsIn.includes(id) && !script.reads.includes('gone');
        if (query.tag !== undefined && !(script.tags ?? []).includes(query.tag)) return false;
        return Object.entries(query.filters ?? {}).every(([k, v]) => script.properties?.[k] === v);
      });
      const start = query.marker === undefined ? 0 : matching.indexOf(query.marker) + 1;
      const size = options.pageSize ?? query.limit ?? 25;
      const page = matching.slice(start, start + size);
      const images = page.map((id) => {
        if ((reads[id] ?? 0) === 0) reads[id] = 1;
        return imageOf(id, scripts[id]!.reads.find((r): r is ImageShape => r !== 'gone') ?? {}, scripts[id]);
      });
      const more = start + size < matching.length;
      return Promise.resolve({ images, next: more ? `/v2/images?marker=${page.at(-1)}` : undefined });
    },
    requestCopy(id, request) {
      copyRequests.push({ id, stores: request.stores ?? [], allStoresMustSucceed: request.allStoresMustSucceed });
      const script = scripts[id];
      if (script === undefined) return Promise.reject(notFound(id));
      const answers = script.answers ?? [];
      const answer = answers[Math.min(answered[id] ?? 0, answers.length - 1)] ?? { kind: 'accepted', requestId: 'req-1' };
      answered[id] = (answered[id] ?? 0) + 1;
      return answer instanceof FerryError ? Promise.reject(answer) : Promise.resolve(answer);
    },
    listImageTasks: (id) => Promise.resolve((scripts[id]?.tasks ?? []).map((raw) => parseTask(raw))),
    getStoresInfo: () => Promise.resolve(parseStoresInfo(storesBody(false))),
    getStoresDetail: () => (options.detailForbidden
      ? Promise.reject(new FerryError('FERRY_FORBIDDEN', 'Glance answered 403 to GET /v2/info/stores/detail', 'Use an admin.', { status: 403 }))
      : Promise.resolve(parseStoresInfo(storesBody(true), 'GET /v2/info/stores/detail'))),
    getImportInfo: () => Promise.reject(new Error('not scripted')),
    addLocation: () => Promise.reject(new Error('not scripted')),
    deleteFromStore: () => Promise.reject(new Error('not scripted')),
  };
  return client;
}
