// The soak's invariants, each a pure check of what the run observed: the run gathers the facts (boots, Glance's
// locations, the evictions' reports, rbd listings, RSS), these decide. Each returns the violations it found (empty:
// held), so the report can count each invariant's checks and failures.

/** What one boot through nova's real Rbd.clone() ended as (scripts/soak/nova_node.py), and what the soak saw after. */
export interface BootOutcome {
  readonly name: string;
  readonly image: string;
  readonly site: string;
  readonly ok: boolean;
  readonly error?: string;
  readonly message?: string;
  readonly warnings: readonly string[];
  /** `rbd info vms/NAME` on the node's own cluster: its parent (`images/ID@snap`), undefined when it has none. */
  readonly parent?: string;
}

/** What else happened while the boot ran: the reasons stock nova would fail that boot too. */
export interface BootContext {
  /** The image's tenant deleted it before the boot ended. */
  readonly imageDeleted: boolean;
  /** The token the boot used was revoked (expired) before the boot ended. */
  readonly tokenExpired: boolean;
  /** A Glance outage overlapped the boot: nova's own IMAGE_API.get and copy fail too. */
  readonly glanceDown: boolean;
  /** The node's own Ceph cluster lost its OSD or monitor during the boot: nova's clone itself fails. */
  readonly cephDown: boolean;
  /** A neighbour planted an RBD image under the image's name in the site's pool: Glance's copy there fails, nova's too. */
  readonly planted?: boolean;
}

export type BootRoute = 'agent-clone' | 'nova-own-copy' | 'stock-nova-fails-too';

export type BootVerdict =
  | { readonly ok: true; readonly route: BootRoute; readonly why: string }
  | { readonly ok: false; readonly why: string };

/** The patch's documented re-asks (docs/nova-patch.md): a clone source gone or not clonable yet, asked again. */
const ASKED_AGAIN = /the ferry agent handed out cannot be cloned; asking the ferry agent again|went away before Nova cloned it/;
const FALLBACK = /Nova copies it itself: (FERRY_[A-Z_]+|the ferry_agent module cannot be imported|the ferry agent answered for image)/;

/**
 * The codes docs/nova-patch.md's answer table sends to nova's own copy ("nova's own copy", "asked again, then nova's
 * own copy"): read from that table, so the soak judges by the documented table, not by a copy of it.
 */
