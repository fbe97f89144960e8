import { FerryError } from '../errors/ferry-error.js';

export type ImageRef = { readonly kind: 'id'; readonly id: string } | { readonly kind: 'name'; readonly name: string };

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
/** Hex and dashes only, with a dash: someone meant an ID (a truncated or mistyped paste), not a name. */
const ID_ATTEMPT = /^(?=.*-)[0-9a-f-]{8,}$/i;

/**
 * What the operator meant by IMAGE: an ID (UUID) or a name. A string that is clearly a broken ID is refused here,
 * before any request, instead of being looked up as a name and reported as "not found".
 */
export function parseImageRef(ref: string): ImageRef {
  const trimmed = ref.trim();
  if (trimmed === '' || [...trimmed].some((char) => char.charCodeAt(0) < 0x20)) {
    throw new FerryError('FERRY_INVALID_IMAGE_REF', 'the image reference is empty or has control characters',
      'Give the image ID (a UUID, as `openstack image list` shows it) or its unique name.', { imageRef: ref });
  }
  if (UUID.test(trimmed)) return { kind: 'id', id: trimmed.toLowerCase() };
  if (ID_ATTEMPT.test(trimmed)) {
    throw new FerryError('FERRY_INVALID_IMAGE_REF',
      `'${trimmed}' looks like an image ID but is not a UUID (32 hex digits as 8-4-4-4-12, got ${trimmed.replace(/-/g, '').length} digits)`,
      'Copy the whole ID from `openstack image list`, or give the image name instead.', { imageRef: ref });
  }
  return { kind: 'name', name: trimmed };
}

/** Glance does not keep names unique: a name two images carry is an error, never a guess (findImage, resolveListedRefs). */
export function ambiguousName(name: string, ids: readonly string[]): FerryError {
  return new FerryError('FERRY_IMAGE_AMBIGUOUS', `more than one image is named '${name}'`,
    `Use the image ID instead (openstack image list --name '${name}').`, { name, ids });
}
