import { existsSync } from 'node:fs';
import { findImageOrThrow } from '../copy/find-image-or-throw.js';
import { FerryError } from '../errors/ferry-error.js';
import { parseImage, type GlanceImage } from '../glance/image.js';
import type { CommandContext } from './command-spec.js';

/**
 * `--image ID|NAME|FILE.json`: a Glance image document on disk (as `GET /v2/images/{id}` returns it), or an image
 * looked up in Glance. A file needs no cloud at all.
 */
export async function readImageArgument(ctx: CommandContext, value: string | undefined): Promise<GlanceImage> {
  if (value === undefined || value === '') {
    throw new FerryError('FERRY_INVALID_OPTION', '--image is required', 'Pass --image with an image ID, a unique name, or a FILE.json holding a Glance image document.');
  }
  if (value.endsWith('.json') || existsSync(value)) {
    let text: string;
    try {
      text = ctx.readFile(value);
    } catch (error) {
      throw new FerryError('FERRY_INVALID_OPTION', `cannot read --image ${value}: ${(error as Error).message}`,
        'Give a readable JSON file, or an image ID or name.', { file: value }, { cause: error });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new FerryError('FERRY_INVALID_OPTION', `--image ${value} is not valid JSON: ${(error as Error).message}`,
        'Save the image as `openstack image show -f json ID` or `curl …/v2/images/ID` prints it.', { file: value }, { cause: error });
    }
    return parseImage(body, `--image ${value}`);
  }
  const cloud = await ctx.connect();
  return findImageOrThrow(cloud.glance, value, ctx.signal);
}
