import type { RbdLocation } from './parse-rbd-location.js';
import { pythonQuote } from './python-quote.js';

/**
 * Writes a location the way glance_store's rbd `StoreLocation.get_uri` does: each component percent-encoded with no
 * safe characters, so the string equals what Glance stores and `parseRbdLocation` gives the same parts back.
 */
export function formatRbdLocation(location: RbdLocation): string {
  const parts = [location.fsid, location.pool, location.image, location.snapshot];
  return `rbd://${parts.map(pythonQuote).join('/')}`;
}
