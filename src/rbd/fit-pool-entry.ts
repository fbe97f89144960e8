import type { CopyClone, PoolEntry } from './pool-entry.js';

// A fleet's pools list 100 000 copies (issue 28: 200 stores × 500), and zod's union costs more per entry than the
// plan that reads it (bench/fleet-plan.ts). fitPoolEntry checks an entry of rbd_store_copies.py's answer by hand and
// builds what the schema's parse and entryOf build from it, for the entries the schema accepts (its union's members
// tried in the same order); anything else gets undefined, and the caller runs the schema, whose message names the
// field. Entries with no clones or no marks share one frozen empty list or record: most copies have neither.

const NO_CLONES: readonly CopyClone[] = Object.freeze([]);
const NO_META: Readonly<Record<string, string>> = Object.freeze({});

const isPlain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
const isStamp = (value: unknown): value is number | null | undefined => value === undefined || value === null || Number.isFinite(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const ms = (seconds: number | null | undefined): number | undefined => (seconds === null || seconds === undefined ? undefined : Math.round(seconds * 1000));

function cloneOf(raw: unknown): CopyClone | undefined {
  if (!isPlain(raw)) return undefined;
  const { pool, namespace, image, id, trash, created } = raw;
  if (typeof pool !== 'string' || typeof namespace !== 'string' || typeof image !== 'string' || typeof id !== 'string'
    || typeof trash !== 'boolean' || !isStamp(created)) return undefined;
  return Object.freeze({ pool, namespace, image, id, trash, createdMs: ms(created) });
}

function metaOf(raw: unknown): Readonly<Record<string, string>> | undefined {
  if (!isPlain(raw)) return undefined;
  const keys = Object.keys(raw);
  if (keys.length === 0) return NO_META;
  const meta: Record<string, string> = {};
  for (const key of keys) {
    const value = raw[key];
    if (typeof value !== 'string') return undefined;
    meta[key] = value;
  }
  return Object.freeze(meta);
}

function imageOf(raw: Record<string, unknown>, knownNames: ReadonlyMap<string, string> | undefined): PoolEntry | undefined {
  const { name, id, size, used, created, accessed, modified, children, deleted } = raw;
  if (typeof name !== 'string' || typeof id !== 'string' || !isCount(size) || !(used === null || isCount(used))
    || !isStamp(created) || !isStamp(accessed) || !isStamp(modified) || !isStamp(deleted)
    || !(raw['protected'] === null || typeof raw['protected'] === 'boolean') || !Array.isArray(children)) return undefined;
  const meta = metaOf(raw['meta']);
  if (meta === undefined) return undefined;
  let clones = NO_CLONES;
  if (children.length > 0) {
    const list: CopyClone[] = [];
    for (const child of children) {
      const clone = cloneOf(child);
      if (clone === undefined) return undefined;
      list.push(clone);
    }
    clones = Object.freeze(list);
  }
  return Object.freeze({ kind: 'image' as const, name: knownNames?.get(name) ?? name, id, sizeBytes: size, usedBytes: used ?? undefined, createdMs: ms(created),
    accessedMs: ms(accessed), protected: (raw['protected']) ?? undefined, clones, meta, trashedMs: ms(deleted) });
}

/**
 * The entry as parsePoolListing gives it, when it fits one of the answer's three shapes; undefined when the schema must
 * judge it. An image's name is the string of `knownNames` equal to it, where there is one (memory only: readStoreCopies).
 */
export function fitPoolEntry(raw: unknown, knownNames?: ReadonlyMap<string, string>): PoolEntry | undefined {
  if (!isPlain(raw)) return undefined;
  const image = imageOf(raw, knownNames);
  if (image !== undefined) return image;
  const name = raw['name'];
  if (name !== null && typeof name !== 'string') return undefined;
  if (raw['absent'] === true) {
    const trashed = raw['trashed'];
    if (trashed === undefined) return Object.freeze({ kind: 'absent' as const, name: name ?? '' });
    if (!isPlain(trashed) || typeof trashed['id'] !== 'string' || !isStamp(trashed['deleted'])) return undefined;
    return Object.freeze({ kind: 'absent' as const, name: name ?? '', trashedMs: ms(trashed['deleted']) ?? 0 });
  }
  if (typeof raw['error'] === 'string' && Number.isSafeInteger(raw['errno'])) {
    return Object.freeze({ kind: 'unreadable' as const, name: name ?? '', message: raw['error'], errno: raw['errno'] as number });
  }
  return undefined;
}
