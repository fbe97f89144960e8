import { describe } from 'vitest';
import { prefilterDocument, prefilterJsonSchema } from '../../../src/contract/prefilter-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';
import { recordedTraitRequest } from './prefilter-documents.js';

describe('contract/prefilter-document', () => {
  itKeepsItsContract('ferry prefilter --json', prefilterJsonSchema, () => {
    const report = recordedTraitRequest('VCPU:1,MEMORY_MB:512');
    return prefilterDocument({ ...report, notes: [...report.result.notes, 'names checked against os-traits 2.9.0'] });
  }, [
    { why: 'a list of traits given as one string', path: ['root_required'], value: 'HW_ARCH_X86_64' },
    { why: 'a switch without its source', path: ['switches', 'image_type', 'source'], value: MISSING },
    { why: 'the image left out', path: ['image'], value: MISSING },
    { why: 'a camelCase twin of a field', path: ['switches', 'imageType'], value: { on: true, source: 'ferry default' } },
  ]);
});
