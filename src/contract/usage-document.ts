import { z } from 'zod';
import { lastUseWhat, KEEP_REASONS } from '../evict/plan-eviction.js';
import { isStoreUsageError, type UsageReport } from '../evict/read-usage.js';
import { ERROR_TABLE, type FerryErrorCode } from '../errors/error-table.js';

// `ferry status --usage --json`: each store against its budget, and every copy in those stores. docs/cli.md
// ("ferry status --usage") documents it; a contract test parses its example with this schema.

const count = z.number().int().min(0);
const bytes = z.number().int().min(0);

export const usageStoreJsonSchema = z.object({
  store: z.string(),
  /** null when the store could not be read (`error` says why). */
  pool: z.string().nullable(), used_bytes: bytes.nullable(), copy_bytes: bytes.nullable(), other_bytes: bytes.nullable(), trash_bytes: bytes.nullable(),
  copies: count.nullable(),
  budget: z.string().nullable(), budget_bytes: bytes.nullable(),
  verdict: z.enum(['none', 'under', 'over', 'unmet']).nullable(), over_bytes: bytes.nullable(), evictable_bytes: bytes.nullable(), idle_seconds: count,
  /** Copies that may not go, by why: those with at least one copy. */
  kept: z.partialRecord(z.enum(KEEP_REASONS), z.object({ copies: count, bytes }).strict()),
  error: z.object({ code: z.enum(Object.keys(ERROR_TABLE) as [FerryErrorCode, ...FerryErrorCode[]]), message: z.string() }).strict().nullable(),
}).strict();

export const usageCopyJsonSchema = z.object({
  image: z.string(), name: z.string().nullable(), store: z.string(), bytes, clones: count, trashed_clones: count,
  last_used: z.string().nullable(), last_use: z.string(), locations: count, in_pool: z.boolean(), pinned: z.string().nullable(),
  /** The image's own pin that does not count here (its owner is not a pin owner), as evict's plan says it; else null. */
  pin_ignored: z.string().nullable(),
  /** Its image's owner (Glance's `owner`). */
  owner: z.string().nullable(),
  /** Why its idle copy may not go, when it is another project's (not a remove owner's), as evict's plan says it; else null. */
  not_owned: z.string().nullable(),
}).strict();

export const usageJsonSchema = z.object({
  read_at: z.string(),
  stores: z.array(usageStoreJsonSchema),
  copies: z.array(usageCopyJsonSchema),
}).strict();

export type UsageJson = z.infer<typeof usageJsonSchema>;

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

export function usageToJson(report: UsageReport): UsageJson {
  const stores = report.stores.map((entry): UsageJson['stores'][number] => {
    if (isStoreUsageError(entry)) {
      return { store: entry.store, pool: null, used_bytes: null, copy_bytes: null, other_bytes: null, trash_bytes: null, copies: null, budget: null,
        budget_bytes: null, verdict: null, over_bytes: null, evictable_bytes: null, idle_seconds: 0, kept: {}, error: { ...entry.error } };
    }
    return {
      store: entry.store, pool: entry.pool, used_bytes: entry.usedBytes, copy_bytes: entry.copyBytes, other_bytes: entry.otherBytes,
      trash_bytes: entry.trashBytes, copies: entry.copies.length, budget: entry.budget?.text ?? null, budget_bytes: entry.budgetBytes ?? null,
      verdict: entry.verdict, over_bytes: entry.overBytes, evictable_bytes: entry.evictableBytes, idle_seconds: Math.round(entry.idleMs / 1000),
      kept: Object.fromEntries(KEEP_REASONS.filter((key) => entry.kept[key].copies > 0).map((key) => [key, { ...entry.kept[key] }])),
      error: null,
    };
  });
  const copies = report.stores.flatMap((entry) => (isStoreUsageError(entry) ? [] : entry.copies.map((copy) => ({
    image: copy.imageId, name: copy.imageName, store: copy.store, bytes: copy.bytes, clones: copy.clones, trashed_clones: copy.trashedClones,
    last_used: iso(copy.lastUsedMs), last_use: lastUseWhat(copy), locations: copy.locations, in_pool: copy.inPool === 'yes', pinned: copy.pin ?? null,
    pin_ignored: entry.ignoredPins.get(copy.imageId) ?? null, owner: copy.owner, not_owned: entry.notOwned.get(copy.imageId) ?? null,
  }))));
  return { read_at: new Date(report.readAtMs).toISOString(), stores, copies };
}
