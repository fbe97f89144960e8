import { FerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { GlanceImage } from '../glance/image.js';
import { parseImageRef } from '../glance/image-ref.js';

/** An image by ID, or by unique name, or FERRY_IMAGE_NOT_FOUND naming what was looked for. */
export async function findImageOrThrow(glance: GlanceClient, imageRef: string, signal?: AbortSignal): Promise<GlanceImage> {
  const image = await glance.findImage(imageRef, { signal });
  if (image === undefined) {
    // An ID is looked up as an ID only (glance-client.ts): say so, since an image may well be *named* like it.
    const what = parseImageRef(imageRef).kind === 'id' ? `ID '${imageRef}' (an ID is never looked up as a name)` : `ID or name '${imageRef}'`;
    throw new FerryError('FERRY_IMAGE_NOT_FOUND', `Glance has no image with ${what} visible to this project`,
      'Check the ID or name (openstack image list); images of other projects are visible only when shared or public.',
      { imageRef });
  }
  return image;
}
