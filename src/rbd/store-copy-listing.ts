import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';
import { fitPoolEntry } from './fit-pool-entry.js';
import type { PoolEntry } from './pool-entry.js';

// What python/rbd_store_copies.py prints about one pool, parsed once here: seconds become milliseconds, absent fields
// become undefined, and an answer that does not fit is FERRY_CEPH naming the field (a program of ours that answers
// nonsense is a defect to see, not a guess to make).

export type { CopyClone, PoolEntry, PoolImage, PoolImageProblem } from './pool-entry.js';

export interface PoolCapacity {
  readonly clusterBytes: number;
  readonly poolStoredBytes: number | undefined;
  readonly poolMaxAvailBytes: number | undefined;
}

export interface PoolListing {
  readonly pool: string;
  readonly snapshot: string;
  /** The pool's quota (`ceph osd pool set-quota … max_bytes`); undefined when none is set or it could not be read. */
  readonly quotaBytes: number | undefined;
  /** The pool's replicas (`size`), from the OSD map. */
  readonly replicas: number | undefined;
  /** From `ceph df`; undefined when the cluster does not report it (no ceph-mgr: every figure is 0). */
  readonly capacity: PoolCapacity | undefined;
  readonly images: readonly PoolEntry[];
  readonly trash: readonly PoolEntry[];
}

const stamp = z.number().nullable().optional();
const child = z.object({ pool: z.string(), namespace: z.string(), image: z.string(), id: z.string(), trash: z.boolean(), created: stamp });
const entry = z.union([
  z.object({ name: z.string(), id: z.string(), size: z.number().int().min(0), used: z.number().int().min(0).nullable(), created: stamp,
    accessed: stamp, modified: stamp, protected: z.boolean().nullable(), children: z.array(child), meta: z.record(z.string(), z.string()),
    deleted: stamp }),
  z.object({ name: z.string().nullable(), absent: z.literal(true), trashed: z.object({ id: z.string(), deleted: stamp }).optional() }),
  z.object({ name: z.string().nullable(), error: z.string(), errno: z.number().int() }),
]);
const listingWire = z.object({
  pool: z.string(), snapshot: z.string(), quota_bytes: z.number().int().min(0).nullable(), replicas: z.number().int().min(1).nullable().optional(),
  capacity: z.object({ cluster_bytes: z.number().min(0), pool_stored_bytes: z.number().min(0).nullable().optional(),
    pool_max_avail_bytes: z.number().min(0).nullable().optional() }).nullable(),
  images: z.array(entry), trash: z.array(entry),
});
const checkWire = z.object({ images: z.array(entry) });
/** The answer with its entries unchecked: fitPoolEntry checks them, and the whole schema runs when one does not fit. */
const listingOuterWire = listingWire.extend({ images: z.array(z.unknown()), trash: z.array(z.unknown()) });

type EntryWire = z.infer<typeof entry>;

const ms = (seconds: number | null | undefined): number | undefined => (seconds === null || seconds === undefined ? undefined : Math.round(seconds * 1000));

// A pool of a fleet holds hundreds of copies, most with no clone and no mark: they share one empty list and one empty
// record (frozen) rather than each holding its own (bench/fleet-plan.ts: 100 000 entries in one process).
const NO_CLONES: Extract<PoolEntry, { kind: 'image' }>['clones'] = Object.freeze([]);
const NO_META: Readonly<Record<string, string>> = Object.freeze({});
const isEmpty = (record: Readonly<Record<string, string>>): boolean => {
  for (const _key in record) return false;
  return true;
};

function entryOf(wire: EntryWire): PoolEntry {
  if ('absent' in wire) {
    return Object.freeze({ kind: 'absent', name: wire.name ?? '', ...(wire.trashed === undefined ? {} : { trashedMs: ms(wire.trashed.deleted) ?? 0 }) });
  }
  if ('error' in wire) return Object.freeze({ kind: 'unreadable', name: wire.name ?? '', message: wire.error, errno: wire.errno });
  return Object.freeze({
    kind: 'image', name: wire.name, id: wire.id, sizeBytes: wire.size, usedBytes: wire.used ?? undefined,
    createdMs: ms(wire.created), accessedMs: ms(wire.accessed), protected: wire.protected ?? undefined,
    clones: wire.children.length === 0 ? NO_CLONES : Object.freeze(wire.children.map((c) => Object.freeze({ pool: c.pool, namespace: c.namespace,
      image: c.image, id: c.id, trash: c.trash, createdMs: ms(c.created) }))),
    meta: isEmpty(wire.meta) ? NO_META : Object.freeze({ ...wire.meta }), trashedMs: ms(wire.deleted),
  });
}

function jsonOf(text: string, shown: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badAnswer(shown, `not JSON: ${text.slice(0, 120)}`);
  }
}

function parsed<T>(schema: z.ZodType<T>, json: unknown, shown: string): T {
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw badAnswer(shown, `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'does not fit'}`);
  }
  return result.data;
}

function badAnswer(shown: string, why: string): FerryError {
  return new FerryError('FERRY_CEPH', `${shown} answered something ferry does not understand (${why})`,
    'This is a defect of ferry\'s rbd_store_copies.py or of the python3-rbd binding: please report it with the Ceph version.',
    { command: shown });
}

/** Every entry by fitPoolEntry, or undefined when one does not fit. */
function fitEntries(raw: readonly unknown[], knownNames: ReadonlyMap<string, string> | undefined): readonly PoolEntry[] | undefined {
  const entries: PoolEntry[] = [];
  for (const item of raw) {
    const fitted = fitPoolEntry(item, knownNames);
    if (fitted === undefined) return undefined;
    entries.push(fitted);
  }
  return Object.freeze(entries);
}

/** The `list` answer; `knownNames`: strings to keep as the entries' names where equal (readStoreCopies). */
export function parsePoolListing(text: string, shown: string, knownNames?: ReadonlyMap<string, string>): PoolListing {
  const json = jsonOf(text, shown);
  const outer = listingOuterWire.safeParse(json);
  const images = outer.success ? fitEntries(outer.data.images, knownNames) : undefined;
  const trash = outer.success ? fitEntries(outer.data.trash, knownNames) : undefined;
  if (outer.success && images !== undefined && trash !== undefined) return listingOf({ ...outer.data, images, trash });
  const wire = parsed(listingWire, json, shown);
  return listingOf({ ...wire, images: Object.freeze(wire.images.map(entryOf)), trash: Object.freeze(wire.trash.map(entryOf)) });
}

function listingOf(wire: Omit<z.infer<typeof listingWire>, 'images' | 'trash'> & { images: readonly PoolEntry[]; trash: readonly PoolEntry[] }): PoolListing {
  return Object.freeze({
    pool: wire.pool, snapshot: wire.snapshot,
    quotaBytes: wire.quota_bytes === null || wire.quota_bytes === 0 ? undefined : wire.quota_bytes, replicas: wire.replicas ?? undefined,
    capacity: wire.capacity === null ? undefined : Object.freeze({ clusterBytes: wire.capacity.cluster_bytes,
      poolStoredBytes: wire.capacity.pool_stored_bytes ?? undefined, poolMaxAvailBytes: wire.capacity.pool_max_avail_bytes ?? undefined }),
    images: wire.images,
    trash: wire.trash,
  });
}

/** The `check` answer: the named images, in the order asked. */
export function parsePoolCheck(text: string, shown: string): readonly PoolEntry[] {
  return Object.freeze(parsed(checkWire, jsonOf(text, shown), shown).images.map(entryOf));
}
