/**
 * What Glance's answer to `DELETE /v2/stores/{store}/{image}` means, from its status and message (recorded from
 * Glance 25: fixtures/glance/store-delete-*.json). Pure: the client turns the refusals that need a fix (an unknown
 * image or store, a policy or ownership refusal) into coded errors, and hands the others back as outcomes.
 *
 * Glance's order, seen: the store must be configured (409), the image must exist (404) and be active (409), the
 * caller must own it or be admin (403 "You do not own this image") and pass `delete_image_location`, it must have two
 * locations or more (403, checked before it looks for the store), then the store must hold it (404), then the driver
 * removes the data (409 when the rbd snapshot has clones: "in use through the backend store outside of Glance").
 */
export type StoreDeleteAnswer =
  /** 204: the location is gone and the driver removed the data (or, from glance_store 4.6 on, moved it to the trash). */
  | { readonly kind: 'removed' }
  /** 403: the store holds the only location. */
  | { readonly kind: 'last-location'; readonly message: string }
  /** 404: the image is not in that store (any more). */
  | { readonly kind: 'not-in-store'; readonly message: string }
  /** 409: the driver refused: the copy has clones (rbd), or a file is busy. */
  | { readonly kind: 'in-use'; readonly message: string }
  | { readonly kind: 'not-active'; readonly message: string }
  | { readonly kind: 'unknown-store'; readonly message: string }
  | { readonly kind: 'image-not-found'; readonly message: string }
  | { readonly kind: 'forbidden'; readonly message: string }
  | { readonly kind: 'other'; readonly status: number; readonly message: string };

export function classifyStoreDeleteAnswer(status: number, message: string | undefined): StoreDeleteAnswer {
  const text = message ?? '';
  if (status === 204 || status === 200) return { kind: 'removed' };
  if (status === 403) return /only store containing it/i.test(text) ? { kind: 'last-location', message: text } : { kind: 'forbidden', message: text };
  if (status === 404) return /is not stored in store/i.test(text) ? { kind: 'not-in-store', message: text } : { kind: 'image-not-found', message: text };
  if (status === 409) {
    if (/not available on this node/i.test(text)) return { kind: 'unknown-store', message: text };
    if (/status is not 'active'/i.test(text)) return { kind: 'not-active', message: text };
    // "could not be deleted because it is in use", HasSnapshot's "has snapshot(s) left"; any other 409 of the driver.
    return { kind: 'in-use', message: text };
  }
  return { kind: 'other', status, message: text };
}
