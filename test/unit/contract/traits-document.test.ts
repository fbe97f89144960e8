import { describe } from 'vitest';
import { traitsDocument, traitsJsonSchema } from '../../../src/contract/traits-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';
import { RBD_STORAGE, recordedHostTraits } from './traits-documents.js';

describe('contract/traits-document', () => {
  itKeepsItsContract('ferry traits --json', traitsJsonSchema, () => traitsDocument({ report: recordedHostTraits(), storage: RBD_STORAGE,
    skipped: [{ arch: 'aarch64', command: 'domcapabilities --arch aarch64 --virttype kvm', error: 'error: unsupported configuration' }] }), [
    { why: 'a trait given as an object', path: ['traits', 0], value: { name: 'HW_ARCH_X86_64' } },
    { why: 'the storage without its images_type', path: ['storage', 'images_type'], value: MISSING },
    { why: 'force_raw_images as a string', path: ['storage', 'force_raw_images'], value: 'true' },
    { why: 'a skipped domcaps query without its error', path: ['skipped_domcaps', 0, 'error'], value: MISSING },
  ]);
});
