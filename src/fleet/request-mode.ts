/**
 * How an image reaches several stores:
 * - `image`: one import request per image naming all its missing stores (`all_stores_must_succeed: false`); Glance
 *   stages the data once and writes the stores one after another;
 * - `store`: one request per store, one after another (Glance allows one import per image at a time).
 * bench/prewarm.ts measures both; docs/prewarm.md has the numbers behind the default.
 */
export const REQUEST_MODES = ['image', 'store'] as const;
export type RequestMode = (typeof REQUEST_MODES)[number];
