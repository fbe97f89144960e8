import { FerryError } from '../errors/ferry-error.js';

/**
 * Glance image IDs are UUIDs in practice, but Glance accepts any 36-char id on create. Reject only what can never be
 * one, before any request: empty, whitespace, slashes or query characters (which would change the URL's meaning).
 */
export function assertImageId(id: string): void {
  if (id === '' || id.length > 255 || /[\s/?#%\\]/.test(id)) {
    throw new FerryError('FERRY_INVALID_IMAGE_REF', `'${id}' is not a valid image ID`,
      'Give the image UUID as `openstack image list` shows it (e.g. 3f1c2a9e-…), or a unique image name.', { imageId: id });
  }
}
