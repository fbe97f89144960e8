import type { GlanceImage, ImageLocation } from '../glance/image.js';
import type { CloneTarget, LocalCluster, LocationClassification, LocationVerdict } from './location-verdict.js';
import { parseRbdLocation } from './parse-rbd-location.js';

/** The parts of an image the decision reads; a GlanceImage fits. */
export type ImageLocationsView = Pick<GlanceImage, 'diskFormat' | 'locations' | 'directUrl'>;

interface Candidate {
  readonly location: ImageLocation;
  readonly source: LocationVerdict['source'];
}

/**
 * Decides whether an image can be cloned copy-on-write in the local cluster, as nova's `Rbd.clone` +
 * `is_cloneable` do, but explained. Order: the format gate first (exactly `raw`; nova lets `iso` through and then
 * copies for nothing); then every location gets a verdict (parse → fsid → pool allow-list); among the clonable ones
 * the location tagged with our store wins, else the first in Glance's order (nova: the first, whatever its store).
 * Snapshot existence (nova's last check) is I/O and left to the caller (`snapshotExists`).
 */
export function classifyLocations(image: ImageLocationsView, local: LocalCluster): LocationClassification {
  if (image.diskFormat !== 'raw') return { kind: 'not-raw', diskFormat: image.diskFormat };
  const candidates = candidatesOf(image);
  if (candidates === undefined) return { kind: 'locations-hidden' };
  const complete = image.locations !== undefined;
  const verdicts = candidates.map((candidate, index) => judge(candidate, index, local));
  const clonable = verdicts.filter((verdict) => verdict.verdict === 'clonable');
  const preferred = local.store === undefined ? undefined : clonable.find((verdict) => verdict.store === local.store);
  const chosen = preferred ?? clonable[0];
  const candidate = chosen === undefined ? undefined : candidates[chosen.index];
  if (chosen?.parsed === undefined || candidate === undefined) {
    return { kind: 'no-local-location', verdicts, complete };
  }
  const target: CloneTarget = { ...chosen.parsed, url: chosen.url };
  return {
    kind: 'clonable',
    target,
    location: candidate.location,
    why: explainChoice(chosen, preferred !== undefined, candidates.length, local),
    verdicts,
  };
}

/** locations, plus direct_url when it adds a URL (nova appends it unconditionally); undefined when both are hidden. */
function candidatesOf(image: ImageLocationsView): readonly Candidate[] | undefined {
  const fromList = (image.locations ?? []).map((location): Candidate => ({ location, source: 'locations' }));
  const direct = image.directUrl;
  if (direct === undefined || fromList.some((candidate) => candidate.location.url === direct)) {
    return image.locations === undefined ? undefined : fromList;
  }
  return [...fromList, { location: { url: direct, store: undefined, metadata: {} }, source: 'direct_url' }];
}

function judge(candidate: Candidate, index: number, local: LocalCluster): LocationVerdict {
  const { url, store } = candidate.location;
  const base = { index, url, store, source: candidate.source };
  const parse = parseRbdLocation(url);
  if (!parse.ok) {
    return { ...base, verdict: 'unparsable', reason: parse.message, parsed: undefined, problem: parse.reason };
  }
  const parsed = parse.location;
  if (!sameFsid(parsed.fsid, local.fsid)) {
    const tagged = local.store !== undefined && store === local.store;
    const reason = tagged
      ? `tagged with our store '${store}' but in cluster ${parsed.fsid}, not ours (${local.fsid}): ` +
        'the local fsid or the store name is misconfigured'
      : `in cluster ${parsed.fsid}, not ours (${local.fsid})`;
    return { ...base, verdict: 'other-cluster', reason, parsed, problem: undefined };
  }
  const allowed = local.poolAllowList;
  if (allowed !== undefined && allowed.length > 0 && !allowed.includes(parsed.pool)) {
    const reason = `in our cluster, but pool '${parsed.pool}' is not one of the allowed pools (${allowed.join(', ')})`;
    return { ...base, verdict: 'pool-not-allowed', reason, parsed, problem: undefined };
  }
  const reason = `in our cluster ${parsed.fsid}, pool '${parsed.pool}', snapshot ${parsed.image}@${parsed.snapshot}`;
  return { ...base, verdict: 'clonable', reason, parsed, problem: undefined };
}

/** fsids are UUIDs, which are case-insensitive; Ceph prints them lowercase, an operator may not type them so. */
function sameFsid(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

function explainChoice(chosen: LocationVerdict, preferred: boolean, total: number, local: LocalCluster): string {
  const which =
    chosen.source === 'direct_url'
      ? 'direct_url (Glance hides the location list)'
      : `location ${chosen.index + 1} of ${total}${chosen.store === undefined ? '' : ` (store '${chosen.store}')`}`;
  const where = `pool '${chosen.parsed?.pool ?? ''}' of our cluster ${chosen.parsed?.fsid ?? local.fsid}`;
  if (preferred) return `${which} is tagged with our store and lies in ${where}`;
  const untagged = local.store === undefined ? '' : `; no clonable location is tagged with our store '${local.store}'`;
  return `${which} is the first clonable one: it lies in ${where}${untagged}`;
}