export function ownCopyCodes(novaPatchMd: string): ReadonlySet<string> {
  const codes = new Set<string>();
  for (const line of novaPatchMd.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const answer = cells[1] ?? '';
    const does = cells[2] ?? '';
    if (!/nova's own copy$/.test(does)) continue;
    for (const match of answer.matchAll(/`(FERRY_[A-Z_]+)`/g)) codes.add(match[1]!);
    if (answer.includes('`ferry_agent` not importable')) codes.add('the ferry_agent module cannot be imported');
    if (answer.includes('another image')) codes.add('the ferry agent answered for image');
  }
  return codes;
}

/**
 * A boot passes when it ends as a copy-on-write clone of its own site's copy (through the agent, or through nova's own
 * copy where the answer table says so), or fails where stock nova would fail too (the image deleted, the token
 * expired, Glance or the node's Ceph down meanwhile).
 */
export function judgeBoot(boot: BootOutcome, context: BootContext, ownCopy: ReadonlySet<string>): BootVerdict {
  if (!boot.ok) {
    // The patch fell back to nova's own copy (a cause the table sends there): what failed is stock nova's own path.
    const fellBack = boot.warnings.map((w) => FALLBACK.exec(w)?.[1]).find((code) => code !== undefined && ownCopy.has(code));
    const reasons = [fellBack !== undefined && `nova's own copy (after ${fellBack}) failed as stock nova's does`,context.imageDeleted && 'the image was deleted', context.tokenExpired && 'the token expired',
      context.glanceDown && 'Glance was down', context.cephDown && `${boot.site}'s Ceph was down`,
      context.planted === true && `an RBD image was planted under its name in ${boot.site}'s pool`].filter((r): r is string => r !== false);
    if (reasons.length > 0) return { ok: true, route: 'stock-nova-fails-too', why: `${boot.error ?? 'failed'}: ${reasons.join(', ')}` };
    return { ok: false, why: `failed with nothing that fails stock nova: ${boot.error}: ${boot.message ?? ''}` };
  }
  if (boot.parent !== `images/${boot.image}@snap`) {
    return { ok: false, why: `not a copy-on-write clone of ${boot.site}'s copy: parent ${boot.parent ?? 'none'}` };
  }
  const fallback = boot.warnings.map((w) => FALLBACK.exec(w)?.[1]).find((code) => code !== undefined);
  if (fallback === undefined) {
    const other = boot.warnings.find((w) => !ASKED_AGAIN.test(w));
    const again = boot.warnings.length > 0 ? ' (asked the agent again after a clone source that could not be cloned)' : '';
    return other === undefined ? { ok: true, route: 'agent-clone', why: `cloned from the copy the agent made or found${again}` }
      : { ok: false, why: `cloned, but nova's image backend warned: ${other}` };
  }
  return ownCopy.has(fallback) ? { ok: true, route: 'nova-own-copy', why: `nova's own copy after ${fallback}` }
    : { ok: false, why: `nova's own copy after ${fallback}, which the answer table does not send there` };
}

/** Glance's view of one image: its stores (locations), and whether its tenant deleted it. */
export interface LocationsSeen {
  readonly image: string;
  readonly stores: readonly string[];
  readonly deleted: boolean;
}

/** No last location removed: an image not deleted by its owner that had a location must still have one. */
export function lastLocationsRemoved(before: readonly LocationsSeen[], now: readonly LocationsSeen[]): string[] {
  const seen = new Map(now.map((row) => [row.image, row]));
  return before.filter((row) => row.stores.length > 0).flatMap((row) => {
    const after = seen.get(row.image);
    if (after === undefined || after.deleted) return [];
    return after.stores.length === 0 ? [`image ${row.image} lost its last location (it was in ${row.stores.join(',')})`] : [];
  });
}

/** No copy with clones removed: a copy an eviction removed must have had no live instance cloned from it. */
export function copiesRemovedWithClones(removed: readonly { image: string; store: string }[],
  liveClones: readonly { image: string; site: string; name: string }[]): string[] {
  return removed.flatMap((copy) => liveClones.filter((clone) => clone.image === copy.image && clone.site === copy.store)
    .map((clone) => `the copy of ${copy.image} in ${copy.store} was removed while instance ${clone.name} was cloned from it`));
}

/** No bytes registered that differ from Glance's hash: each registered copy's bytes hash to the image's os_hash_value. */
export function hashMismatches(copies: readonly { image: string; store: string; expected: string; actual: string | undefined }[]): string[] {
  return copies.filter((copy) => copy.actual !== copy.expected)
    .map((copy) => `image ${copy.image} in ${copy.store}: bytes ${copy.actual === undefined ? 'unreadable' : `hash ${copy.actual.slice(0, 16)}…`}, Glance says ${copy.expected.slice(0, 16)}…`);
}

/** No fence left after its run: once no eviction runs, no copy carries ferry's fence (image-meta ferry.evicting). */
export function fencesLeft(fenced: readonly { image: string; store: string; fence: string }[]): string[] {
  return fenced.map((row) => `${row.store} copy of ${row.image} still fenced: ${row.fence}`);
}

/** What may keep a store over its budget once nothing boots and nothing else evicts: copies ferry may not remove. */
export const NOT_FERRYS_TO_REMOVE: readonly string[] = ['not-owned', 'last-copy', 'pinned'];

/** An import lock that held a copy at a final eviction (`importing`), and its task as Glance tells it (admin). */
export interface LockSeen {
  readonly image: string;
  readonly task: string;
  /** The task's status; undefined when Glance would not say (no such task). */
  readonly status: string | undefined;
  /** The task's `updated_at` (epoch ms): when it last moved. */
  readonly updatedAtMs: number | undefined;
}

/**
 * The images whose lock a Glance outage left: the task was still `processing` or `pending` and never moved again
 * after glance-api was killed (it last moved before glance-api came back). Nothing ends such a task: Glance keeps its
 * lock 60 min from its last move (120 pending) and busts it only on the next import request
 * (shared/reference/glance-multistore.md §7), and ferry's eviction may not remove a locked image's copy meanwhile
 * (docs/evict.md: `importing`). Glance's own rule, not ferry's to change: stock Glance keeps the lock the same.
 */
export function locksLeftByOutage(locks: readonly LockSeen[], glanceOutages: readonly { fromMs: number; toMs: number }[]): string[] {
  return locks.filter((lock) => (lock.status === 'processing' || lock.status === 'pending') && lock.updatedAtMs !== undefined
    && glanceOutages.some((outage) => lock.updatedAtMs! <= outage.toMs)).map((lock) => lock.image);
}

/**
 * Budgets met at the end: each store's final eviction run (nothing booting, no other run) is `met`, `under` or has no
 * budget (`none`); or `unmet` only by copies that are not ferry's to remove (its report's `budget.kept`: another
 * project's, an image's last copy, pinned, or held by an import lock a Glance outage left: `leftByOutage`, from
 * locksLeftByOutage), as docs/evict.md says an over-budget store ends. `importing`: the images of the copies kept so.
 */
export function budgetsUnmet(verdicts: readonly { store: string; verdict: string | undefined; kept?: readonly string[]; importing?: readonly string[] }[],
  leftByOutage: ReadonlySet<string> = new Set()): string[] {
  return verdicts.flatMap((row) => {
    if (row.verdict === undefined) return [`${row.store}: no final eviction report`];
    if (['met', 'under', 'none'].includes(row.verdict)) return [];
    const outagesLocks = row.importing !== undefined && row.importing.length > 0 && row.importing.every((image) => leftByOutage.has(image));
    const blocking = (row.kept ?? []).filter((reason) => !NOT_FERRYS_TO_REMOVE.includes(reason) && !(reason === 'importing' && outagesLocks));
    return row.verdict === 'unmet' && blocking.length === 0 ? [] : [`${row.store}: budget ${row.verdict}${blocking.length > 0 ? `, kept by ${blocking.join(', ')}` : ''}`];
  });
}

/** Memory flat: each agent's RSS at the end within `tolerance` (0.2: 20 %) of its value after warm-up. */
export function rssGrown(samples: readonly { agent: string; warmKiB: number; endKiB: number }[], tolerance = 0.2): string[] {
  return samples.filter((s) => s.endKiB > s.warmKiB * (1 + tolerance))
    .map((s) => `${s.agent}: RSS ${s.warmKiB} KiB after warm-up, ${s.endKiB} KiB at the end (+${Math.round((s.endKiB / s.warmKiB - 1) * 100)} %)`);
}

/** No leaks: whatever the soak started or made that is still there after it (processes, sockets, images, staging). */
export function leaks(left: { processes: readonly string[]; sockets: readonly string[]; rbdImages: readonly string[]; staging: readonly string[] }): string[] {
  return [
    ...left.processes.map((p) => `process still running: ${p}`),
    ...left.sockets.map((s) => `socket left: ${s}`),
    ...left.rbdImages.map((i) => `rbd image left: ${i}`),
    ...left.staging.map((s) => `staging left: ${s}`),
  ];
}

/**
 * What a tenant's `DELETE /v2/images/ID` did, from Glance's status: 204 deleted; 409 refused because an instance is
 * cloned from one of its copies (glance_store InUseByStore, as stock Glance answers nova's users): the image stays,
 * and the soak deletes it at its end like any other; anything else is not a tenant's delete to judge.
 */
export function tenantDeleteOutcome(status: number): 'deleted' | 'in-use' | 'refused' {
  if (status === 204 || status === 200 || status === 404) return 'deleted';
  return status === 409 ? 'in-use' : 'refused';
}
