import { parsePrefilterImage } from '../src/prefilter/prefilter-image.js';
import { imageTraitRequest } from '../src/prefilter/image-trait-request.js';
import { standardTraitCatalogue } from '../src/traits/trait-catalogue.js';
import { z } from 'zod';
const catalogue = standardTraitCatalogue();
const img = { name: 'img50', container_format: 'bare', visibility: 'shared', size: 52428800, virtual_size: 52428800, status: 'active',
  checksum: 'd9a1e5e8b755591e5a5bfa04504319df', protected: false, min_ram: 0, min_disk: 0, owner: '11111111111111111111111111111111',
  os_hidden: false, os_hash_algo: 'sha512', os_hash_value: 'd0dd3eb8', tags: [], schema: '/v2/schemas/image', stores: 'central,edge1', id: 'b', disk_format: 'qcow2', hw_disk_bus: 'scsi', hw_video_model: 'qxl', hw_vif_model: 'virtio', hw_architecture: 'x86_64' };
function time(name: string, f: () => unknown) { for (let i=0;i<20000;i++) f(); const t=performance.now(); const n=100000; for (let i=0;i<n;i++) f(); const dt=performance.now()-t; console.log(name, Math.round(n/(dt/1000)), '/s'); }
const s = z.object({ id: z.string().optional(), disk_format: z.string().nullable().optional() });
time('zod only', () => s.safeParse(img));
time('parse', () => parsePrefilterImage(img));
time('full no resources', () => imageTraitRequest(img, { catalogue }));
time('full no meta', () => imageTraitRequest(img, { catalogue, imageMetadataFilter: false }));
time('full', () => imageTraitRequest(img, { catalogue, resources: 'VCPU:1', limit: 1000 }));
