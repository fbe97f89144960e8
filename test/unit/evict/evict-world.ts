import { FerryError } from '../../../src/errors/ferry-error.js';
import type { GlanceClient, StoreDeleteOutcome } from '../../../src/glance/glance-client.js';
import { parseImage, type GlanceImage } from '../../../src/glance/image.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { silentLogger } from '../../../src/logging/logger.js';
import type { CommandOutcome, CommandRunner } from '../../../src/rbd/command-runner.js';
import type { EvictContext } from '../../../src/evict/run-eviction.js';
import { fakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { FSID_A, FSID_B, imageBody } from '../../helpers/image-body.js';
import { DAY, MIB, NOW } from './copy-facts-fixture.js';

/**
 * A small cloud for the eviction's orchestration tests: Glance's images with their stores, site-b's pool with each
 * copy's bytes, clones (trash flag), timestamps and image-meta, and the two sides answering as Glance 25 and
 * rbd_store_copies.py do (a DELETE refused for the last location and for a copy with clones; fence, check, unfence).
 * `trashing` makes Glance behave as glance_store ≥ 4.6: a copy with clones is moved to the trash and 204 answered.
 */
/** The project of the scripted credential (ctx.projectId), and of every image unless its `owner` says otherwise (imageBody's). */
export const SCRIPTED_PROJECT = '11111111111111111111111111111111';

export interface WorldCopy {
  readonly id: string;
  readonly stores: string[];
  bytes: number;
  clones: { trash: boolean; created: number }[];
  created: number;
  accessed: number;
  meta: Record<string, string>;
  importing?: boolean;
  tags?: string[];
  properties?: Record<string, string>;
  /** The project that owns the image (default: the scripted credential's, SCRIPTED_PROJECT). */
  owner?: string;
  inTrash?: boolean;
  /** Reading its image-meta fails with this errno (unfence answers the error). */
  metaErrno?: number;
}

export interface World {
  readonly copies: Map<string, WorldCopy>;
  readonly glance: GlanceClient;
  readonly runner: CommandRunner;
  readonly clock: FakeClock;
  readonly ctx: EvictContext;
  /** Every request, in order: `GET id`, `DELETE store/id`, `rbd list|check|fence|unfence …`. */
  readonly calls: string[];
  /** Runs once, inside the next sleep (the grace period): what happens in the cloud meanwhile. */
  duringGrace(event: () => void): void;
  trashing: boolean;
  deleteError: Error | undefined;
  /** Images whose DELETE Glance refuses (403 FERRY_FORBIDDEN, as "You do not own this image"). */
  readonly forbidden: Set<string>;
  fenceErrno: number | undefined;
  /** What the unfence process answers instead (a process that fails: no result for any copy). */
  unfenceError: CommandOutcome | undefined;
  /** Runs once, right before the next fence is written: what another host does between the plan and the fence. */
  beforeFence: (() => void) | undefined;
  /** Wall-clock ms each Glance DELETE takes (a slow removal: a large copy, a loaded Glance). */
  deleteTakesMs: number;
  /** Runs at every Glance DELETE of a store's copy, before Glance acts on it (a clone appears at the last moment). */
  beforeDelete: ((id: string) => void) | undefined;
  /** Runs at every Glance DELETE, after Glance acted and before it answers (a boot has the image copied anew). */
  afterDelete: ((id: string) => void) | undefined;
}

export const SECONDS = (ms: number): number => ms / 1000;

export type WorldCopyShape = Pick<WorldCopy, 'id' | 'stores' | 'bytes'> & Partial<WorldCopy>;

export function createWorld(copies: readonly WorldCopyShape[], wallNowMs: number): World {
  const state = new Map<string, WorldCopy>(copies.map((copy) => [copy.id, { meta: {}, clones: [], created: wallNowMs - 3 * 86_400_000,
    accessed: wallNowMs - 3 * 86_400_000, ...copy }]));
  const calls: string[] = [];
  const clock = fakeClock(0, wallNowMs);
  let pending: (() => void) | undefined;
  const sleep = clock.sleep.bind(clock);
  clock.sleep = (ms, signal) => {
    const event = pending;
    pending = undefined;
    event?.();
    return sleep(ms, signal);
  };
  const image = (copy: WorldCopy): GlanceImage => parseImage({ ...imageBody({ stores: copy.stores }), id: copy.id, name: `img-${copy.id}`,
    tags: copy.tags ?? [], ...copy.properties, ...(copy.owner === undefined ? {} : { owner: copy.owner }), ...(copy.importing ? { os_glance_import_task: 'task-1' } : {}),
    locations: copy.stores.map((store) => ({ url: `rbd://${store === 'site-a' ? FSID_A : FSID_B}/images/${copy.id}/snap`, metadata: { store } })) });
  const world: World = {
    copies: state, calls, clock, trashing: false, deleteError: undefined, forbidden: new Set(), fenceErrno: undefined, unfenceError: undefined, deleteTakesMs: 0, beforeFence: undefined,
    beforeDelete: undefined, afterDelete: undefined,
    duringGrace: (event) => { pending = event; },
    ctx: undefined as never, glance: undefined as never, runner: undefined as never,
  };
  const glance: GlanceClient = {
    getImage(id) {
      calls.push(`GET ${id}`);
      const copy = state.get(id);
      return copy === undefined ? Promise.reject(new FerryError('FERRY_IMAGE_NOT_FOUND', 'no image', 'x')) : Promise.resolve(image(copy));
    },
    listImages() {
      calls.push('GET /v2/images');
      return Promise.resolve({ images: [...state.values()].map(image), next: undefined });
    },
    getStoresInfo: () => Promise.resolve(parseStoresInfo({ stores: [{ id: 'site-a' }, { id: 'site-b' }] })),
    getStoresDetail: () => Promise.resolve(parseStoresInfo({ stores: [{ id: 'site-a', type: 'rbd', properties: { pool: 'images' } },
      { id: 'site-b', type: 'rbd', properties: { pool: 'images' } }] })),
    deleteFromStore(id, store): Promise<StoreDeleteOutcome> {
      calls.push(`DELETE ${store}/${id}`);
      clock.advance(world.deleteTakesMs);
      world.beforeDelete?.(id);
      if (world.deleteError !== undefined) return Promise.reject(world.deleteError);
      if (world.forbidden.has(id)) {
        return Promise.reject(new FerryError('FERRY_FORBIDDEN', `Glance refused to remove image ${id} from store ${store}: You do not own this image`, 'x'));
      }
      const copy = state.get(id);
      if (copy === undefined || !copy.stores.includes(store)) return Promise.resolve({ kind: 'not-in-store', message: `Image ${id} is not stored in store ${store}.` });
      if (copy.stores.length === 1) return Promise.resolve({ kind: 'last-location', message: 'Cannot delete image data from the only store containing it.' });
      if (copy.clones.length > 0 && !world.trashing) return Promise.resolve({ kind: 'in-use', message: 'in use through the backend store outside of Glance' });
      copy.stores.splice(copy.stores.indexOf(store), 1);
      if (copy.clones.length > 0) copy.inTrash = true;
      else copy.bytes = -1; // gone from the pool
      copy.meta = copy.clones.length > 0 ? copy.meta : {};
      world.afterDelete?.(id);
      return Promise.resolve({ kind: 'removed' });
    },
    findImage: () => Promise.reject(new Error('not scripted')), requestCopy: () => Promise.reject(new Error('not scripted')),
    getImportInfo: () => Promise.reject(new Error('not scripted')), listImageTasks: () => Promise.reject(new Error('not scripted')),
    addLocation: () => Promise.reject(new Error('not scripted')),
  };
  const inPool = (copy: WorldCopy): boolean => copy.bytes >= 0 && !copy.inTrash;
  const entry = (copy: WorldCopy): Record<string, unknown> => ({ name: copy.id, id: `rbd-${copy.id}`, size: copy.bytes, used: copy.bytes,
    created: copy.created / 1000, accessed: copy.accessed / 1000, modified: copy.created / 1000, protected: true,
    children: copy.clones.map((clone, index) => ({ pool: 'vms', namespace: '', image: `vm-${index}`, id: `c${index}`, trash: clone.trash, created: clone.created / 1000 })),
    meta: { ...copy.meta } });
  const runner: CommandRunner = {
    run(_file, args) {
      const [command, ...rest] = args.slice(8);
      calls.push(`rbd ${command ?? ''}${rest.length > 0 ? ` ${rest.filter((arg) => arg !== '' && !arg.startsWith('{')).join(' ')}` : ''}`);
      const out = (value: unknown) => Promise.resolve({ outcome: 'exited' as const, exitCode: 0, signal: null, stdout: JSON.stringify(value), stderr: '' });
      const site = [...state.values()].filter((copy) => copy.stores.includes('site-b') || copy.inTrash);
      if (command === 'list') {
        return out({ pool: 'images', snapshot: 'snap', quota_bytes: 0, capacity: null, images: site.filter(inPool).map(entry), trash: [] });
      }
      if (command === 'check') {
        return out({ images: rest.map((name) => {
          const copy = state.get(name);
          if (copy === undefined || !inPool(copy)) {
            return { name, id: null, absent: true, ...(copy?.inTrash ? { trashed: { id: `rbd-${name}`, deleted: 1 } } : {}) };
          }
          return entry(copy);
        }) });
      }
      if (command === 'fence') {
        const event = world.beforeFence;
        world.beforeFence = undefined;
        event?.();
        const [key = '', value = '', expected = '', ...names] = rest;
        return out({ results: names.map((name) => {
          const copy = state.get(name);
          if (copy === undefined || !inPool(copy)) return { name, absent: true };
          if (world.fenceErrno !== undefined) return { name, error: 'RBD permission error', errno: world.fenceErrno };
          if ((copy.meta[key] ?? '') !== expected) return { name, held: copy.meta[key] ?? null };
          copy.meta[key] = value;
          return { name, ok: true };
        }) });
      }
      if (world.unfenceError !== undefined) return Promise.resolve(world.unfenceError);
      const [key = '', value = '', ...names] = rest;
      return out({ results: names.map((name) => {
        const copy = state.get(name);
        if (copy === undefined || !inPool(copy)) return { name, absent: true };
        if (copy.metaErrno !== undefined) return { name, error: 'RBD error reading metadata', errno: copy.metaErrno };
        if (copy.meta[key] === undefined) return { name, none: true };
        if (copy.meta[key] !== value) return { name, other: true };
        delete copy.meta[key];
        return { name, removed: true };
      }) });
    },
  };
  Object.assign(world, { glance, runner, ctx: { glance, clock, logger: silentLogger, projectId: () => Promise.resolve(SCRIPTED_PROJECT) } });
  return world;
}

/**
 * The cloud most evict tests start from: site-b holds five copies, each a case of the plan (idle, idle for longer,
 * cloned, the only location, used an hour ago).
 */
/**
 * During the grace a boot clones `id` (kept at the last look, its fence to lift) and its image-meta turns unreadable:
 * the fence cannot be lifted and is reported left (kept in-use, `fencesLeft`).
 */
export function fenceLeftOn(world: World, id: string): void {
  world.duringGrace(() => {
    const copy = world.copies.get(id)!;
    copy.clones.push({ trash: false, created: NOW + 1_000 });
    copy.metaErrno = 108;
  });
}

export function fiveCopyWorld(): World {
  return createWorld([
    { id: 'a-idle', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
    { id: 'b-idle', stores: ['site-a', 'site-b'], bytes: 200 * MIB, created: NOW - 9 * DAY, accessed: NOW - 9 * DAY },
    { id: 'c-busy', stores: ['site-a', 'site-b'], bytes: 300 * MIB, clones: [{ trash: false, created: NOW - DAY }] },
    { id: 'd-only', stores: ['site-b'], bytes: 400 * MIB },
    { id: 'e-fresh', stores: ['site-a', 'site-b'], bytes: 50 * MIB, created: NOW - 3_600_000, accessed: NOW - 3_600_000 },
  ], NOW);
}
