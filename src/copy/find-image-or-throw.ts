import { FerryError } from '../errors/ferry-error.js';
import type { GlanceClient } from '../glance/glance-client.js';
import type { GlanceImage } from '../glance/image.js';

/** An image by ID or unique name, or FERRY_IMAGE_NOT_FOUND naming what was looked for. */
export async function findImageOrThrow(glance: GlanceClient, imageRef: string, signal?: AbortSignal): Promise<GlanceImage> {
  const image = await glance.findImage(imageRef, { signal });
  if (image === undefined) {
    throw new FerryError('FERRY_IMAGE_NOT_FOUND', `Glance has no image with ID or name '${imageRef}' visible to this project`,
      'Check the ID or name (openstack image list); images of other projects are visible only when shared or public.',
      { imageRef });
  }
  return image;
}
