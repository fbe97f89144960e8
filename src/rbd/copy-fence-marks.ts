import { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';
import { runStoreCommand, type StoreCopiesOptions, type StorePool } from './store-copies.js';

// Writing and clearing an image-meta mark on several copies of one pool in one process (python/rbd_store_copies.py,
// `fence` / `unfence`). The mark's meaning (an eviction's fence) is evict/'s; this is only the edge that writes it.

export type MarkResult = 'set' | 'removed' | 'held-by-other' | 'not-set' | 'absent' | MarkHeld | MarkError;

/** `set` found the key holding another value (null: no mark where one was expected), or saw it written over after its write. */
export interface MarkHeld { readonly held: string | null }
export interface MarkError { readonly error: string; readonly errno: number }

export function isMarkError(result: MarkResult | undefined): result is MarkError {
  return typeof result === 'object' && 'error' in result;
}

const results = z.object({ results: z.array(z.object({ name: z.string(), ok: z.literal(true).optional(), removed: z.literal(true).optional(),
  other: z.literal(true).optional(), none: z.literal(true).optional(), absent: z.literal(true).optional(), held: z.string().nullable().optional(),
  error: z.string().optional(), errno: z.number().int().optional() })) });

function parse(stdout: string, shown: string): ReadonlyMap<string, MarkResult> {
  let wire: z.infer<typeof results>;
  try {
    wire = results.parse(JSON.parse(stdout));
  } catch {
    throw new FerryError('FERRY_CEPH', `${shown} answered something ferry does not understand: ${stdout.slice(0, 120)}`,
      'This is a defect of ferry\'s rbd_store_copies.py: please report it with the Ceph version.', { command: shown });
  }
  return new Map(wire.results.map((r): [string, MarkResult] => [r.name,
    r.ok ? 'set' : r.removed ? 'removed' : r.other ? 'held-by-other' : r.none ? 'not-set' : r.absent ? 'absent'
      : r.held !== undefined ? { held: r.held } : { error: r.error ?? 'unknown', errno: r.errno ?? 1 }]));
}

/**
 * image-meta `key`=`value` on each named image where `key` holds `expected` now (undefined: where it has no mark),
 * read again after the write; per image: set, held (another value: not written, or written over since), absent, or
 * the error (EPERM: the user may not write). librbd has no compare-and-set: read, compare, write, read again.
 */
export async function setCopyMarks(store: StorePool, key: string, value: string, expected: string | undefined, names: readonly string[],
  options: StoreCopiesOptions = {}): Promise<ReadonlyMap<string, MarkResult>> {
  if (names.length === 0) return new Map();
  const { stdout, shown } = await runStoreCommand(store, 'fence', [key, value, expected ?? '', ...names], options);
  return parse(stdout, shown);
}

/** Removes `key` where it still holds `value` (a mark someone else wrote since is left alone); a mark that could not be read or removed is an error. */
export async function clearCopyMarks(store: StorePool, key: string, value: string, names: readonly string[],
  options: StoreCopiesOptions = {}): Promise<ReadonlyMap<string, MarkResult>> {
  if (names.length === 0) return new Map();
  const { stdout, shown } = await runStoreCommand(store, 'unfence', [key, value, ...names], options);
  return parse(stdout, shown);
}
