import { hasStore, type GlanceImage } from '../glance/image.js';
import type { StoreFacts } from './store-catalogue.js';

/**
 * Where one image stands with respect to one store, from one snapshot:
 * - present: the store holds it;
 * - copying: an import someone else started is writing to this store right now (join it);
 * - failed-earlier: the last import to this store failed (`os_glance_failed_import`); a new one clears that;
 * - missing: not there, nothing running towards it;
 * - not-copyable: a copy cannot start, or would be useless (reason).
 */
export type PlanState = 'present' | 'copying' | 'failed-earlier' | 'missing' | 'not-copyable';

export type NotCopyableReason =
  /** A named image Glance does not know (or not uniquely). */
  | 'unresolved'
  | 'unknown-store'
  | 'read-only-store'
  /** Glance copies only `active` images (409 "Only images with status active…"). */
  | 'not-active'
  /** disk_format or container_format unset: Glance refuses the import (409). */
  | 'formats-unset'
  /** Glance hides `stores` from this caller (location policy): presence cannot be judged. */
  | 'stores-hidden'
  /** An rbd store and a non-raw image: nova clones only raw images, so the copy would be dead weight. */
  | 'not-raw';

export interface PlacementVerdict {
  readonly state: PlanState;
  readonly reason?: NotCopyableReason;
  /** For an operator: why this state. */
  readonly detail: string;
}

export interface ClassifyOptions {
  /** Copy non-raw images into rbd stores too (off: nova would never clone them from there). */
  readonly anyFormat?: boolean;
}

/** Pure. `store` undefined = Glance has no such store. */
export function classifyPlacement(image: GlanceImage, storeId: string, store: StoreFacts | undefined,
  options: ClassifyOptions = {}): PlacementVerdict {
  if (store === undefined) return notCopyable('unknown-store', `Glance has no store '${storeId}'`);
  if (hasStore(image.stores, storeId)) return { state: 'present', detail: `store ${storeId} holds it` };
  if (image.status !== 'active') return notCopyable('not-active', `image is ${image.status}; Glance copies only active images`);
  if (!image.storesVisible) {
    return notCopyable('stores-hidden', 'Glance hides the image\'s stores from this caller (get_image_location policy), so its copies cannot be judged');
  }
  if (image.diskFormat === null || image.containerFormat === null) {
    return notCopyable('formats-unset', 'disk_format or container_format is unset; Glance refuses to import it');
  }
  if (store.readOnly) return notCopyable('read-only-store', `store ${storeId} is read-only`);
  if (store.type === 'rbd' && image.diskFormat !== 'raw' && options.anyFormat !== true) {
    return notCopyable('not-raw', `disk_format ${image.diskFormat}: nova clones only raw images from an rbd store, so a copy there would not be used (--any-format copies anyway)`);
  }
  const lock = image.importTask;
  if (lock !== undefined && hasStore(image.importingTo, storeId)) {
    return { state: 'copying', detail: `import task ${lock} is copying it to ${storeId}` };
  }
  const notes = [
    ...(lock === undefined ? [] : [`the image is busy: import task ${lock} holds its lock`]),
    ...(store.type === undefined && image.diskFormat !== 'raw'
      ? [`disk_format ${image.diskFormat}; store type unknown, and nova clones only raw images from rbd`] : []),
  ];
  const more = notes.length === 0 ? '' : ` (${notes.join('; ')})`;
  if (hasStore(image.failedImport, storeId)) {
    return { state: 'failed-earlier', detail: `the last import to ${storeId} failed${more}` };
  }
  return { state: 'missing', detail: `not in ${storeId}${more}` };
}

function notCopyable(reason: NotCopyableReason, detail: string): PlacementVerdict {
  return { state: 'not-copyable', reason, detail };
}
