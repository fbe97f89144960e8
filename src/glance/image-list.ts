import { z } from 'zod';
import { parseImageAt } from './image.js';
import type { GlanceImage } from './image.js';
import { validateResponse } from '../openstack/validate-response.js';

/** One page of `GET /v2/images`. */
export interface GlanceImagePage {
  readonly images: readonly GlanceImage[];
  /** The `next` link (`/v2/images?marker=…`) to follow for the next page; undefined on the last page. */
  readonly next: string | undefined;
}

const imagePageWire = z.looseObject({
  images: z.array(z.unknown()),
  next: z.union([z.string(), z.null()]).optional(),
});

export const LIST_IMAGES_ENDPOINT = 'GET /v2/images';

/** Parses one page of the image list; a bad image names its index (`images[3].status`). */
export function parseImageList(raw: unknown, endpoint: string = LIST_IMAGES_ENDPOINT): GlanceImagePage {
  const page = validateResponse(imagePageWire, raw, endpoint);
  const images = page.images.map((image, index) => parseImageAt(image, endpoint, ['images', index]));
  return Object.freeze({
    images: Object.freeze(images),
    next: page.next === null || page.next === '' ? undefined : page.next,
  });
}
