import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';
import { runStoreCommand, type StoreCopiesOptions, type StorePool } from './store-copies.js';

// What whoever hands a copy out (the agent) reads of it right before: is the copy still there with its snapshot, and
// does an eviction's fence sit on it. One process for the names given (rbd_store_copies.py look), the image opened
// read-only and no children listed: the agent's read-only cephx user can ask.

export type CopyLook =
  | {
    readonly kind: 'copy';
    readonly name: string;
    /** The copy snapshot: protected (as Glance leaves it), unprotected (on its way out) or missing. */
    readonly snapshot: 'protected' | 'unprotected' | 'missing';
    /** image-meta keys starting with `ferry.`. */
    readonly meta: Readonly<Record<string, string>>;
  }
  | { readonly kind: 'absent'; readonly name: string }
  | { readonly kind: 'unreadable'; readonly name: string; readonly message: string; readonly errno: number };

const wire = z.object({
  images: z.array(z.union([
    z.object({ name: z.string(), protected: z.boolean().nullable(), meta: z.record(z.string(), z.string()) }),
    z.object({ name: z.string(), absent: z.literal(true) }),
    z.object({ name: z.string(), error: z.string(), errno: z.number().int() }),
  ])),
});

/** The named copies of the store's pool, in the order given. */
export async function lookAtCopies(store: StorePool, names: readonly string[], options: StoreCopiesOptions = {}): Promise<readonly CopyLook[]> {
  if (names.length === 0) return [];
  const { stdout, shown } = await runStoreCommand(store, 'look', names, options);
  let parsed: z.infer<typeof wire>;
  try {
    parsed = wire.parse(JSON.parse(stdout));
  } catch (error) {
    throw new FerryError('FERRY_CEPH', `${shown} printed an answer that does not fit: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
      'This is a defect in ferry: report it with the output of the same command run by hand.', { command: shown }, { cause: error });
  }
  return Object.freeze(parsed.images.map((entry): CopyLook => {
    if ('absent' in entry) return Object.freeze({ kind: 'absent', name: entry.name });
    if ('error' in entry) return Object.freeze({ kind: 'unreadable', name: entry.name, message: entry.error, errno: entry.errno });
    return Object.freeze({ kind: 'copy', name: entry.name, meta: Object.freeze({ ...entry.meta }),
      snapshot: entry.protected === null ? 'missing' : entry.protected ? 'protected' : 'unprotected' });
  }));
}
