import { describe } from 'vitest';
import { resolveBackendConfig } from '../../../src/backend/resolve-backend-config.js';
import { selectBackend } from '../../../src/backend/select-backend.js';
import { backendDocument, backendJsonSchema } from '../../../src/contract/backend-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';

describe('contract/backend-document', () => {
  itKeepsItsContract('ferry backend --json', backendJsonSchema, () => backendDocument({ imageId: '8554f597-4961-4557-9ad1-1fbfef5ebc46',
    choice: selectBackend('qcow2', resolveBackendConfig({ imagesType: 'rbd', imagesTypeMapping: 'qcow2:qcow2', useCowImages: true,
      source: 'nova.conf (/etc/nova/nova.conf) [libvirt] images_type_mapping' })) }), [
    { why: 'a decision by a setting nova has not', path: ['decided_by'], value: 'images_type_default' },
    { why: 'converted as a string', path: ['converted'], value: 'no' },
    { why: 'the stored format left out', path: ['stored_format'], value: MISSING },
  ]);
});
