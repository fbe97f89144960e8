import type { ImageLocation } from '../glance/image.js';
import type { RbdLocation, RbdLocationProblem } from './parse-rbd-location.js';

/** The cluster ferry clones into, and what it accepts from it. */
export interface LocalCluster {
  /** The local Ceph cluster's fsid (compared case-insensitively: it is a UUID). */
  readonly fsid: string;
  /** This site's Glance store id (`images_rbd_glance_store_name`); a location tagged with it is preferred. */
  readonly store?: string;
  /** Pools ferry may clone from; undefined or empty = any pool of the local cluster (as nova). */
  readonly poolAllowList?: readonly string[];
}

/** What ferry thinks of one location. Only `clonable` ones can be a clone source. */
export type LocationVerdictKind = 'clonable' | 'other-cluster' | 'unparsable' | 'pool-not-allowed';

export interface LocationVerdict {
  /** Position in the judged list: the image's locations in Glance's order, then direct_url if it adds one. */
  readonly index: number;
  readonly url: string;
  readonly store: string | undefined;
  /** `direct_url` when Glance hid `locations` (or direct_url named a URL absent from them). */
  readonly source: 'locations' | 'direct_url';
  readonly verdict: LocationVerdictKind;
  /** One sentence an operator can read: why this verdict. */
  readonly reason: string;
  /** The parsed parts, unless the URL is unparsable. */
  readonly parsed: RbdLocation | undefined;
  /** Which of nova's parse reasons, when unparsable. */
  readonly problem: RbdLocationProblem | undefined;
}

/** Everything needed to `rbd clone pool/image@snapshot <dest>` in the local cluster. */
export interface CloneTarget {
  readonly fsid: string;
  readonly pool: string;
  readonly image: string;
  readonly snapshot: string;
  /** The location URL exactly as Glance stores it. */
  readonly url: string;
}

/**
 * The answer to "can this image be cloned copy-on-write in my cluster right now?":
 * - `clonable`: yes, from `target`;
 * - `not-raw`: never, whatever the locations (only raw images are cloned; a copy would not help);
 * - `no-local-location`: not yet; a copy into the local store would fix it. `complete` is false when Glance hid the
 *   location list and only direct_url was judged, so a local location may exist that ferry cannot see;
 * - `locations-hidden`: ferry cannot tell: Glance shows neither locations nor direct_url to this caller.
 */
export type LocationClassification =
  | {
      readonly kind: 'clonable';
      readonly target: CloneTarget;
      readonly location: ImageLocation;
      readonly why: string;
      readonly verdicts: readonly LocationVerdict[];
    }
  | { readonly kind: 'not-raw'; readonly diskFormat: string | null }
  | { readonly kind: 'no-local-location'; readonly verdicts: readonly LocationVerdict[]; readonly complete: boolean }
  | { readonly kind: 'locations-hidden' };
