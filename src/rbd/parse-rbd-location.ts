import { pythonUnquote } from './python-quote.js';

/** The four parts of a snapshot location `rbd://fsid/pool/image/snapshot`, percent-decoded. */
export interface RbdLocation {
  readonly fsid: string;
  readonly pool: string;
  readonly image: string;
  readonly snapshot: string;
}

/** Why a URL is not a usable rbd snapshot location; the names follow nova's `parse_url` reasons. */
export type RbdLocationProblem = 'not-rbd' | 'blank-components' | 'not-snapshot';

export type RbdLocationParse =
  | { readonly ok: true; readonly location: RbdLocation }
  | { readonly ok: false; readonly reason: RbdLocationProblem; readonly message: string };

const PREFIX = 'rbd://';

/**
 * Parses a Glance location URL the way nova's `RBDDriver.parse_url` does, step for step, so that ferry and nova
 * never disagree about a location: the prefix must be exactly `rbd://` (case-sensitive, as in nova); the rest is
 * split on `/` before percent-decoding (so `%2F` inside a component is data, not a separator); an empty piece is
 * reported before a wrong count (a trailing `/` is "blank components", not "not a snapshot").
 * A URL that is merely unusable is a result, not an exception: images routinely carry file:// or http:// locations.
 */
export function parseRbdLocation(url: string): RbdLocationParse {
  if (!url.startsWith(PREFIX)) {
    return {
      ok: false,
      reason: 'not-rbd',
      message: `${url} is not stored in rbd (the URL does not start with ${PREFIX})`,
    };
  }
  const pieces = url.slice(PREFIX.length).split('/').map(pythonUnquote);
  if (pieces.some((piece) => piece === '')) {
    return {
      ok: false,
      reason: 'blank-components',
      message: `${url} has blank components (an empty part between slashes, or a trailing slash)`,
    };
  }
  const [fsid, pool, image, snapshot] = pieces;
  if (pieces.length !== 4 || fsid === undefined || pool === undefined || image === undefined || snapshot === undefined) {
    return {
      ok: false,
      reason: 'not-snapshot',
      message:
        `${url} is not an rbd snapshot location: it has ${pieces.length} part(s), ` +
        'a clonable location has 4 (rbd://fsid/pool/image/snapshot)',
    };
  }
  return { ok: true, location: { fsid, pool, image, snapshot } };
}
