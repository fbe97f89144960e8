import { existsSync } from 'node:fs';
import { findImageOrThrow } from '../copy/find-image-or-throw.js';
import { FerryError } from '../errors/ferry-error.js';
import { parseImageDocument, type ImageDocumentField } from '../glance/image-document.js';
import type { GlanceImage } from '../glance/image.js';
import type { CommandContext } from './command-spec.js';

/** Whether `--image VALUE` names a local file (then no cloud is needed) rather than an image ID or name. */
export function isImageFile(value: string): boolean {
  return value.endsWith('.json') || existsSync(value);
}

export const IMAGE_DOCUMENT_HINT = 'Save the image with `openstack image show -f json ID > FILE.json` (or the body of '
  + 'GET /v2/images/ID), or write only the fields the command reads, e.g. {"disk_format": "qcow2", "hw_disk_bus": "scsi"} '
  + '(docs/cli.md, "Image documents").';

/**
 * `--image ID|NAME|FILE.json`: an image document on disk (a Glance `GET /v2/images/{id}` body, `openstack image show
 * -f json` output, or a partial hand-written one), or an image looked up in Glance. A file needs no cloud at all;
 * a malformed one is FERRY_INVALID_IMAGE_FILE listing every problem. `needs`: fields the command cannot do without.
 */
export async function readImageArgument(ctx: CommandContext, value: string | undefined,
  needs: readonly ImageDocumentField[] = []): Promise<GlanceImage> {
  if (value === undefined || value === '') {
    throw new FerryError('FERRY_INVALID_OPTION', '--image is required', 'Pass --image with an image ID, a unique name, or a FILE.json holding an image document.');
  }
  if (isImageFile(value)) {
    let text: string;
    try {
      text = ctx.readFile(value);
    } catch (error) {
      throw new FerryError('FERRY_INVALID_OPTION', `cannot read --image ${value}: ${(error as Error).message}`,
        'Give a readable JSON file, or an image ID or name.', { file: value }, { cause: error });
    }
    const result = parseImageDocument(text, value, needs);
    if (result.ok) return result.image;
    const { problems } = result;
    const message = problems.length === 1
      ? `--image ${value} is not a usable image document: ${problems[0] ?? ''}`
      : `--image ${value} is not a usable image document (${problems.length} problems):\n${problems.map((p) => `  - ${p}`).join('\n')}`;
    throw new FerryError('FERRY_INVALID_IMAGE_FILE', message, IMAGE_DOCUMENT_HINT, { file: value, problems });
  }
  const cloud = await ctx.connect();
  return findImageOrThrow(cloud.glance, value, ctx.signal);
}
