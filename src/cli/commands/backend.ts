import { resolveBackendConfig } from '../../backend/resolve-backend-config.js';
import { selectBackend } from '../../backend/select-backend.js';
import { backendDocument, backendJsonSchema, type BackendReport } from '../../contract/backend-document.js';
import { FerryError } from '../../errors/ferry-error.js';
import type { CommandSpec } from '../command-spec.js';
import { configFlag, HOST_STORAGE_FLAGS } from '../global-options.js';
import { readImageArgument } from '../image-argument.js';

export const backendCommand: CommandSpec<BackendReport> = {
  name: 'backend',
  examples: [
    'ferry backend --image image.json --images-type rbd --images-type-mapping "qcow2:qcow2, ploop:ploop"',
    'ferry backend --image 3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10 --nova-conf /etc/nova/nova.conf --json',
  ],
  arguments: [],
  options: [
    { name: 'image', value: 'ID|FILE.json', description: 'the image: an ID or unique name (asks Glance), or an image document FILE.json (at least disk_format)' },
    ...HOST_STORAGE_FLAGS.filter((flag) => flag !== 'force-raw-images' && flag !== 'image-type-exclude' && flag !== 'virt-type').map(configFlag),
  ],
  jsonSchema: backendJsonSchema,
  async run(ctx) {
    const image = await readImageArgument(ctx, typeof ctx.flags.image === 'string' ? ctx.flags.image : undefined, ['disk_format']);
    if (image.diskFormat === null) {
      throw new FerryError('FERRY_INVALID_OPTION', `image ${image.id} has no disk_format, so no backend can be chosen`,
        'Set the image\'s disk_format in Glance (it is set when the image is created).', { imageId: image.id });
    }
    const { host, sources } = ctx.config;
    const config = resolveBackendConfig({
      imagesType: host.imagesType,
      imagesTypeMapping: host.imagesTypeMapping ?? '',
      useCowImages: host.useCowImages,
      source: sources['host.imagesTypeMapping'] ?? sources['host.imagesType'],
    });
    return { imageId: image.id, choice: selectBackend(image.diskFormat, config) };
  },
  toJson: backendDocument,
  render: ({ imageId, choice }, style) => [
    `${style.bold(choice.backend)}${choice.converted ? style.warn(` (converted from ${choice.diskFormat} to ${choice.storedFormat})`) : ` (${choice.diskFormat}, not converted)`}  image ${imageId}`,
    `  ${style.dim(choice.reason)}`,
  ].join('\n'),
};
